// Package sagemaker holds the AWS side of the compiler: SageMaker framework container image URIs,
// the upload manifest of files a pipeline needs in S3, and Upsert, which uploads those files and
// creates or updates the pipeline with aws-sdk-go-v2.
//
// # Images
//
// ImageURI answers "which ECR image runs framework F version V in region R on instance type I" from
// embedded tables (images/*.json, unchanged copies of the SageMaker Python SDK's image_uri_config
// files; images/README.md has their provenance). It follows sagemaker.image_uris.retrieve:
//
//   - XGBoost and scikit-learn are algorithm images (sagemaker-xgboost, sagemaker-scikit-learn).
//     Training and inference use the same image. Their tag is the version, plus "-cpu-py3" for the
//     versions whose table entry lists a processor and a Python version (XGBoost up to 1.0-1, every
//     scikit-learn version), e.g. sagemaker-xgboost:1.7-1, sagemaker-scikit-learn:1.2-1-cpu-py3.
//   - PyTorch uses the deep-learning containers (pytorch-training, pytorch-inference) tagged
//     <version>-<cpu|gpu>-<pyVersion>; cpu or gpu follows the instance family (g* and p* are gpu),
//     e.g. pytorch-training:2.1.0-gpu-py310.
//   - LightGBM has no SageMaker framework image. The engine runs LightGBM (and multi-task LightGBM)
//     jobs as PyTorch-framework jobs whose script brings lightgbm, as the original Python engine
//     does (its LightGBM steps use the PyTorch estimator/processor with image retrieval defaulting
//     to the "pytorch" framework). So ImageURI("lightgbm", ...) and ImageURI("lightgbmmt", ...)
//     return the PyTorch image for the given PyTorch version: pass the PyTorch framework version.
//   - Inference on Graviton (arm64) families (m6g, m6gd, c6g, c6gd, c6gn, c7g, r6g, r6gd) uses the
//     tables' inference_graviton scope: pytorch-inference-graviton with its container suffix, and
//     the SDK's fixed arm64 tags for XGBoost 1.3-1/1.5-1 and scikit-learn 1.0-1. Unlike the SDK,
//     training on a Graviton family is an error rather than a silent switch to an inference image.
//   - Version aliases in the tables ("2.1" for PyTorch 2.1.0, "latest" for the legacy xgboost:1
//     image) are accepted; as in the SDK the tag then carries the alias ("2.1-cpu-py310").
//   - The host is ecr.<region>.amazonaws.com, or the partition's suffix (amazonaws.com.cn for
//     China, c2s.ic.gov / sc2s.sgov.gov / csp.hci.ic.gov for the ISO regions).
//
// Anything the table cannot answer (framework, scope, version, Python version, region, processor)
// is an *ImageError that lists the supported values. ImageVersions and ImageFrameworks enumerate
// the table.
//
// # Upload manifest
//
// A Manifest lists UploadItems (local file, s3:// destination, SHA-256, size); the compiler writes
// one next to the definition, and HashFile / NewUploadItem fill the hash and size.
//
// # Upsert
//
// Upsert validates everything first (ValidateInput: names, role ARN, tags, the definition JSON and
// its size, every manifest file readable with the recorded hash and size), so bad input is an
// *InputError and nothing is uploaded or created. It then uploads the manifest (skipping objects
// whose x-amz-meta-sha256 metadata, or full-object SHA-256 checksum, and size already match;
// uploads send x-amz-checksum-sha256 so S3 refuses content that changed since validation), calls
// DescribePipeline and CreatePipeline or UpdatePipeline, and merges tags. AWS failures are
// *UpsertError values with the AWS error code (ValidationException, AccessDeniedException, ...),
// which the tools layer maps to upsert_failed. Credentials, region and endpoints come from the
// standard AWS configuration chain unless UpsertInput.Config is given; with an endpoint override
// (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, ...) S3 uses path-style addressing.
//
// Both not-found shapes are handled: real SageMaker answers DescribePipeline for a missing pipeline
// with ResourceNotFound, moto with ValidationException "Could not find pipeline ...". The tests run
// against moto_server (skipped when it is not on PATH) and against an in-process fake endpoint that
// speaks the real service's error shapes.
package sagemaker

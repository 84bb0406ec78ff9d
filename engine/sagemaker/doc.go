// Package sagemaker holds the pure side of SageMaker that the compiler needs: framework container
// image URIs, the API's name rules and limits, and the upload manifest of files a pipeline needs in
// S3. It imports no AWS SDK package, so the compiler links none; the AWS client (upload, upsert,
// executions) is package smclient beside it.
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
//     jobs as PyTorch-framework jobs, as cursus (Python) does, whose code carries a requirements.txt
//     with lightgbm that the PyTorch containers pip-install before the code runs (the catalog's
//     contract.requirements_file). So ImageURI("lightgbm", ...) and ImageURI("lightgbmmt", ...)
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
// # Names and limits
//
// ValidatePipelineName and HasNameShape apply the API's pipeline-name rule; MaxDefinitionBytes,
// MaxPipelineNameLen, MaxDescriptionLen and MaxTags are the CreatePipeline / UpdatePipeline limits.
package sagemaker

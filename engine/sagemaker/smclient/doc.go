// Package smclient is the AWS side of the engine: it uploads a compiled pipeline's files to S3 and
// creates or updates the pipeline on SageMaker with aws-sdk-go-v2. The pure parts it builds on
// (names, limits, the upload manifest, image URIs) are package sagemaker, which the compiler uses
// without linking the SDK.
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
package smclient

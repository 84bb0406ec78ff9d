// Package smclient is the AWS side of the engine: it uploads a compiled pipeline's files to S3,
// creates or updates the pipeline on SageMaker, and starts, follows and stops its executions, with
// aws-sdk-go-v2. The pure parts it builds on (names, limits, the upload manifest, image URIs) are
// package sagemaker, which the compiler uses without linking the SDK.
//
// Upsert validates everything first (ValidateInput: names, role ARN, tags, the definition JSON,
// the S3 prefix a large definition needs, every manifest file readable with the recorded hash and
// size), so bad input is an *InputError and nothing is uploaded or created. It then uploads the
// manifest (skipping objects whose x-amz-meta-sha256 metadata, or full-object SHA-256 checksum, and
// size already match; uploads send x-amz-checksum-sha256 so S3 refuses content that changed since
// validation) and calls DescribePipeline. A stored definition JSON-equal to the new one (JSONEqual),
// with the same role, is left alone: no UpdatePipeline, so no new pipeline version, and the answer
// is Unchanged when the tags are in place too. Otherwise it calls CreatePipeline or UpdatePipeline
// and merges tags. A definition of InlineDefinitionLimit (100 KB) or more is first uploaded
// content-addressed (<prefix>/<sha256>.json, DefinitionS3URI) and passed as
// PipelineDefinitionS3Location. AWS failures are *UpsertError values with the AWS error code
// (ValidationException, AccessDeniedException, ...), which the tools layer maps to upsert_failed;
// a failure after UpdatePipeline went live is a *PartialError saying so (upsert_partial).
// Credentials, region and endpoints come from the standard AWS configuration chain unless
// UpsertInput.Config is given; with an endpoint override (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3,
// ...) S3 uses path-style addressing.
//
// # Executions
//
// Client (NewClient) runs the pipeline-execution calls. Start reads the pipeline's declared
// parameters from DescribePipeline and refuses an undeclared name or a value its type refuses
// (*ParameterError) before StartPipelineExecution; Describe, List and Steps answer
// DescribePipelineExecution (with ListPipelineParametersForExecution), ListPipelineExecutions and
// ListPipelineExecutionSteps (each step with its job ARN and the CloudWatch log group and stream
// prefix SageMaker writes its logs to); Stop sends StopPipelineExecution; Wait polls with backoff
// until a terminal status or a timeout. Failed calls are *AWSError values (NotFound for a missing
// pipeline or execution).
//
// Both not-found shapes are handled: real SageMaker answers DescribePipeline for a missing pipeline
// with ResourceNotFound, moto with ValidationException "Could not find pipeline ...". The tests run
// against moto_server (skipped when it is not on PATH) and against an in-process fake endpoint that
// speaks the real service's error shapes.
package smclient

package tools

import (
	"context"
	"errors"
	"os"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
)

// upsertCompiled deploys a compiled pipeline (compile.dag with upsert): it materializes the
// upload manifest, calls smclient.Upsert with the definition (through S3 under
// <S3Location>/definition when it is too large to send inline), and adds to data what happened.
// A deployment that went live in part answers upsert_partial with data saying what went live.
//
// explicit says the caller gave the region (compile.dag's region argument): without it, a
// config's region the AWS configuration disagrees with is refused (openAWSForConfig).
func upsertCompiled(ctx context.Context, res *compiler.Result, tags map[string]string, data CompileDAGData, explicit bool) (*envelope.Result[CompileDAGData], error) {
	up, err := upsertInput(ctx, res, tags)
	if err != nil {
		return nil, err
	}
	defer up.cleanup()
	aw, err := openAWSForConfig(ctx, res.Region, "compile.dag", explicit)
	if err != nil {
		return nil, err
	}
	in := up.in
	data.DefinitionBytes = len(in.DefinitionJSON)
	out, err := smclient.Upsert(ctx, in)
	var pe *smclient.PartialError
	if errors.As(err, &pe) {
		upsertData(&data, &pe.Output)
		applied := false
		data.TagsApplied = &applied
		f := pe.Failed
		r := envelope.Partial(pe.Error(), envelope.CodeUpsertPartial, data).
			WithRemedy("the pipeline is live with the new definition; fix what the AWS error code names (e.g. the role's sagemaker:AddTags permission) and call compile.dag again: the definition is then unchanged and only the tags are set", "compile.dag")
		r.SetMeta("details", map[string]any{"operation": f.Op, "aws_error_code": f.Code, "aws_message": f.Message, "target": f.Target, "aws": aw.target})
		return r.WithWarnings(aw.warnings...), nil
	}
	if err != nil {
		return nil, aw.fail(err)
	}
	upsertData(&data, out)
	next := map[string]any{"pipeline_name": res.PipelineName}
	if res.Region != "" {
		next["region"] = res.Region
	}
	return done(aw, envelope.Success(data)).WithWarnings(res.Warnings...).WithMeta("upserted", true).WithNextSteps(
		envelope.NextStep{Tool: "execution.start", When: "you want it to run", Why: "starts an execution in the pipeline's region", ArgsHint: next},
		envelope.NextStep{Tool: "pipeline.describe", When: "you want to see what is deployed", Why: "its definition, versions and schedules", ArgsHint: next},
	), nil
}

// preparedUpsert is the UpsertInput of a compiled pipeline, its manifest materialized in a
// temporary directory that cleanup removes.
type preparedUpsert struct {
	in      smclient.UpsertInput
	cleanup func()
}

// upsertInput materializes a compiled pipeline's upload manifest and builds the UpsertInput that
// deploys it in its region (res.Region).
func upsertInput(ctx context.Context, res *compiler.Result, tags map[string]string) (*preparedUpsert, error) {
	defJSON, err := res.JSON()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "cursus-upload-")
	if err != nil {
		return nil, err
	}
	manifest, err := res.Manifest.Materialize(safefs.From(ctx), work)
	if err != nil {
		os.RemoveAll(work)
		return nil, toolError(err)
	}
	in := smclient.UpsertInput{
		Region:         res.Region,
		PipelineName:   res.PipelineName,
		DefinitionJSON: string(defJSON),
		RoleARN:        res.Role,
		Description:    res.Description,
		Tags:           tags,
		Manifest:       manifest,
	}
	if res.S3Location != "" {
		in.DefinitionS3Prefix = res.S3Location + "/definition"
	}
	if res.Parallelism != nil {
		in.MaxParallelExecutionSteps = res.Parallelism.MaxParallelExecutionSteps
	}
	return &preparedUpsert{in: in, cleanup: func() { os.RemoveAll(work) }}, nil
}

// upsertData adds an upsert's outcome to compile.dag's data.
func upsertData(data *CompileDAGData, out *smclient.UpsertOutput) {
	created, updated, unchanged := out.Created, out.Updated, out.Unchanged
	data.Upserted = true
	data.PipelineARN = out.PipelineARN
	data.Created, data.Updated, data.Unchanged = &created, &updated, &unchanged
	tagsAdded, uploaded, skipped := nonNilList(out.TagsAdded), nonNilList(out.Uploaded), nonNilList(out.Skipped)
	data.TagsAdded, data.Uploaded, data.Skipped = &tagsAdded, &uploaded, &skipped
	data.DefinitionS3URI = out.DefinitionS3URI
}

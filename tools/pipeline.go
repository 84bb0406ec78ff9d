package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

const examplePipelineName = "alice-Demo-xgboost-NA-1-0-0-pipeline"

// PipelineNamespace returns the pipeline namespace: the pipelines deployed on SageMaker.
func PipelineNamespace() registry.Namespace {
	return namespace("pipeline", "Deployed SageMaker pipelines: list, describe (any version), diff against the local DAG and config, delete, schedule.",
		registry.New("pipeline.list", registry.Spec{
			Description: "The SageMaker pipelines of a region, newest first, with their last execution.",
			When:        "you want to know what is deployed",
			Examples:    []string{`pipeline.list {"name_prefix": "alice-", "region": "us-east-1"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, pipelineList),
		registry.New("pipeline.describe", registry.Spec{
			Description: "A deployed pipeline: steps, parameters, model package groups, versions, schedules; or a version's definition.",
			When:        "you want to see what is deployed",
			Examples: []string{
				`pipeline.describe {"pipeline_name": "` + examplePipelineName + `"}`,
				`pipeline.describe {"pipeline_name": "` + examplePipelineName + `", "version": 3, "show": "definition"}`,
			},
			Tags:    []string{registry.PhaseProgrammer},
			Network: true,
		}, pipelineDescribe),
		registry.New("pipeline.diff", registry.Spec{
			Description: "What an upsert of the local DAG and config would change in the deployed pipeline: steps, parameters, role, code; changes nothing.",
			When:        "before an upsert",
			Examples:    []string{`pipeline.diff {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, pipelineDiff),
		registry.New("pipeline.delete", registry.Spec{
			Description: "Deletes a deployed pipeline (DeletePipeline). Its running executions go on; schedules that start it are listed, not deleted (pipeline.schedule deletes them). confirm must repeat the pipeline's name.",
			When:        "a deployed pipeline is no longer wanted",
			Examples:    []string{`pipeline.delete {"pipeline_name": "` + examplePipelineName + `", "confirm": "` + examplePipelineName + `"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, pipelineDelete),
		registry.New("pipeline.schedule", registry.Spec{
			Description: "Schedules of a pipeline on EventBridge Scheduler, with the pipeline as target (as the SageMaker SDK's PipelineSchedule): create (or update) one with a rate, cron or at expression and parameter values, list them, or delete one. The scheduler assumes role_arn (default: the pipeline's role) to start each execution.",
			When:        "a deployed pipeline should run on a schedule, or stop doing so",
			Examples: []string{
				`pipeline.schedule {"pipeline_name": "` + examplePipelineName + `", "action": "create", "expression": "cron(0 3 * * ? *)"}  # daily at 03:00 UTC`,
				`pipeline.schedule {"pipeline_name": "` + examplePipelineName + `", "action": "list"}`,
				`pipeline.schedule {"pipeline_name": "` + examplePipelineName + `", "action": "delete", "name": "` + examplePipelineName + `"}`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, pipelineSchedule),
	)
}

// --- pipeline.list ---

type pipelineListArgs struct {
	NamePrefix string `json:"name_prefix,omitempty" jsonschema:"maxLength=256"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=100,default=20"`
	NextToken  string `json:"next_token,omitempty" jsonschema:"maxLength=8192" jsonschema_description:"The next_token of the previous page."`
	regionArg
}

// PipelineListData is the data of pipeline.list: one page of the region's pipelines.
type PipelineListData struct {
	Count     int                        `json:"count"`
	Pipelines []smclient.PipelineSummary `json:"pipelines"`
	NextToken string                     `json:"next_token,omitempty"`
}

func pipelineList(ctx context.Context, a pipelineListArgs) (*envelope.Result[PipelineListData], error) {
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	max := a.MaxResults
	if max == 0 {
		max = 20
	}
	list, next, err := aw.c.Pipelines(ctx, a.NamePrefix, max, a.NextToken)
	if err != nil {
		return nil, aw.fail(err)
	}
	r := done(aw, envelope.Success(PipelineListData{Count: len(list), Pipelines: list, NextToken: next}))
	if next != "" {
		r = r.WithNextSteps(envelope.NextStep{Tool: "pipeline.list", When: "you want the next page", Why: "more pipelines", ArgsHint: map[string]any{"next_token": next, "name_prefix": a.NamePrefix, "region": aw.target.Region}})
	}
	if len(list) > 0 {
		r = r.WithNextSteps(envelope.NextStep{Tool: "pipeline.describe", When: "you want one's details", Why: "steps, versions, schedules", ArgsHint: map[string]any{"pipeline_name": list[0].Name, "region": aw.target.Region}})
	}
	return r, nil
}

// --- pipeline.describe ---

type pipelineDescribeArgs struct {
	PipelineName string `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the pipeline."`
	Version      int64  `json:"version,omitempty" jsonschema:"minimum=1" jsonschema_description:"Default: the current one."`
	Show         string `json:"show,omitempty" jsonschema:"enum=summary,enum=definition,default=summary"`
	Offset       int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"The definition's next_offset."`
	regionArg
}

// PipelineStep is one step of a deployed definition.
type PipelineStep struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	DependsOn []string `json:"depends_on"`
}

// PipelineDescribeData is the data of pipeline.describe: the pipeline, and its summary or a page
// of its definition.
type PipelineDescribeData struct {
	smclient.Pipeline
	// Summary (show summary).
	Steps              []PipelineStep             `json:"steps,omitempty"`
	Parameters         []smclient.Parameter       `json:"parameters,omitempty"`
	ModelPackageGroups []string                   `json:"model_package_groups,omitempty"`
	Versions           []smclient.PipelineVersion `json:"versions,omitempty"`
	Schedules          []smclient.Schedule        `json:"schedules,omitempty"`
	// Definition page (show definition): the bytes from offset, the definition's size, and where
	// the next page starts (0 at the end).
	Definition      string `json:"definition,omitempty"`
	DefinitionBytes int    `json:"definition_bytes"`
	Offset          int    `json:"offset,omitempty"`
	NextOffset      int    `json:"next_offset,omitempty"`
}

// definitionPage is the size of one page of a definition.
const definitionPage = 12 << 10

func pipelineDescribe(ctx context.Context, a pipelineDescribeArgs) (*envelope.Result[PipelineDescribeData], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err).WithDetails("field", "pipeline_name")
	}
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	p, err := aw.c.DescribePipeline(ctx, a.PipelineName, a.Version)
	if err != nil {
		return nil, aw.fail(err)
	}
	data := PipelineDescribeData{Pipeline: *p, DefinitionBytes: len(p.Definition)}
	var warnings []string
	if a.Show == "definition" {
		if a.Offset > len(p.Definition) {
			return nil, aw.fail(envelope.InvalidInput("offset %d is past the definition's %d bytes", a.Offset, len(p.Definition)).WithDetails("field", "offset"))
		}
		end := min(len(p.Definition), a.Offset+definitionPage)
		for end < len(p.Definition) && end > a.Offset && p.Definition[end]&0xC0 == 0x80 {
			end-- // keep whole runes
		}
		data.Definition, data.Offset = p.Definition[a.Offset:end], a.Offset
		r := done(aw, envelope.Success(data))
		if end < len(p.Definition) {
			data.NextOffset = end
			r = done(aw, envelope.Success(data)).WithNextSteps(envelope.NextStep{Tool: "pipeline.describe", When: "you want the rest", Why: "the next page of the definition",
				ArgsHint: map[string]any{"pipeline_name": a.PipelineName, "version": a.Version, "show": "definition", "offset": end, "region": aw.target.Region}})
		}
		return r, nil
	}
	if g, err := sagemaker.StepGraph(p.Definition); err == nil {
		for _, s := range g.Steps {
			data.Steps = append(data.Steps, PipelineStep{Name: s, Type: g.Types[s], DependsOn: nonNilList(g.Deps[s])})
			if g.Types[s] == "RegisterModel" {
				if grp, _ := g.Arguments[s]["ModelPackageGroupName"].(string); grp != "" && !contains(data.ModelPackageGroups, grp) {
					data.ModelPackageGroups = append(data.ModelPackageGroups, grp)
				}
			}
		}
	} else {
		warnings = append(warnings, err.Error())
	}
	data.Parameters, _ = smclient.DeclaredParameters(p.Definition)
	if v, err := aw.c.PipelineVersions(ctx, a.PipelineName, 5); err == nil {
		data.Versions = v
	} else {
		warnings = append(warnings, "versions not listed: "+err.Error())
	}
	if s, err := aw.c.Schedules(ctx, "", "", p.ARN, 20); err == nil {
		data.Schedules = s
	} else {
		warnings = append(warnings, "schedules not listed: "+err.Error())
	}
	r := done(aw, envelope.Success(data)).WithWarnings(warnings...)
	hint := map[string]any{"pipeline_name": a.PipelineName, "region": aw.target.Region}
	r = r.WithNextSteps(envelope.NextStep{Tool: "execution.list", When: "you want its runs", Why: "its executions, newest first", ArgsHint: hint})
	if len(data.ModelPackageGroups) > 0 {
		r = r.WithNextSteps(envelope.NextStep{Tool: "model_package.list", When: "you want the models it registered", Why: "versions with metrics and approval status",
			ArgsHint: map[string]any{"group_name": data.ModelPackageGroups[0], "region": aw.target.Region}})
	}
	return r, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --- pipeline.diff ---

type pipelineDiffArgs struct {
	namedCompileArgs
	Region string `json:"region,omitempty" jsonschema:"maxLength=32" jsonschema_description:"AWS region, as compile.dag takes it (default: the config's region)."`
}

// PipelineDiffData is the data of pipeline.diff: the local pipeline compiled, and what an upsert
// of it would change in the deployed one.
type PipelineDiffData struct {
	PipelineName string             `json:"pipeline_name"`
	Region       string             `json:"region"`
	Deployable   bool               `json:"deployable"`
	Blockers     []compiler.Blocker `json:"blockers"`
	// Action is what the upsert would do: "create", "update" or "none".
	Action string `json:"action"`
	smclient.PipelineDiff
}

func pipelineDiff(ctx context.Context, a pipelineDiffArgs) (*envelope.Result[PipelineDiffData], error) {
	region, err := resolveRegionArg("region", strings.TrimSpace(a.Region))
	if err != nil {
		return nil, err
	}
	res, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, func(ctx context.Context, in compiler.Input) (*compiler.Result, error) {
		in.Region = region
		return compiler.Compile(ctx, in)
	})
	if err != nil {
		return nil, err
	}
	if res.Role == "" {
		return nil, envelope.InvalidInput("the pipeline has no IAM role: set role in the config or pass role").WithDetails("field", "role")
	}
	up, err := upsertInput(ctx, res, nil)
	if err != nil {
		return nil, err
	}
	defer up.cleanup()
	aw, err := openAWSForConfig(ctx, res.Region, "pipeline.diff", region != "")
	if err != nil {
		return nil, err
	}
	d, err := smclient.Diff(ctx, up.in)
	if err != nil {
		return nil, aw.fail(err)
	}
	data := PipelineDiffData{PipelineName: res.PipelineName, Region: aw.target.Region, Deployable: res.Deployable(), Blockers: blockerItems(res.Blockers), PipelineDiff: *d}
	switch {
	case !d.Exists:
		data.Action = "create"
	case d.Unchanged:
		data.Action = "none"
	default:
		data.Action = "update"
	}
	r := done(aw, envelope.Success(data)).WithWarnings(res.Warnings...)
	if data.Action != "none" && res.Deployable() {
		h := hint(a.compileArgs)
		h["upsert"] = true
		r = r.WithNextSteps(envelope.NextStep{Tool: "compile.dag", When: "the changes are what you want", Why: fmt.Sprintf("%ss the pipeline", data.Action), ArgsHint: h})
	}
	return r, nil
}

// --- pipeline.delete ---

type pipelineDeleteArgs struct {
	PipelineName string `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the pipeline to delete."`
	Confirm      string `json:"confirm" jsonschema:"required,maxLength=256" jsonschema_description:"The pipeline's name again: a guard against deleting the wrong one."`
	regionArg
}

// PipelineDeleteData is the data of pipeline.delete.
type PipelineDeleteData struct {
	PipelineName string `json:"pipeline_name"`
	PipelineARN  string `json:"pipeline_arn"`
	Deleted      bool   `json:"deleted"`
	// Schedules are the schedules that still name the pipeline as their target.
	Schedules []smclient.Schedule `json:"schedules"`
}

func pipelineDelete(ctx context.Context, a pipelineDeleteArgs) (*envelope.Result[PipelineDeleteData], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err).WithDetails("field", "pipeline_name")
	}
	if a.Confirm != a.PipelineName {
		return nil, envelope.InvalidInput("confirm must repeat the pipeline's name (%s) exactly: nothing was deleted", a.PipelineName).WithDetails("field", "confirm")
	}
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	arn, err := aw.c.DeletePipeline(ctx, a.PipelineName)
	if err != nil {
		return nil, aw.fail(err)
	}
	data := PipelineDeleteData{PipelineName: a.PipelineName, PipelineARN: arn, Deleted: true, Schedules: []smclient.Schedule{}}
	r := done(aw, envelope.Success(data))
	if s, err := aw.c.Schedules(ctx, "", "", arn, 20); err == nil && len(s) > 0 {
		data.Schedules = s
		r = done(aw, envelope.Success(data)).WithWarnings(fmt.Sprintf("%d schedule(s) still start the deleted pipeline and will fail: delete them with pipeline.schedule", len(s))).
			WithNextSteps(envelope.NextStep{Tool: "pipeline.schedule", When: "its schedules should go too", Why: "deletes a schedule",
				ArgsHint: map[string]any{"pipeline_name": a.PipelineName, "action": "delete", "name": s[0].Name, "region": aw.target.Region}})
	} else if err != nil {
		r = r.WithWarnings("the schedules that start it were not listed: " + err.Error())
	}
	return r, nil
}

// --- pipeline.schedule ---

type pipelineScheduleArgs struct {
	PipelineName string         `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the deployed pipeline."`
	Action       string         `json:"action" jsonschema:"required,enum=create,enum=list,enum=delete" jsonschema_description:"create (or update a schedule of that name), list the pipeline's schedules, or delete one."`
	Expression   string         `json:"expression,omitempty" jsonschema:"maxLength=256" jsonschema_description:"create: rate(1 day), cron(minutes hours day-of-month month day-of-week year) or at(yyyy-mm-ddThh:mm:ss)."`
	Name         string         `json:"name,omitempty" jsonschema:"maxLength=64" jsonschema_description:"The schedule's name (default: the pipeline's name, as the SDK names it)."`
	Group        string         `json:"group,omitempty" jsonschema:"maxLength=64" jsonschema_description:"The schedule group (default: the default group)."`
	Timezone     string         `json:"timezone,omitempty" jsonschema:"maxLength=64" jsonschema_description:"create: the expression's IANA time zone (default UTC)."`
	RoleARN      string         `json:"role_arn,omitempty" jsonschema:"maxLength=2048" jsonschema_description:"create: the role EventBridge Scheduler assumes to start the pipeline (needs sagemaker:StartPipelineExecution and to trust scheduler.amazonaws.com). Default: the pipeline's role."`
	Parameters   map[string]any `json:"parameters,omitempty" jsonschema_description:"create: pipeline parameter values of every scheduled execution (each declared by the pipeline; parameters without a default must be given)."`
	Disabled     bool           `json:"disabled,omitempty" jsonschema_description:"create: make the schedule DISABLED."`
	Description  string         `json:"description,omitempty" jsonschema:"maxLength=512" jsonschema_description:"create: a description of the schedule."`
	regionArg
}

// PipelineScheduleData is the data of pipeline.schedule: the schedule created or updated, the
// pipeline's schedules, or the one deleted.
type PipelineScheduleData struct {
	Action       string `json:"action"`
	PipelineName string `json:"pipeline_name"`
	PipelineARN  string `json:"pipeline_arn"`
	// Schedule is the schedule created or updated (create).
	Schedule *smclient.Schedule `json:"schedule,omitempty"`
	// Created is true when create made a new schedule (false: it updated one of that name).
	Created bool `json:"created,omitempty"`
	// Schedules are the pipeline's schedules (list).
	Schedules []smclient.Schedule `json:"schedules,omitempty"`
	// Deleted is the name of the schedule deleted (delete).
	Deleted string `json:"deleted,omitempty"`
}

func pipelineSchedule(ctx context.Context, a pipelineScheduleArgs) (*envelope.Result[PipelineScheduleData], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err).WithDetails("field", "pipeline_name")
	}
	if a.Action == "create" && strings.TrimSpace(a.Expression) == "" {
		return nil, envelope.InvalidInput("create needs expression: rate(1 day), cron(0 3 * * ? *) or at(2030-01-01T03:00:00)").WithDetails("field", "expression")
	}
	params, err := parameterStrings(a.Parameters)
	if err != nil {
		return nil, err
	}
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	p, err := aw.c.DescribePipeline(ctx, a.PipelineName, 0)
	if err != nil {
		return nil, aw.fail(err)
	}
	name := a.Name
	if name == "" {
		name = a.PipelineName
	}
	data := PipelineScheduleData{Action: a.Action, PipelineName: a.PipelineName, PipelineARN: p.ARN}
	hint := map[string]any{"pipeline_name": a.PipelineName, "region": aw.target.Region}
	switch a.Action {
	case "list":
		s, err := aw.c.Schedules(ctx, a.Group, "", p.ARN, 50)
		if err != nil {
			return nil, aw.fail(err)
		}
		data.Schedules = s
		return done(aw, envelope.Success(data)), nil
	case "delete":
		s, err := aw.c.GetSchedule(ctx, name, a.Group)
		if err != nil {
			return nil, aw.fail(err)
		}
		if s.TargetARN != p.ARN {
			return nil, aw.fail(envelope.InvalidInput("schedule %s starts %s, not %s: nothing was deleted", name, s.TargetARN, p.ARN).WithDetails("field", "name"))
		}
		if err := aw.c.DeleteSchedule(ctx, name, a.Group); err != nil {
			return nil, aw.fail(err)
		}
		data.Deleted = name
		return done(aw, envelope.Success(data)), nil
	}
	declared, err := smclient.DeclaredParameters(p.Definition)
	if err != nil {
		return nil, aw.fail(err)
	}
	if err := smclient.CheckParameters(declared, params); err != nil {
		return nil, aw.fail(err)
	}
	var missing []string
	for _, d := range declared {
		if _, given := params[d.Name]; !given && d.DefaultValue == nil {
			missing = append(missing, d.Name)
		}
	}
	if len(missing) > 0 {
		return nil, aw.fail(envelope.InvalidInput("parameter(s) %s have no default: a scheduled execution needs a value for each; give them in parameters", strings.Join(missing, ", ")).
			WithDetails("field", "parameters", "missing", missing))
	}
	role := a.RoleARN
	if role == "" {
		role = p.RoleARN
	}
	s, created, err := aw.c.PutSchedule(ctx, smclient.ScheduleInput{Name: name, Group: a.Group, PipelineARN: p.ARN, Expression: a.Expression, Timezone: a.Timezone,
		RoleARN: role, Parameters: params, Disabled: a.Disabled, Description: a.Description})
	if err != nil {
		return nil, aw.fail(err)
	}
	data.Schedule, data.Created = s, created
	r := done(aw, envelope.Success(data)).WithNextSteps(envelope.NextStep{Tool: "pipeline.schedule", When: "you want to see every schedule of the pipeline", Why: "lists them", ArgsHint: merge(hint, map[string]any{"action": "list"})})
	if a.RoleARN == "" {
		r = r.WithWarnings("the schedule assumes the pipeline's role " + role + ": it must trust scheduler.amazonaws.com and allow sagemaker:StartPipelineExecution on the pipeline, or give role_arn")
	}
	return r, nil
}

// merge is a copy of a with b's entries added.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// answerBudget is the size an answer of the run loop's tools stays under: their lists page, and
// log lines are cut to fit.
const answerBudget = 16 << 10

// executionLoopTools are the tools of the loop after a failure: why a step failed, its log, its
// data, and (execution.retry, in execution_sagemaker.go) the re-run.
func executionLoopTools() []*registry.ToolDef {
	return []*registry.ToolDef{
		registry.New("execution.failure", registry.Spec{
			Description: "An execution's first failed step: its FailureReason, log tail, the S3 data it read, and the execution.download and execution.run_local arguments that reproduce it locally.",
			When:        "an execution failed",
			Examples: []string{
				`execution.failure {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}`,
				`execution.failure {"execution_arn": "` + exampleExecutionARN + `"}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
			Network:          true,
		}, executionFailure),
		registry.New("execution.logs", registry.Spec{
			Description: "A step's job log from CloudWatch Logs: the last lines, the first, or those matching a filter pattern; paged.",
			When:        "you want a step's job output",
			Examples: []string{
				`execution.logs {"execution_arn": "` + exampleExecutionARN + `", "step_name": "XGBoostTraining", "filter": "?Error ?Traceback", "lines": 20}`,
				`execution.logs {"execution_arn": "` + exampleExecutionARN + `"}  # the first failed step's last lines`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
			Network:          true,
		}, executionLogs),
		registry.New("execution.download", registry.Spec{
			Description: "Downloads what a step of an execution read or wrote (its job's inputs or outputs, from S3) into work_dir/<step>/<name>/, within max_bytes, and answers the data mapping execution.run_local takes for them (\"<step>.<output>\" -> local path).",
			When:        "you want to reproduce a failed step locally (execution.failure names what to fetch) or look at a step's output",
			Examples: []string{
				`execution.download {"execution_arn": "` + exampleExecutionARN + `", "step_name": "TabularPreprocessing-Training", "work_dir": "runs/repro"}`,
			},
			Tags:    []string{registry.PhaseProgrammer},
			Network: true,
			Writes:  true,
		}, executionDownload),
	}
}

// ExecutionLogLine is one line of a job's log; Stream indexes the answer's streams.
type ExecutionLogLine struct {
	Time    time.Time `json:"time"`
	Stream  int       `json:"stream"`
	Message string    `json:"message"`
}

type executionLogsArgs struct {
	executionARNArgs
	StepName  string `json:"step_name,omitempty" jsonschema:"maxLength=256" jsonschema_description:"Default: the first failed step."`
	Filter    string `json:"filter,omitempty" jsonschema:"maxLength=1024" jsonschema_description:"A CloudWatch Logs filter pattern."`
	Lines     int    `json:"lines,omitempty" jsonschema:"minimum=1,maximum=200,default=50" jsonschema_description:"Lines, over all the job's streams."`
	FromHead  bool   `json:"from_head,omitempty" jsonschema_description:"The first lines, not the last."`
	NextToken string `json:"next_token,omitempty" jsonschema:"maxLength=16384" jsonschema_description:"The next_token of the previous page."`
}

// ExecutionLogsData is the data of execution.logs: a step's job, where its log is, and a page of
// its lines in time order.
type ExecutionLogsData struct {
	ExecutionARN    string             `json:"execution_arn"`
	StepName        string             `json:"step_name"`
	StepStatus      string             `json:"step_status"`
	JobName         string             `json:"job_name"`
	LogGroup        string             `json:"log_group"`
	LogStreamPrefix string             `json:"log_stream_prefix"`
	Streams         []string           `json:"streams"`
	Lines           []ExecutionLogLine `json:"lines"`
	// Cut is true when long lines were shortened to keep the answer under 16 KB.
	Cut       bool   `json:"cut"`
	NextToken string `json:"next_token,omitempty"`
	// Note says why there are no lines (the job wrote no log yet, or the step runs no job).
	Note string `json:"note,omitempty"`
}

func executionLogs(ctx context.Context, a executionLogsArgs) (*envelope.Result[ExecutionLogsData], error) {
	steps, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) ([]smclient.StepExecution, error) { return c.Steps(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	step, err := pickStep(steps, a.StepName)
	if err != nil {
		return nil, aw.fail(err)
	}
	data, err := readStepLog(ctx, aw.c, a.ExecutionARN, step, smclient.LogQuery{Filter: a.Filter, Lines: a.Lines, FromHead: a.FromHead, Token: a.NextToken}, answerBudget-2048)
	if err != nil {
		return nil, aw.fail(err)
	}
	r := done(aw, envelope.Success(*data))
	if data.NextToken != "" {
		r = r.WithNextSteps(envelope.NextStep{Tool: "execution.logs", When: "you want more lines", Why: "the next page", ArgsHint: map[string]any{
			"execution_arn": a.ExecutionARN, "step_name": step.Name, "next_token": data.NextToken, "filter": a.Filter, "from_head": a.FromHead}})
	}
	if step.Status == smclient.StatusFailed {
		r = r.WithNextSteps(failureNextStep(a.ExecutionARN))
	}
	return r, nil
}

// pickStep is the named step, or the first failed one.
func pickStep(steps []smclient.StepExecution, name string) (smclient.StepExecution, error) {
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
		if name != "" && s.Name == name || name == "" && s.Status == smclient.StatusFailed {
			return s, nil
		}
	}
	if name == "" {
		return smclient.StepExecution{}, envelope.InvalidInput("no step of the execution failed: name the step (step_name) whose log to read; its steps: %s", strings.Join(names, ", ")).
			WithDetails("field", "step_name", "steps", nonNilList(names))
	}
	return smclient.StepExecution{}, envelope.NotFound("the execution has no step %q (it ran: %s)", name, strings.Join(names, ", ")).
		WithDetails("field", "step_name", "steps", nonNilList(names)).WithRemedy("use a step name execution.steps lists", "execution.steps")
}

// readStepLog reads a page of a step's job log and fits it in budget bytes.
func readStepLog(ctx context.Context, c *smclient.Client, arn string, step smclient.StepExecution, q smclient.LogQuery, budget int) (*ExecutionLogsData, error) {
	data := &ExecutionLogsData{ExecutionARN: arn, StepName: step.Name, StepStatus: step.Status, JobName: step.JobName,
		Streams: []string{}, Lines: []ExecutionLogLine{}}
	if step.Logs == nil || step.Logs.LogGroup == "" {
		data.Note = fmt.Sprintf("step %s (%s) runs no job that logs to CloudWatch Logs", step.Name, orNone(step.Kind))
		if step.Logs != nil && step.Logs.S3URI != "" {
			data.Note = fmt.Sprintf("step %s writes its log to %s", step.Name, step.Logs.S3URI)
		}
		return data, nil
	}
	data.LogGroup, data.LogStreamPrefix = step.Logs.LogGroup, step.Logs.LogStreamPrefix
	q.Group, q.StreamPrefix = step.Logs.LogGroup, step.Logs.LogStreamPrefix
	page, err := c.Logs(ctx, q)
	if err != nil {
		return nil, err
	}
	data.Streams, data.NextToken = page.Streams, page.Next
	index := map[string]int{}
	for i, s := range page.Streams {
		index[s] = i
	}
	for _, e := range page.Events {
		data.Lines = append(data.Lines, ExecutionLogLine{Time: e.Time, Stream: index[e.Stream], Message: e.Message})
	}
	if len(page.Streams) == 0 {
		data.Note = fmt.Sprintf("no log streams %s* in %s: the job has not written a log (it may not have started)", q.StreamPrefix, q.Group)
	} else if len(data.Lines) == 0 && q.Filter != "" {
		data.Note = fmt.Sprintf("no line matches %q", q.Filter)
	}
	data.Cut = fitLines(data, budget) || page.Cut
	return data, nil
}

func orNone(s string) string {
	if s == "" {
		return "no metadata yet"
	}
	return s
}

// fitLines cuts the longest messages until the data's JSON is within budget bytes, and reports
// whether it cut any.
func fitLines(data *ExecutionLogsData, budget int) bool {
	size := func() int { b, _ := json.Marshal(data); return len(b) }
	cut := false
	for over := size() - budget; over > 0 && len(data.Lines) > 0; over = size() - budget {
		longest := 0
		for i, l := range data.Lines {
			if len(l.Message) > len(data.Lines[longest].Message) {
				longest = i
			}
		}
		m := data.Lines[longest].Message
		if len(m) <= 120 {
			data.Lines = data.Lines[1:] // only short lines left: drop the oldest (next_token still pages on)
			cut = true
			continue
		}
		keep := max(120, len(m)-over-40)
		data.Lines[longest].Message = truncateUTF8(m, keep) + fmt.Sprintf(" [... %d more bytes]", len(m)-keep)
		cut = true
	}
	return cut
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// --- execution.failure ---

type executionFailureArgs struct {
	ExecutionARN string `json:"execution_arn,omitempty" jsonschema:"maxLength=2048" jsonschema_description:"Or pipeline_name."`
	PipelineName string `json:"pipeline_name,omitempty" jsonschema:"maxLength=256" jsonschema_description:"Its latest failed execution."`
	regionArg
	LogLines int `json:"log_lines,omitempty" jsonschema:"minimum=1,maximum=100,default=30" jsonschema_description:"Log lines to show."`
	// The local pipeline, for the reproduction's execution.run_local arguments.
	DAG     dagObject `json:"dag,omitempty"`
	DAGFile string    `json:"dag_file,omitempty"`
	dagIDArg
	ConfigFile string `json:"config_file,omitempty"`
	WorkDir    string `json:"work_dir,omitempty" jsonschema:"maxLength=4096,default=runs/repro" jsonschema_description:"Where the reproduction runs."`
}

// FailedStep is the step an execution failed at.
type FailedStep struct {
	StepName      string                `json:"step_name"`
	Kind          string                `json:"kind"`
	JobName       string                `json:"job_name"`
	JobARN        string                `json:"job_arn"`
	FailureReason string                `json:"failure_reason"`
	AttemptCount  int                   `json:"attempt_count"`
	Logs          *smclient.LogLocation `json:"logs,omitempty"`
}

// ReproInput is one piece of data the failed step read: an upstream step's output in the failed
// execution, where a local run takes it from.
type ReproInput struct {
	// DataKey is the key execution.run_local's data takes: "<step>.<output>".
	DataKey   string `json:"data_key"`
	S3URI     string `json:"s3_uri"`
	LocalPath string `json:"local_path"`
}

// Reproduction is how to run the failed step on this machine on the data it failed on.
type Reproduction struct {
	Inputs []ReproInput `json:"inputs"`
	// Download is one execution.download call per upstream step (its arguments).
	Download []map[string]any `json:"download"`
	// RunLocal is the execution.run_local arguments that run only the failed step on that data.
	RunLocal map[string]any `json:"run_local"`
	Note     string         `json:"note,omitempty"`
}

// ExecutionFailureData is the data of execution.failure.
type ExecutionFailureData struct {
	ExecutionARN  string `json:"execution_arn"`
	PipelineName  string `json:"pipeline_name"`
	Status        string `json:"status"`
	FailureReason string `json:"failure_reason"`
	// FailedStep is the first step that failed (nil when none did: the execution failed before
	// or between steps, FailureReason says why).
	FailedStep *FailedStep `json:"failed_step"`
	// OtherFailedSteps are the steps that failed after it.
	OtherFailedSteps []string `json:"other_failed_steps"`
	// Log is the tail of the failed step's job log.
	Log       *ExecutionLogsData `json:"log,omitempty"`
	Reproduce *Reproduction      `json:"reproduce,omitempty"`
}

func executionFailure(ctx context.Context, a executionFailureArgs) (*envelope.Result[ExecutionFailureData], error) {
	if (a.ExecutionARN == "") == (a.PipelineName == "") {
		return nil, envelope.InvalidInput("give execution_arn or pipeline_name (one of them)").WithDetails("field", "execution_arn")
	}
	if a.ExecutionARN != "" {
		if err := checkExecutionARN(a.ExecutionARN); err != nil {
			return nil, err
		}
	} else if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err).WithDetails("field", "pipeline_name")
	}
	region, err := regionOfARNArg("execution_arn", a.ExecutionARN, a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	arn := a.ExecutionARN
	if arn == "" {
		list, err := aw.c.List(ctx, a.PipelineName, 50)
		if err != nil {
			return nil, aw.fail(err)
		}
		for _, e := range list {
			if e.Status == smclient.StatusFailed {
				arn = e.ARN
				break
			}
		}
		if arn == "" {
			return nil, aw.fail(envelope.NotFound("none of the last %d executions of %s failed", len(list), a.PipelineName).
				WithRemedy("execution.list shows the executions and their status", "execution.list"))
		}
	}
	ex, err := aw.c.Describe(ctx, arn)
	if err != nil {
		return nil, aw.fail(err)
	}
	steps, err := aw.c.Steps(ctx, arn)
	if err != nil {
		return nil, aw.fail(err)
	}
	data := ExecutionFailureData{ExecutionARN: ex.ARN, PipelineName: ex.PipelineName, Status: ex.Status, FailureReason: ex.FailureReason, OtherFailedSteps: []string{}}
	var failed *smclient.StepExecution
	for i, s := range steps {
		if s.Status != smclient.StatusFailed {
			continue
		}
		if failed == nil {
			failed = &steps[i]
		} else {
			data.OtherFailedSteps = append(data.OtherFailedSteps, s.Name)
		}
	}
	var warnings []string
	if ex.Status != smclient.StatusFailed {
		warnings = append(warnings, fmt.Sprintf("the execution is %s, not Failed", ex.Status))
	}
	next := []envelope.NextStep{}
	if failed == nil {
		r := done(aw, envelope.Success(data)).WithWarnings(warnings...)
		return r.WithNextSteps(envelope.NextStep{Tool: "execution.steps", When: "you want every step's status", Why: "no step failed", ArgsHint: map[string]any{"execution_arn": arn}}), nil
	}
	data.FailedStep = &FailedStep{StepName: failed.Name, Kind: failed.Kind, JobName: failed.JobName, JobARN: failed.JobARN, FailureReason: failed.FailureReason,
		AttemptCount: failed.AttemptCount, Logs: failed.Logs}
	lines := a.LogLines
	if lines == 0 {
		lines = 30
	}
	log, err := readStepLog(ctx, aw.c, arn, *failed, smclient.LogQuery{Lines: lines}, answerBudget/2)
	if err != nil {
		warnings = append(warnings, "the step's log could not be read: "+err.Error())
	} else {
		data.Log = log
	}
	repro, rwarn := reproduction(ctx, aw.c, a, arn, steps, *failed)
	data.Reproduce = repro
	warnings = append(warnings, rwarn...)
	next = append(next, envelope.NextStep{Tool: "execution.logs", When: "you want more of the log, or only its errors", Why: "pages and filters the step's log",
		ArgsHint: map[string]any{"execution_arn": arn, "step_name": failed.Name, "filter": "?Error ?Traceback ?Exception"}})
	if repro != nil && len(repro.Download) > 0 {
		next = append(next, envelope.NextStep{Tool: "execution.download", When: "you want to reproduce the failure locally", Why: "fetches the data the step read", ArgsHint: repro.Download[0]})
	}
	if repro != nil && repro.RunLocal != nil {
		next = append(next, envelope.NextStep{Tool: "execution.run_local", When: "the step's data is downloaded", Why: "runs only the failed step on it, to see the failure and test a fix", ArgsHint: repro.RunLocal})
	}
	fixHint := map[string]any{"upsert": true}
	for _, k := range []string{"dag_file", "config_file"} {
		if repro != nil && repro.RunLocal[k] != nil {
			fixHint[k] = repro.RunLocal[k]
		}
	}
	next = append(next,
		envelope.NextStep{Tool: "compile.dag", When: "the fix works locally", Why: "upserts the fixed pipeline", ArgsHint: fixHint},
		envelope.NextStep{Tool: "execution.retry", When: "the fix is deployed (or the failure was transient)", Why: "re-runs the failed steps, reusing what succeeded", ArgsHint: map[string]any{"execution_arn": arn}})
	return done(aw, envelope.Success(data)).WithWarnings(warnings...).WithNextSteps(next...), nil
}

// reproduction works out the data the failed step read (each upstream step's job outputs in the
// failed execution) and the calls that fetch it and run the step alone on it.
func reproduction(ctx context.Context, c *smclient.Client, a executionFailureArgs, arn string, steps []smclient.StepExecution, failed smclient.StepExecution) (*Reproduction, []string) {
	var warnings []string
	work := a.WorkDir
	if work == "" {
		work = "runs/repro"
	}
	work = path.Join(work, executionID(arn))
	r := &Reproduction{Inputs: []ReproInput{}, Download: []map[string]any{}}
	def, err := c.ExecutionDefinition(ctx, arn)
	if err != nil {
		return nil, []string{"the definition the execution ran could not be read, so its inputs are not named: " + err.Error()}
	}
	g, err := sagemaker.StepGraph(def)
	if err != nil {
		return nil, []string{err.Error()}
	}
	byName := map[string]smclient.StepExecution{}
	for _, s := range steps {
		byName[s.Name] = s
	}
	data := map[string]string{}
	for _, up := range g.Deps[failed.Name] {
		s, ok := byName[up]
		if !ok || !slices.Contains(smclient.JobKinds, s.Kind) {
			continue // no job data (a Condition, a Model step): nothing to fetch
		}
		jio, err := c.JobIO(ctx, s.Kind, s.JobName)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("the outputs of %s could not be read: %v", up, err))
			continue
		}
		if len(jio.Outputs) == 0 {
			continue
		}
		for _, o := range jio.Outputs {
			local := path.Join(work, up, o.Name)
			r.Inputs = append(r.Inputs, ReproInput{DataKey: up + "." + o.Name, S3URI: o.S3URI, LocalPath: local})
			data[up+"."+o.Name] = local
		}
		r.Download = append(r.Download, map[string]any{"execution_arn": arn, "step_name": up, "work_dir": work})
	}
	run := map[string]any{"work_dir": path.Join(work, "run"), "steps": []string{failed.Name}}
	if len(data) > 0 {
		run["data"] = data
	}
	var dagArg map[string]any
	if len(a.DAG) > 0 {
		dagArg = a.DAG
	}
	dagHint(run, dagArg, a.DAGFile, a.DagID)
	if a.ConfigFile != "" {
		run["config_file"] = a.ConfigFile
	}
	if run["config_file"] == nil || !dagGiven(dagArg, a.DAGFile, a.DagID) {
		r.Note = "give dag_file (or dag or dag_id) and config_file of the pipeline to complete run_local's arguments"
	}
	if ex, err := c.Describe(ctx, arn); err == nil && len(ex.Parameters) > 0 {
		run["parameters"] = ex.Parameters
	}
	r.RunLocal = run
	return r, warnings
}

// executionID is the last segment of an execution ARN.
func executionID(arn string) string {
	return arn[strings.LastIndexByte(arn, '/')+1:]
}

// --- execution.download ---

type executionDownloadArgs struct {
	executionARNArgs
	StepName string   `json:"step_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"The step whose job's data to download (a training, processing or transform step)."`
	What     string   `json:"what,omitempty" jsonschema:"enum=outputs,enum=inputs,default=outputs" jsonschema_description:"The job's outputs (what later steps read) or its inputs."`
	Names    []string `json:"names,omitempty" jsonschema_description:"Only these outputs (or input channels). Default: all."`
	WorkDir  string   `json:"work_dir" jsonschema:"required,minLength=1,maxLength=4096" jsonschema_description:"Directory to download into: <work_dir>/<step>/<name>/ (confined to the project root)."`
	MaxBytes int64    `json:"max_bytes,omitempty" jsonschema:"minimum=1,maximum=21474836480,default=1073741824" jsonschema_description:"Refuse before downloading anything when one output holds more than this many bytes."`
}

// DownloadedData is one output (or input) a download fetched.
type DownloadedData struct {
	Name      string   `json:"name"`
	DataKey   string   `json:"data_key"`
	S3URI     string   `json:"s3_uri"`
	LocalPath string   `json:"local_path"`
	Files     int      `json:"files"`
	Bytes     int64    `json:"bytes"`
	Sample    []string `json:"sample"` // the first few files, relative to local_path
}

// ExecutionDownloadData is the data of execution.download: what was fetched, and the data mapping
// execution.run_local takes for it.
type ExecutionDownloadData struct {
	ExecutionARN string            `json:"execution_arn"`
	StepName     string            `json:"step_name"`
	JobName      string            `json:"job_name"`
	What         string            `json:"what"`
	Downloaded   []DownloadedData  `json:"downloaded"`
	Data         map[string]string `json:"data"`
}

func executionDownload(ctx context.Context, a executionDownloadArgs) (*envelope.Result[ExecutionDownloadData], error) {
	if strings.TrimSpace(a.WorkDir) == "" {
		return nil, envelope.InvalidInput("work_dir must be a non-empty path").WithDetails("field", "work_dir")
	}
	root, err := registry.ResolveWritePath(ctx, "work_dir", a.WorkDir)
	if err != nil {
		return nil, err
	}
	what := a.What
	if what == "" {
		what = "outputs"
	}
	limit := a.MaxBytes
	if limit == 0 {
		limit = 1 << 30
	}
	steps, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) ([]smclient.StepExecution, error) { return c.Steps(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	step, err := pickStep(steps, a.StepName)
	if err != nil {
		return nil, aw.fail(err)
	}
	if !slices.Contains(smclient.JobKinds, step.Kind) {
		return nil, aw.fail(envelope.InvalidInput("step %s (%s) runs no training, processing or transform job whose data could be downloaded", step.Name, orNone(step.Kind)).WithDetails("field", "step_name"))
	}
	jio, err := aw.c.JobIO(ctx, step.Kind, step.JobName)
	if err != nil {
		return nil, aw.fail(err)
	}
	chans := jio.Outputs
	if what == "inputs" {
		chans = jio.Inputs
	}
	var avail []string
	for _, ch := range chans {
		avail = append(avail, ch.Name)
	}
	for _, n := range a.Names {
		if !slices.Contains(avail, n) {
			return nil, aw.fail(envelope.InvalidInput("step %s has no %s named %q (it has %s)", step.Name, strings.TrimSuffix(what, "s"), n, strings.Join(avail, ", ")).WithDetails("field", "names", "available", nonNilList(avail)))
		}
	}
	fsys := safefs.From(ctx)
	data := ExecutionDownloadData{ExecutionARN: a.ExecutionARN, StepName: step.Name, JobName: step.JobName, What: what, Downloaded: []DownloadedData{}, Data: map[string]string{}}
	for _, ch := range chans {
		if len(a.Names) > 0 && !slices.Contains(a.Names, ch.Name) {
			continue
		}
		dir := filepath.Join(root, step.Name, ch.Name)
		d := DownloadedData{Name: ch.Name, DataKey: step.Name + "." + ch.Name, S3URI: ch.S3URI, LocalPath: filepath.Join(a.WorkDir, step.Name, ch.Name), Sample: []string{}}
		objs, err := aw.c.Download(ctx, ch.S3URI, limit, func(o smclient.S3Object, body io.Reader) error {
			rel := path.Clean(o.Rel)
			if rel == "." || strings.HasPrefix(rel, "../") || rel == ".." || path.IsAbs(rel) {
				return envelope.Errorf(envelope.CodeAWSError, "object %s has a key that leads outside %s: not written", o.Key, ch.S3URI)
			}
			return fsys.WriteFrom(filepath.Join(dir, filepath.FromSlash(rel)), body, 0o644)
		})
		if err != nil {
			return nil, aw.fail(err)
		}
		for _, o := range objs {
			d.Files++
			d.Bytes += o.Size
			if len(d.Sample) < 5 {
				d.Sample = append(d.Sample, o.Rel)
			}
		}
		data.Downloaded = append(data.Downloaded, d)
		data.Data[d.DataKey] = d.LocalPath
	}
	return done(aw, envelope.Success(data)).WithNextSteps(envelope.NextStep{Tool: "execution.run_local", When: "you want to run the step that reads this data",
		Why: "give data the mapping in data.data, and steps the step to run", ArgsHint: map[string]any{"data": data.Data}}), nil
}

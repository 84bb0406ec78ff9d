package localrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/proc"
	"github.com/cursus-go/cursus/internal/safefs"
)

// Step statuses.
const (
	StatusSucceeded   = "succeeded"
	StatusFailed      = "failed"
	StatusSkipped     = "skipped"
	StatusSubstituted = "substituted"
	// StatusRunning is only ever an Event's status: the step started.
	StatusRunning = "running"
)

// Defaults of Options.
const (
	DefaultStepTimeout = time.Hour
	DefaultMemoryBytes = 8 << 30
)

// logTailBytes is how much of a step's log its result carries; maxLog is
// how much of it is kept (the newest bytes) in its log file.
const (
	logTailBytes = 3000
	maxLog       = 4 << 20
)

// managedDataSteps are the catalog step types whose job is a managed data
// service no local machine can run: their outputs come from Options.Data.
var managedDataSteps = map[catalog.StepType]string{
	"CradleDataLoading":   "a managed data-loading service (Cradle)",
	"AthenaDataLoading":   "Amazon Athena",
	"RedshiftDataLoading": "Amazon Redshift",
}

// modelCallSteps are the catalog step types whose job calls a hosted
// model no local run reaches: their job runs, with the model's answers
// replayed from data (the key <step>.model_responses, mounted at
// ModelResponsesPath) instead of the call.
var modelCallSteps = map[catalog.StepType]string{
	"BedrockProcessing":      "Amazon Bedrock (Converse API)",
	"BedrockBatchProcessing": "Amazon Bedrock (batch inference jobs)",
}

// ModelResponsesKey is the data key suffix of a model-calling step's
// recorded answers: data["<SageMaker step name>.model_responses"].
const ModelResponsesKey = "model_responses"

// ModelResponsesPath is where a model-calling step's job finds recorded
// answers (its step file's optional model_responses input).
const ModelResponsesPath = "/opt/ml/processing/input/model_responses"

// CallsModel reports whether a catalog step type's job calls a hosted
// model, so that a local run replays recorded answers instead.
func CallsModel(stepType catalog.StepType) bool {
	_, ok := modelCallSteps[stepType]
	return ok
}

// IsManagedDataStep reports whether a catalog step type loads its data
// through a managed service, so that a local run substitutes it.
func IsManagedDataStep(stepType catalog.StepType) bool {
	_, ok := managedDataSteps[stepType]
	return ok
}

// Options are the settings of a local run.
type Options struct {
	// WorkDir is where the run directory (<WorkDir>/<execution id>) is
	// made; required.
	WorkDir string
	// Data maps an S3 URI (the object or prefix the definition reads) or a
	// step output ("<SageMaker step name>.<output name>") to a local file
	// or directory, which must exist. A step whose every output is given,
	// and a step that loads through a managed data service, is not run:
	// its outputs are taken from here and it is reported substituted.
	// Relative paths are taken from the current directory.
	Data map[string]string
	// Generate lists data keys (as in Data) the run fills with generated
	// data instead: the catalog's DummyDataGeneration script writes a CSV
	// with the columns the definition's trainer reads (its label_name,
	// tab_field_list, cat_field_list and id_name) and its number of
	// classes, before the first step. Report.Generated says what it made.
	Generate []string
	// Parameters gives values to pipeline parameters (text, converted to
	// the parameter's type); the others take their defaults.
	Parameters map[string]string
	// Python is the interpreter; "" finds one (FindPython).
	Python string
	// Sandbox forces a sandbox; "" detects one (DetectSandbox).
	Sandbox Sandbox
	// StepTimeout bounds each step (DefaultStepTimeout when 0); a step's
	// own StoppingCondition wins when shorter.
	StepTimeout time.Duration
	// MemoryBytes is each job's address-space limit (DefaultMemoryBytes
	// when 0).
	MemoryBytes int64
	// Steps, when given, runs only these steps (by their SageMaker step names): the steps they
	// depend on give their outputs from Data, and every other step does not run (see
	// Report.NotSelected).
	Steps []string
	// ExecutionID names the run ("" makes one: local-<time>-<random>).
	ExecutionID string
	// Progress, when set, is called as each step starts and ends.
	Progress func(Event)
	// FS reaches WorkDir, Data and the project's code (nil: the trusted
	// file-access layer). A confined FS makes the run directory (a fresh
	// directory, created exclusively) and reads the data and code only
	// within its roots; the run's report and logs are written through it.
	// The scripts the run executes are confined by the sandbox, not by FS.
	FS *safefs.FS

	// tune switches the runner's speed settings (jobenv.go); benchmarks
	// use it to measure each.
	tune tuning
}

// Event is a progress report: a step started (StatusRunning) or ended. A
// step that never starts (skipped, cancelled before it started) has only
// its end. Steps that run at the same time interleave their events; the
// callback is never called twice at once.
type Event struct {
	Step     string  `json:"step"`
	Type     string  `json:"type"`
	Index    int     `json:"index"` // 1-based, in run order
	Total    int     `json:"total"`
	Status   string  `json:"status"`
	Duration float64 `json:"duration_seconds,omitempty"`
	Error    string  `json:"error,omitempty"`
}

// StepResult is what one step did.
type StepResult struct {
	Name string `json:"name"`
	Type string `json:"type"` // the definition's step type (Processing, Training, ...)
	// StepType is the catalog step type the step was compiled from.
	StepType catalog.StepType `json:"step_type,omitempty"`
	Status   string           `json:"status"`
	// DurationSeconds is the whole step: staging, the job, packing.
	DurationSeconds float64 `json:"duration_seconds"`
	// JobSeconds is the time its container process ran.
	JobSeconds float64 `json:"job_seconds,omitempty"`
	// Outputs maps each output (a processing output name, model_artifacts,
	// transform_output, model_data, sample_payload) to its absolute local
	// path.
	Outputs  map[string]string `json:"outputs"`
	Command  []string          `json:"command,omitempty"` // the container command line
	ExitCode *int              `json:"exit_code,omitempty"`
	Error    string            `json:"error,omitempty"`
	// Checks lists what was verified (Model and RegisterModel steps) or
	// evaluated (a Condition's conditions).
	Checks []string `json:"checks,omitempty"`
	// Outcome is a Condition step's: whether its conditions held.
	Outcome  *bool    `json:"outcome,omitempty"`
	LogTail  string   `json:"log_tail,omitempty"`
	LogFile  string   `json:"log_file,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Failure names the first step that failed. FailStep says it is a Fail
// step: a quality gate's condition did not hold and Error is its message.
type Failure struct {
	Step     string `json:"step"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Error    string `json:"error"`
	LogTail  string `json:"log_tail,omitempty"`
	FailStep bool   `json:"fail_step,omitempty"`
}

// Report is the outcome of a local run.
type Report struct {
	PipelineName string `json:"pipeline_name"`
	ExecutionID  string `json:"execution_id"`
	RunDir       string `json:"run_dir"`
	// Sandbox is the sandbox the jobs ran in; SandboxNote says why the
	// fallback was used.
	Sandbox     Sandbox      `json:"sandbox"`
	SandboxNote string       `json:"sandbox_note,omitempty"`
	Python      string       `json:"python"`
	Succeeded   bool         `json:"succeeded"`
	Steps       []StepResult `json:"steps"`
	Failed      *Failure     `json:"failed,omitempty"`
	// Branches are the decisions of the Condition steps, in run order.
	Branches   []BranchTaken     `json:"branches,omitempty"`
	Parameters map[string]string `json:"parameters"`
	// DurationSeconds is the whole run; JobSeconds the sum of the steps'
	// container processes; OverheadSeconds the rest (the runner's own
	// work: compiling aside, staging, packing, checking, sandbox set-up).
	DurationSeconds float64  `json:"duration_seconds"`
	JobSeconds      float64  `json:"job_seconds"`
	OverheadSeconds float64  `json:"overhead_seconds"`
	Warnings        []string `json:"warnings,omitempty"`
	// Generated lists the data the run generated (Options.Generate).
	Generated []Generated `json:"generated,omitempty"`
	// Plots lists the images the steps wrote into their outputs (ROC and
	// precision-recall curves, reliability diagrams), in step order.
	Plots []Plot `json:"plots,omitempty"`
	// Cancelled is set when the run was cancelled: the steps that were
	// running then (the report's steps say how each ended).
	Cancelled *Cancellation `json:"cancelled,omitempty"`
	// NotSelected are the steps a run of selected steps (Options.Steps) did not run.
	NotSelected []string `json:"not_selected,omitempty"`
}

// InputError is an option the run cannot use; Field names it (work_dir,
// data.<key>, parameters.<name>, sandbox).
type InputError struct {
	Field   string
	Problem string
}

// Error names the field and the problem.
func (e *InputError) Error() string { return e.Field + ": " + e.Problem }

// Kind implements errkind.Kinded: InvalidInput.
func (e *InputError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the field.
func (e *InputError) Details() map[string]any { return map[string]any{"field": e.Field} }

// DefinitionError is a definition the runner cannot order or read.
type DefinitionError struct{ Problem string }

// Error says why the definition cannot run.
func (e *DefinitionError) Error() string { return "the definition cannot run: " + e.Problem }

// Kind implements errkind.Kinded: InvalidInput (the definition given).
func (e *DefinitionError) Kind() errkind.Kind { return errkind.InvalidInput }

type defStep struct {
	// guard is the Condition step and branch a step nested in IfSteps or
	// ElseSteps runs under (nil at the top level).
	guard         *guard         `json:"-"`
	Name          string         `json:"Name"`
	Type          string         `json:"Type"`
	Arguments     map[string]any `json:"Arguments"`
	DependsOn     []string       `json:"DependsOn"`
	PropertyFiles []struct {
		PropertyFileName string `json:"PropertyFileName"`
		OutputName       string `json:"OutputName"`
		FilePath         string `json:"FilePath"`
	} `json:"PropertyFiles"`
	// The step-level keys of the kinds that do not run here (kinds.go).
	FunctionArn      string `json:"FunctionArn"`
	SqsQueueUrl      string `json:"SqsQueueUrl"`
	CheckType        string `json:"CheckType"`
	OutputParameters []struct {
		OutputName string `json:"OutputName"`
		OutputType string `json:"OutputType"`
	} `json:"OutputParameters"`
}

type defParam struct {
	Name         string `json:"Name"`
	Type         string `json:"Type"`
	DefaultValue any    `json:"DefaultValue"`
}

// Run runs a compiled pipeline on this machine: the steps of its
// definition in dependency order, each job in the sandbox with its
// container layout, the data flowing through a local stand-in for S3 as
// the definition's property references say. It returns a report of every
// step; a step that fails stops the steps that depend on it (skipped),
// and the report names it. Steps that do not depend on each other run at
// the same time (schedule.go). The error is for a run that cannot start
// (*InputError, *DefinitionError, ErrNoPython, the manifest's
// *compiler.FileError) or was cancelled: a *CancelledError (wrapping the
// context's error) with the report, written to <run>/report.json, of
// what had run.
func Run(ctx context.Context, res *compiler.Result, opts Options) (*Report, error) {
	began := time.Now()
	if res == nil || res.Definition == nil {
		return nil, &DefinitionError{Problem: "no definition"}
	}
	if strings.TrimSpace(opts.WorkDir) == "" {
		return nil, &InputError{Field: "work_dir", Problem: "a work directory is needed"}
	}
	r := &run{opts: opts, res: res, models: map[string]*modelInfo{}}
	if err := r.load(); err != nil {
		return nil, err
	}
	if err := r.loadSelection(); err != nil {
		return nil, err
	}
	if err := r.setup(); err != nil {
		return nil, err
	}
	if err := r.generate(ctx); err != nil {
		os.RemoveAll(r.dir)
		return nil, err
	}
	if err := r.schedule(ctx); err != nil {
		return r.cancelled(began, err)
	}
	rep := r.report
	rep.Succeeded = rep.Failed == nil
	for _, s := range rep.Steps {
		if s.Status == StatusSkipped {
			rep.Succeeded = false
		}
	}
	r.finish(began)
	return rep, nil
}

// finish fills the report's times and writes it to <run>/report.json.
func (r *run) finish(began time.Time) {
	rep := r.report
	rep.DurationSeconds = seconds(time.Since(began))
	rep.JobSeconds = seconds(r.jobTime)
	rep.OverheadSeconds = seconds(max(0, time.Since(began)-r.busy))
	_ = r.opts.FS.WriteJSON(filepath.Join(r.dir, "report.json"), rep)
}

func seconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

type run struct {
	opts     Options
	res      *compiler.Result
	steps    []*defStep
	order    []*defStep
	params   []defParam
	stepType map[string]catalog.StepType // SageMaker step name -> catalog step type
	deps     map[string][]string
	outputs  map[string][]string        // step -> its output names
	consumed map[string]map[string]bool // step -> outputs other steps read
	dataOut  map[string]map[string]hostPath
	// responses maps a model-calling step to the recorded answers data
	// gives for it (<step>.model_responses).
	responses map[string]hostPath
	dir       string
	ex        *executor
	st        *store
	ev        *evaluator
	models    map[string]*modelInfo // ModelName -> the model a Model step made
	report    *Report
	jobTime   time.Duration
	// mu guards the run's state while steps run (schedule.go); busy is
	// the time at least one job ran, jobsRunning and busySince count it.
	mu          sync.Mutex
	jobsRunning int
	busySince   time.Time
	busy        time.Duration
	byName      map[string]*defStep
	// pyMinor is the interpreter's minor version (3.<pyMinor>), 0 when
	// unknown; mplCache the run's matplotlib cache directory.
	pyMinor  int
	mplCache string
	// ended is the Fail step that ended the execution ("" while it runs).
	ended string
	// sel are the selected steps of a run of some steps (nil: all run),
	// selUpstream the steps they depend on and do not select, selReads
	// the outputs the selected steps read (see select.go).
	sel, selUpstream map[string]bool
	selReads         map[string]map[string]bool
}

func (r *run) emit(e Event) {
	if r.opts.Progress != nil {
		r.opts.Progress(e)
	}
}

// load reads the definition (as JSON, the form SageMaker gets), orders
// its steps and checks the options against it.
func (r *run) load() error {
	b, err := r.res.Definition.Marshal(false)
	if err != nil {
		return err
	}
	var d struct {
		Parameters []defParam `json:"Parameters"`
		Steps      []*defStep `json:"Steps"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return &DefinitionError{Problem: err.Error()}
	}
	if r.steps, err = flattenSteps(d.Steps, nil); err != nil {
		return err
	}
	r.params = d.Parameters
	if len(r.steps) == 0 {
		return &DefinitionError{Problem: "it has no steps"}
	}
	r.byName = make(map[string]*defStep, len(r.steps))
	for _, s := range r.steps {
		r.byName[s.Name] = s
	}
	r.stepType = map[string]catalog.StepType{}
	if r.res.Report != nil {
		for _, n := range r.res.Report.Nodes {
			r.stepType[string(n.StepName)] = n.StepType // the definition's steps are read back from JSON
		}
	}
	states := map[string]*stepState{}
	for _, s := range r.steps {
		if _, dup := states[s.Name]; dup {
			return &DefinitionError{Problem: "two steps are named " + s.Name}
		}
		states[s.Name] = &stepState{name: s.Name, props: map[string]any{}, propFiles: map[string]hostPath{}}
	}
	r.ev = &evaluator{steps: states}
	r.deps = map[string][]string{}
	r.outputs = map[string][]string{}
	r.consumed = map[string]map[string]bool{}
	for _, s := range r.steps {
		set := map[string]bool{}
		for _, p := range s.DependsOn {
			if _, ok := states[p]; !ok {
				return &DefinitionError{Problem: fmt.Sprintf("step %s depends on %s, which is not a step", s.Name, p)}
			}
			set[p] = true
		}
		args := ownArguments(s)
		refs(args, states, set)
		if s.guard != nil {
			set[s.guard.condition] = true // a branch runs after its condition
		}
		delete(set, s.Name)
		r.deps[s.Name] = mapkeys.Sorted(set)
		r.outputs[s.Name] = outputNames(s)
		r.consumedOutputs(args)
	}
	if r.order, err = r.topo(); err != nil {
		return err
	}
	return nil
}

// topo orders the steps: dependencies first, definition order otherwise.
func (r *run) topo() ([]*defStep, error) {
	done := map[string]bool{}
	var out []*defStep
	for len(out) < len(r.steps) {
		progressed := false
		for _, s := range r.steps {
			if done[s.Name] {
				continue
			}
			ready := true
			for _, p := range r.deps[s.Name] {
				ready = ready && done[p]
			}
			if ready {
				done[s.Name] = true
				out = append(out, s)
				progressed = true
			}
		}
		if !progressed {
			var left []string
			for _, s := range r.steps {
				if !done[s.Name] {
					left = append(left, s.Name)
				}
			}
			return nil, &DefinitionError{Problem: "its steps depend on each other in a cycle: " + strings.Join(left, ", ")}
		}
	}
	return out, nil
}

// outputNames are the names a step's outputs go by in data keys and
// results.
func outputNames(s *defStep) []string {
	if k, ok := localKinds[s.Type]; ok && k.outputs != nil {
		return k.outputs(s)
	}
	return nil
}

// Output names of steps other than processing steps.
const (
	outModelArtifacts = "model_artifacts"
	outTransform      = "transform_output"
	outModelData      = "model_data"
	outSamplePayload  = "sample_payload"
)

// consumedOutputs records which outputs of which steps a step reads (its
// arguments v): a Get of a property of a step reads the output its kind
// says it does (a property file's Get, in a Std:JsonGet, among them).
func (r *run) consumedOutputs(v any) {
	switch t := v.(type) {
	case map[string]any:
		if g, ok := t["Get"].(string); ok && len(t) == 1 {
			rest, ok := strings.CutPrefix(g, "Steps.")
			if !ok {
				return
			}
			name, prop, ok := cutStep(rest, r.ev.steps)
			if !ok {
				return
			}
			s := r.byName[name]
			k := localKinds[s.Type]
			if k.consumed == nil {
				return
			}
			if o := k.consumed(s, normProp(prop)); o != "" {
				if r.consumed[name] == nil {
					r.consumed[name] = map[string]bool{}
				}
				r.consumed[name][o] = true
			}
			return
		}
		for _, x := range t {
			r.consumedOutputs(x)
		}
	case []any:
		for _, x := range t {
			r.consumedOutputs(x)
		}
	}
}

// setup makes the run directory, the store (with the code of the
// manifest and the data bindings), the parameters and the sandbox.
func (r *run) setup() error {
	id := r.opts.ExecutionID
	if id == "" {
		var b [3]byte
		_, _ = rand.Read(b[:])
		id = "local-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
	}
	if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return &InputError{Field: "execution_id", Problem: fmt.Sprintf("%q is not a directory name", id)}
	}
	params, noDef, err := r.parameters()
	if err != nil {
		return err
	}
	r.ev.params, r.ev.noDef = params, noDef

	fsys := r.opts.FS
	workDir, err := fsys.Abs(r.opts.WorkDir)
	if err != nil {
		return &InputError{Field: "work_dir", Problem: err.Error()}
	}
	r.dir = filepath.Join(workDir, id)
	if fsys.Exists(r.dir) {
		return &InputError{Field: "execution_id", Problem: fmt.Sprintf("%s already exists: a run never reuses a run directory", r.dir)}
	}
	switch r.opts.Sandbox {
	case "", Bubblewrap, PathRewrite:
	default:
		return &InputError{Field: "sandbox", Problem: fmt.Sprintf("%q: want %s or %s", r.opts.Sandbox, Bubblewrap, PathRewrite)}
	}
	r.st = &store{root: filepath.Join(r.dir, "s3")}
	r.ev.s3Path = func(uri string) (hostPath, error) {
		p, _, err := r.st.resolve(uri)
		return p, err
	}
	if err := r.bindData(); err != nil {
		return err
	}
	if err := r.checkGenerate(); err != nil {
		return err
	}
	if err := fsys.MkdirAll(workDir, 0o755); err != nil {
		return &InputError{Field: "work_dir", Problem: err.Error()}
	}
	if err := fsys.Mkdir(r.dir, 0o755); err != nil {
		return &InputError{Field: "work_dir", Problem: err.Error()}
	}
	if err := fsys.Mkdir(filepath.Join(r.dir, "steps"), 0o755); err != nil {
		return &InputError{Field: "work_dir", Problem: err.Error()}
	}
	if err := r.prepare(id, params); err != nil {
		os.RemoveAll(r.dir)
		return err
	}
	return nil
}

// prepare sets up the sandbox and puts the manifest's code in the store,
// materialized as it would be uploaded.
func (r *run) prepare(id string, params map[string]any) error {
	runner, err := NewRunner(filepath.Join(r.dir, ".cursus"), r.opts.Sandbox, r.opts.Python)
	if err != nil {
		return err
	}
	if err := r.checkModules(runner.Python()); err != nil {
		return err
	}
	r.ex = runner.ex
	kind, note := runner.Sandbox()
	r.pyMinor = pythonMinor(pythonVersion(runner.Python()))
	r.mplCache = filepath.Join(r.dir, ".cursus", "matplotlib")
	if err := os.MkdirAll(r.mplCache, 0o755); err != nil {
		return err
	}
	r.ev.exec = r.executionVars(id)
	r.report = &Report{PipelineName: r.res.PipelineName, ExecutionID: id, RunDir: r.dir, Sandbox: kind, SandboxNote: note,
		Python: runner.Python(), Steps: []StepResult{}, Parameters: map[string]string{}}
	for _, n := range mapkeys.Sorted(params) {
		r.report.Parameters[n] = text(params[n])
	}
	build := filepath.Join(r.dir, ".cursus", "code")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return err
	}
	items, err := r.res.Manifest.Materialize(r.opts.FS, build)
	if err != nil {
		return fmt.Errorf("upload manifest: %w", err)
	}
	for _, it := range items {
		if err := r.st.put(it.S3URI, it.LocalPath); err != nil {
			return fmt.Errorf("code %s: %w", it.S3URI, err)
		}
	}
	return nil
}

// parameters resolves every declared parameter: the value given, else
// the default. A given value for an undeclared parameter is an error.
func (r *run) parameters() (map[string]any, map[string]bool, error) {
	vals, noDef := map[string]any{}, map[string]bool{}
	declared := map[string]defParam{}
	for _, p := range r.params {
		declared[p.Name] = p
		if p.DefaultValue != nil {
			vals[p.Name] = p.DefaultValue
		} else {
			noDef[p.Name] = true
		}
	}
	for _, n := range mapkeys.Sorted(r.opts.Parameters) {
		p, ok := declared[n]
		if !ok {
			return nil, nil, &InputError{Field: "parameters." + n, Problem: fmt.Sprintf("the definition declares no such parameter (it has: %s)", strings.Join(mapkeys.Sorted(declared), ", "))}
		}
		v, err := convertParam(p.Type, r.opts.Parameters[n])
		if err != nil {
			return nil, nil, &InputError{Field: "parameters." + n, Problem: err.Error()}
		}
		vals[n] = v
		delete(noDef, n)
	}
	return vals, noDef, nil
}

func convertParam(typ, s string) (any, error) {
	switch typ {
	case "Integer":
		var n int64
		if _, err := fmt.Sscan(s, &n); err != nil {
			return nil, fmt.Errorf("%q is not an Integer", s)
		}
		return float64(n), nil
	case "Float":
		var f float64
		if _, err := fmt.Sscan(s, &f); err != nil {
			return nil, fmt.Errorf("%q is not a Float", s)
		}
		return f, nil
	case "Boolean":
		switch strings.ToLower(s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a Boolean (true or false)", s)
	}
	return s, nil
}

func (r *run) executionVars(id string) map[string]string {
	name := r.res.PipelineName
	if name == "" {
		name = "local-pipeline"
	}
	now := time.Now().UTC().Format(time.RFC3339)
	arn := "arn:aws:sagemaker:local:000000000000:pipeline/" + strings.ToLower(name)
	return map[string]string{
		"PipelineName":         name,
		"PipelineArn":          arn,
		"PipelineExecutionId":  id,
		"PipelineExecutionArn": arn + "/execution/" + id,
		"StartDateTime":        now,
		"CurrentDateTime":      now,
	}
}

// bindData checks the data keys and binds them: an S3 URI resolves below
// its path; a step output is kept for substituting its step.
func (r *run) bindData() error {
	r.dataOut = map[string]map[string]hostPath{}
	r.responses = map[string]hostPath{}
	states := r.ev.steps
	for _, k := range mapkeys.Sorted(r.opts.Data) {
		field := "data." + k
		p := r.opts.Data[k]
		if strings.TrimSpace(p) == "" {
			return &InputError{Field: field, Problem: "the local path is blank"}
		}
		abs, err := r.opts.FS.Abs(p)
		if err != nil {
			return &InputError{Field: field, Problem: err.Error()}
		}
		if !r.opts.FS.Exists(abs) {
			return &InputError{Field: field, Problem: fmt.Sprintf("%s does not exist", p)}
		}
		if strings.HasPrefix(k, "s3://") {
			if err := r.st.bind(k, trusted(abs), k); err != nil {
				return &InputError{Field: field, Problem: err.Error()}
			}
			continue
		}
		step, out, ok := cutStep(k, states)
		if !ok {
			return &InputError{Field: field, Problem: fmt.Sprintf("a data key is an s3:// URI or <step>.<output>; no step is named %q (steps: %s)", strings.Split(k, ".")[0], strings.Join(mapkeys.Sorted(states), ", "))}
		}
		if out == ModelResponsesKey && !slices.Contains(r.outputs[step], out) {
			if !CallsModel(r.stepType[step]) {
				return &InputError{Field: field, Problem: fmt.Sprintf("step %s calls no hosted model: model_responses is for BedrockProcessing and BedrockBatchProcessing steps", step)}
			}
			r.responses[step] = trusted(abs)
			continue
		}
		if !slices.Contains(r.outputs[step], out) {
			return &InputError{Field: field, Problem: fmt.Sprintf("step %s has no output %s (outputs: %s)", step, out, strings.Join(r.outputs[step], ", "))}
		}
		if r.dataOut[step] == nil {
			r.dataOut[step] = map[string]hostPath{}
		}
		r.dataOut[step][out] = trusted(abs)
	}
	return nil
}

// blocked says why a step cannot run: a step it depends on did not
// succeed (or was not substituted).
func (r *run) blocked(s *defStep) string {
	if r.upstreamOfSelection(s) {
		return "" // it does not run: its outputs come from data
	}
	var bad []string
	for _, p := range r.deps[s.Name] {
		if st := r.ev.steps[p].status; st != StatusSucceeded && st != StatusSubstituted {
			bad = append(bad, fmt.Sprintf("%s (%s)", p, st))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "not run: it depends on " + strings.Join(bad, ", ")
}

// runStep runs one step by its type and fills its result.
func (r *run) runStep(ctx context.Context, s *defStep, sr *StepResult) error {
	state := r.ev.steps[s.Name]
	state.job = jobName(s.Name, r.report.ExecutionID)
	r.ev.current = state
	defer func() { r.ev.current = nil }()
	if why, sub := r.substitute(s); sub {
		return r.substituteStep(s, sr, why)
	}
	err := r.runKind(ctx, s, sr)
	if svc, managed := managedDataSteps[r.stepType[s.Name]]; managed && err != nil && ctx.Err() == nil {
		// Its job reaches a managed service a local run cannot reach
		// (unless it can work without it: synthetic data, an export).
		// The keys of the outputs later steps read; all of them when no
		// step reads any.
		var keys, all []string
		for _, o := range r.outputs[s.Name] {
			k := fmt.Sprintf("%q", s.Name+"."+o)
			all = append(all, k)
			if r.consumed[s.Name][o] {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			keys = all
		}
		return fmt.Errorf("%w; %s loads its data through %s, which a local run may not reach: give its outputs in data (%s)", err, s.Name, svc, strings.Join(keys, ", "))
	}
	return err
}

// runKind runs a step by its definition type.
func (r *run) runKind(ctx context.Context, s *defStep, sr *StepResult) error {
	k, ok := localKinds[s.Type]
	if !ok || k.run == nil {
		return fmt.Errorf("a %s step does not run locally (the local runner runs %s steps)", s.Type, strings.Join(localTypes(), ", "))
	}
	err := k.run(r, ctx, s, sr)
	if err == nil && sr.Status == "" {
		sr.Status = StatusSucceeded
	}
	return err
}

// substitute says whether a step is not run but takes its outputs from
// data, and why: its job is a managed data service and data gives any of
// its outputs, or data gives all of them. (A managed data step data says
// nothing of runs: its script may work without the service, from
// synthetic data or an export.)
func (r *run) substitute(s *defStep) (string, bool) {
	given := r.dataOut[s.Name]
	if r.upstreamOfSelection(s) {
		return s.Name + " is not selected", true
	}
	if svc, ok := managedDataSteps[r.stepType[s.Name]]; ok && (len(given) > 0 || r.outputsBound(s)) {
		return fmt.Sprintf("%s loads its data through %s, which a local run cannot reach", s.Name, svc), true
	}
	if len(given) > 0 && len(given) == len(r.outputs[s.Name]) {
		return "data gives every output of " + s.Name, true
	}
	return "", false
}

// outputsBound reports whether data binds the S3 URI of one of the
// step's outputs (or a prefix of it).
func (r *run) outputsBound(s *defStep) bool {
	for _, o := range r.outputs[s.Name] {
		if uri, err := r.outputURI(s, o); err == nil && uri != "" {
			if p, b, err := r.st.resolve(uri); err == nil && b != nil && p.hasObjects() {
				return true
			}
		}
	}
	return false
}

// substituteStep takes a step's outputs from data: each output by its
// step-output key, else by its S3 URI. An output another step reads must
// be given.
func (r *run) substituteStep(s *defStep, sr *StepResult, why string) error {
	state := r.ev.steps[s.Name]
	var missing []string
	for _, o := range r.outputs[s.Name] {
		uri, err := r.outputURI(s, o)
		if err != nil {
			return err
		}
		local, given := r.dataOut[s.Name][o]
		from := s.Name + "." + o
		if !given && uri != "" {
			if p, b, err := r.st.resolve(uri); err == nil && b != nil && p.hasObjects() {
				local, from, given = p, b.from, true
			}
		}
		if !given {
			if r.reads(s.Name)[o] {
				missing = append(missing, o)
			} else {
				sr.Warnings = append(sr.Warnings, fmt.Sprintf("output %s is not given in data; no step reads it", o))
			}
			continue
		}
		if uri != "" {
			if err := r.st.bind(uri, local, from); err != nil {
				return err
			}
		}
		sr.Outputs[o] = local.String()
		r.setOutputProps(s, state, o, uri, local)
	}
	if len(missing) > 0 {
		keys := make([]string, len(missing))
		for i, o := range missing {
			keys[i] = fmt.Sprintf("%q", s.Name+"."+o)
		}
		return fmt.Errorf("%s; data must give the local path of each output later steps read: add %s to data", why, strings.Join(keys, ", "))
	}
	sr.Status = StatusSubstituted
	sr.Checks = append(sr.Checks, why+"; outputs taken from data")
	return nil
}

// outputURI is where a step's output goes in S3 ("" when the step type
// has no URI for it before it runs).
func (r *run) outputURI(s *defStep, out string) (string, error) {
	if k, ok := localKinds[s.Type]; ok && k.outputURI != nil {
		return k.outputURI(r, s, out)
	}
	return "", nil
}

// setOutputProps records the properties later steps read of an output.
func (r *run) setOutputProps(s *defStep, state *stepState, out, uri string, local hostPath) {
	if k, ok := localKinds[s.Type]; ok && k.setProps != nil {
		k.setProps(s, state, out, uri, local)
	}
}

func objOf(m map[string]any, keys ...string) map[string]any {
	cur := m
	for _, k := range keys {
		next, _ := cur[k].(map[string]any)
		if next == nil {
			return map[string]any{}
		}
		cur = next
	}
	return cur
}

func listOf(m map[string]any, keys ...string) []any {
	if len(keys) == 0 {
		return nil
	}
	l, _ := objOf(m, keys[:len(keys)-1]...)[keys[len(keys)-1]].([]any)
	return l
}

// jobName is the name a step's job runs as: lower-case step name and the
// execution id's tail, at most 63 characters, like SageMaker's
// pipelines-<id>-<step> names.
func jobName(step, exec string) string {
	clean := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			return c
		case c >= 'A' && c <= 'Z':
			return c + 'a' - 'A'
		}
		return '-'
	}, step)
	tail := exec
	if i := strings.LastIndexByte(exec, '-'); i >= 0 {
		tail = exec[i+1:]
	}
	n := strings.Trim(clean, "-") + "-" + tail
	if len(n) > 63 {
		n = strings.Trim(n[len(n)-63:], "-")
	}
	return n
}

// stepDir is a step's private directory under the run.
func (r *run) stepDir(s *defStep) string {
	return filepath.Join(r.dir, "steps", safeName(s.Name))
}

func safeName(n string) string {
	return strings.Map(func(c rune) rune {
		if c == '/' || c == '\\' || c == 0 {
			return '_'
		}
		return c
	}, n)
}

// runJob runs a job for a step, keeps its log and fills the result's
// command, exit code, log tail and job time.
func (r *run) runJob(ctx context.Context, s *defStep, sr *StepResult, j Job) error {
	j.Scratch = r.stepDir(s)
	if j.MemoryBytes == 0 {
		j.MemoryBytes = r.memory()
	}
	sr.Command = j.Command
	r.speedEnv(&j)
	res, err := r.runProcess(ctx, j)
	if res != nil {
		r.jobTime += res.Duration
		sr.JobSeconds = seconds(res.Duration)
		logFile := filepath.Join(r.stepDir(s), "log.txt")
		log := res.Stdout
		if res.StdoutDropped > 0 {
			log = append([]byte(fmt.Sprintf("[... %d earlier bytes dropped ...]\n", res.StdoutDropped)), log...)
		}
		if werr := r.opts.FS.WriteFile(logFile, log, 0o644); werr == nil {
			sr.LogFile = logFile
		}
		sr.LogTail = proc.Tail(res.Stdout, logTailBytes)
		code := res.ExitCode
		sr.ExitCode = &code
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *proc.ExitError
		if errors.As(err, &ee) {
			msg := ee.Error()
			if f := readFailure(j); f != "" {
				msg += "; /opt/ml/output/failure: " + f
			}
			return fmt.Errorf("the job failed: %s", msg)
		}
		return fmt.Errorf("the job did not complete: %w", err)
	}
	return nil
}

// runProcess runs a job's process without holding the run's lock, so
// that other steps stage, check and run their jobs meanwhile, and counts
// the time jobs ran (Report.OverheadSeconds is the rest). The evaluator's
// current step is the caller's again when it returns.
func (r *run) runProcess(ctx context.Context, j Job) (*proc.Result, error) {
	current := r.ev.current
	if r.jobsRunning == 0 {
		r.busySince = time.Now()
	}
	r.jobsRunning++
	r.mu.Unlock()
	res, err := r.ex.run(ctx, j)
	r.mu.Lock()
	r.jobsRunning--
	if r.jobsRunning == 0 {
		r.busy += time.Since(r.busySince)
	}
	r.ev.current = current
	return res, err
}

// readFailure returns the failure reason a training job wrote, if any:
// read through a root on its /opt/ml/output directory, as a regular file
// of bounded size (a link the job made to a host file reads as absent).
func readFailure(j Job) string {
	for _, m := range j.Mounts {
		if m.Container == "/opt/ml/output" {
			if b, err := m.source().join("failure").readFile(safefs.KindDocument); err == nil {
				return proc.Tail(b, 500)
			}
		}
	}
	return ""
}

// timeout is the time limit of a step's job: the option, or the step's
// StoppingCondition when shorter.
func (r *run) timeout(s *defStep) time.Duration {
	t := r.opts.StepTimeout
	if t <= 0 {
		t = DefaultStepTimeout
	}
	if v, ok := objOf(s.Arguments, "StoppingCondition")["MaxRuntimeInSeconds"]; ok {
		if str, err := r.ev.str(v); err == nil {
			var n float64
			if _, err := fmt.Sscan(str, &n); err == nil && n > 0 {
				if d := time.Duration(n * float64(time.Second)); d < t {
					t = d
				}
			}
		}
	}
	return t
}

// inputMount places an S3 input at a container directory as SageMaker
// does: a prefix's objects below the directory, a single object in it
// under its own name. The input must hold objects.
func (r *run) inputMount(what, uri, container string) (Mount, string, error) {
	p, b, err := r.st.resolve(uri)
	if err != nil {
		return Mount{}, "", fmt.Errorf("%s: %w", what, err)
	}
	if !p.hasObjects() {
		hint := "an upstream step wrote nothing there"
		if b == nil {
			hint = fmt.Sprintf("nothing in this run writes it: map it to local data with data {%q: \"<local path>\"}, or let the run generate it with generate_data [%q]", uri, uri)
		}
		return Mount{}, "", fmt.Errorf("%s: no objects under %s (%s)", what, uri, hint)
	}
	st, err := p.stat()
	if err != nil {
		return Mount{}, "", fmt.Errorf("%s: %w", what, err)
	}
	if !st.IsDir() {
		name := objectName(uri)
		if name == "" || strings.HasSuffix(uri, "/") {
			name = filepath.Base(p.String())
		}
		return mountAt(strings.TrimSuffix(container, "/")+"/"+name, p, false), p.String(), nil
	}
	return mountAt(strings.TrimSuffix(container, "/"), p, false), p.String(), nil
}

package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// ExecutionNamespace returns the execution namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ExecutionNamespace() registry.Namespace {
	return mergeNamespaces(namespace("execution", executionNamespace,
		registry.New("execution.run_local", registry.Spec{
			Core:        true,
			Description: "Compiles a DAG and its config.json (the arguments of compile.definition) and runs the definition on this machine: each step in dependency order, every job in a bubblewrap sandbox (no network, read-only host, its inputs and outputs bound at their SageMaker container paths: /opt/ml/processing/..., /opt/ml/input/data/<channel>, /opt/ml/model, /opt/ml/code) with the job arguments, environment and channels the definition gives it, data flowing through a local S3 under work_dir as the definition's property references say. A training job runs as the SageMaker training toolkit runs it and its model is packed as model.tar.gz; Model and RegisterModel steps are checked (the archive exists and holds the model files and its inference code); a Transform step runs the model's inference handlers over its input. A managed data-loading step (Cradle, Athena, Redshift) whose outputs data gives, or any step whose every output data gives, is substituted by that local data. generate_data stands generated data in for an input instead (1000 rows with the columns the pipeline's trainer reads: label, numeric and categorical features, id), so a pipeline runs without a local copy of its data. Answers each step's status, time, outputs (local paths) and log file, and the log tail of a failed step (detail full: every step's log tail and command; report_file holds the whole report); a failed step fails the call with run_failed naming the step, exit code and log, and skips its dependants.",
			When:        "the pipeline compiles and you want proof it runs end to end, on small local data, before deploying it",
			Examples: []string{
				`execution.run_local {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json", "work_dir": "runs/local", "data": {"s3://example-bucket/raw/train/": "examples/simple-training/data/train.csv"}}`,
				`execution.run_local {"dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json", "work_dir": "runs/local", "data": {"CradleDataLoading-Training.DATA": "examples/xgboost-end-to-end/data/training/data"}}  # a managed data-loading step's output from local data`,
				`execution.run_local {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json", "work_dir": "runs/local", "generate_data": ["s3://example-bucket/raw/train/"]}  # generated data in place of the S3 input`,
			},
			Tags:     []string{registry.PhaseValidator},
			ExecCode: true,
			Writes:   true,
		}, executionRunLocal),
	), executionSageMakerNamespace(), namespace("execution", executionNamespace, executionLoopTools()...))
}

type runLocalArgs struct {
	namedCompileArgs
	WorkDir  string            `json:"work_dir" jsonschema:"required,minLength=1,maxLength=4096" jsonschema_description:"Directory the run directory (<work_dir>/<execution id>/: the local S3 under s3/, each step's files and log under steps/, report.json) is made in (confined to the project root)."`
	Data     map[string]string `json:"data,omitempty" jsonschema_description:"Local data: an S3 URI the definition reads (an object or a prefix) or a step output \"<SageMaker step name>.<output name>\" (e.g. \"CradleDataLoading-Training.DATA\") -> a local file or directory (relative paths from the project root). A managed data-loading step takes its outputs from here; so does any step whose every output is given."`
	Generate []string          `json:"generate_data,omitempty" jsonschema_description:"Data keys (as in data: an S3 URI the definition reads, or <step>.<output>) the run fills with generated data instead of a local path: the catalog's DummyDataGeneration script writes 1000 rows with the columns the pipeline's trainer reads (its label_name, tab_field_list, cat_field_list and id_name; as many label classes as it expects). compile.definition's next_steps list the pipeline's own inputs here. data.generated says what was made."`
	// Parameters gives pipeline parameters values; the others take their defaults.
	Parameters         map[string]string `json:"parameters,omitempty" jsonschema_description:"Pipeline parameter name -> value for this run (the others take their default values)."`
	Python             string            `json:"python,omitempty" jsonschema:"maxLength=4096,pattern=^(.*/)?python[0-9.]*$" jsonschema_description:"The Python 3 interpreter the steps run with: a path (/usr/bin/python3, .venv/bin/python) or a name on PATH (python3.11); default: $CURSUS_PYTHON, else python3. Its libraries (pandas and each step's framework) are checked before the first step."`
	StepTimeoutSeconds int               `json:"step_timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=86400,default=3600" jsonschema_description:"Time limit of each step's job (a step's own StoppingCondition wins when shorter)."`
	Steps              []string          `json:"steps,omitempty" jsonschema:"maxItems=256" jsonschema_description:"Run only these steps (SageMaker step names), as a selective execution does: the steps they read from give their outputs in data (execution.failure and execution.download name them), the others do not run."`
	Detail             string            `json:"detail,omitempty" jsonschema:"enum=compact,enum=full,default=compact" jsonschema_description:"compact: each step's status, times, outputs and log_file, the log tail of the failed step only (in failed); full: also every step's log tail and container command. The whole report is in report_file either way."`
}

// ExecutionRunLocalData is the data of execution.run_local: the run's
// report (each step's status, times, outputs and log tail; the branches
// its gates took; the data it generated).
type ExecutionRunLocalData struct {
	localrun.Report
	// Detail is the detail answered: compact (the log tail of the failed
	// step only, no container commands) or full.
	Detail string `json:"detail"`
	// ReportFile is the whole report (every log tail and command) as
	// the run wrote it; each step's log_file is its whole log.
	ReportFile string `json:"report_file"`
}

// answeredReport is the report as run_local answers it: in compact detail
// without the container commands and without the log tails of the steps
// that did not fail (their log_file holds the whole log, report.json the
// whole report), the failed step's tail given once, in failed.
func answeredReport(rep *localrun.Report, detail string) *localrun.Report {
	if detail == "full" {
		return rep
	}
	c := *rep
	c.Steps = make([]localrun.StepResult, len(rep.Steps))
	for i, s := range rep.Steps {
		s.Command = nil
		if s.Status != localrun.StatusFailed || (rep.Failed != nil && rep.Failed.Step == s.Name && rep.Failed.LogTail == s.LogTail) {
			s.LogTail = ""
		}
		c.Steps[i] = s
	}
	return &c
}

// runDetail is the detail a run_local answer gives.
func runDetail(a runLocalArgs) string {
	if a.Detail == "full" {
		return "full"
	}
	return "compact"
}

func executionRunLocal(ctx context.Context, a runLocalArgs) (*envelope.Result[ExecutionRunLocalData], error) {
	if strings.TrimSpace(a.WorkDir) == "" {
		return nil, envelope.InvalidInput("work_dir must be a non-empty path").WithDetails("field", "work_dir")
	}
	workDir, err := registry.ResolveWritePath(ctx, "work_dir", a.WorkDir)
	if err != nil {
		return nil, err
	}
	data := make(map[string]string, len(a.Data))
	for k, p := range a.Data {
		if strings.TrimSpace(k) == "" {
			return nil, envelope.InvalidInput("data has a blank key: a key is an s3:// URI or <step>.<output>").WithDetails("field", "data")
		}
		if strings.TrimSpace(p) == "" {
			return nil, envelope.InvalidInput("data[%q]: the local path is blank", k).WithDetails("field", "data."+k)
		}
		lp, err := registry.ResolveReadPath(ctx, "data."+k, p)
		if err != nil {
			return nil, err
		}
		data[k] = lp
	}
	res, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, compiler.Compile)
	if err != nil {
		return nil, err
	}
	rep, err := localrun.Run(ctx, res, localrun.Options{
		WorkDir: workDir, Data: data, Generate: a.Generate, Parameters: a.Parameters, Python: a.Python, StepTimeout: time.Duration(a.StepTimeoutSeconds) * time.Second, Steps: a.Steps,
		Progress: localrun.ProgressFrom(ctx), FS: safefs.From(ctx),
	})
	if err != nil {
		te := runLocalError(err)
		if t, ok := te.(*envelope.ToolError); ok && rep != nil {
			t.WithDetails("report", answeredReport(rep, runDetail(a))) // a cancelled run: what had run, and which steps were running
		}
		return nil, te
	}
	warnings := append([]string{}, res.Warnings...)
	if rep.Sandbox != localrun.Bubblewrap {
		warnings = append(warnings, rep.SandboxNote)
	}
	for _, s := range rep.Steps {
		for _, w := range s.Warnings {
			warnings = append(warnings, s.Name+": "+w)
		}
	}
	if !rep.Succeeded {
		return nil, runFailed(rep).WithDetails("report", answeredReport(rep, runDetail(a)), "report_file", filepath.Join(rep.RunDir, "report.json"))
	}
	return envelope.Success(ExecutionRunLocalData{Report: *answeredReport(rep, runDetail(a)), Detail: runDetail(a), ReportFile: filepath.Join(rep.RunDir, "report.json")}).WithWarnings(warnings...).
		WithMeta("run_dir", rep.RunDir).WithMeta("sandbox", string(rep.Sandbox)).WithMeta("steps", len(rep.Steps)).
		WithNextSteps(envelope.NextStep{Tool: "compile.dag", When: "every step ran locally and the definition is what you want", Why: "deploy it",
			ArgsHint: a.namedCompileArgs.hint("upsert", true)}), nil
}

// runFailed is the failure of a run whose step failed (or was skipped).
func runFailed(rep *localrun.Report) *envelope.ToolError {
	f := rep.Failed
	if f == nil {
		return envelope.Errorf(envelope.CodeRunFailed, "the local run did not complete: a step was skipped")
	}
	msg := fmt.Sprintf("step %s failed", f.Step)
	if f.ExitCode != nil && *f.ExitCode != 0 {
		msg += fmt.Sprintf(" (exit code %d)", *f.ExitCode)
	}
	msg += ": " + f.Error
	skipped := 0
	for _, s := range rep.Steps {
		if s.Status == localrun.StatusSkipped {
			skipped++
		}
	}
	if skipped > 0 {
		msg += fmt.Sprintf("; %d step(s) that depend on it were skipped", skipped)
	}
	if rep.Sandbox != localrun.Bubblewrap {
		msg += "; " + rep.SandboxNote
	}
	e := envelope.Errorf(envelope.CodeRunFailed, "%s", msg)
	if f.FailStep {
		return e.WithRemedy("the pipeline's quality gate did not pass and its Fail step ended the run (meta.details.report.branches shows the decision): improve the model, or run with another threshold (parameters) if the gate's is too strict", "compile.with_report", "config.load")
	}
	if f.LogTail != "" {
		e = e.WithRemedy("read the failed step's log tail in meta.details.report.failed (its whole log is in the step's log_file, the whole report in meta.details.report_file), fix the script or the config field it names, and run again", "author.check_script", "validate.step", "config.load")
	} else {
		e = e.WithRemedy("fix what the error names (a data key, an archive, an input) and run again", "compile.definition", "compile.with_report")
	}
	return e
}

// runLocalError maps the runner's errors: those with a kind (a bad data
// key or definition, a missing code file, no python3, a cancelled run)
// through toolError, any other as tool_error.
func runLocalError(err error) error {
	if errkind.Of(err) == errkind.Unknown {
		return envelope.Errorf(envelope.CodeToolError, "local run failed: %v", err)
	}
	return toolError(err)
}

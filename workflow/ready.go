package workflow

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/cursus-go/cursus/envelope"
)

// The readiness of a pipeline a workflow made.
//
// A configure-pipeline or new-project run ends done only when its pipeline
// would run: compile.validate answers deployable (no placeholder, unknown
// key, missing script, parameter without default: the readiness gate) and
// execution.run_local runs the definition to the end on this machine. The
// ready phase asks both and records what they said; it passes either way
// (it judges, it does not build), and the workflow's Ready hook turns a
// pipeline that is not ready into an incomplete run whose reason names
// each blocker. Resuming an incomplete run asks again (Phase.Reassess).

// Readiness variables.
const (
	varDeployable = "deployable"  // compile.validate's data.deployable
	varBlockers   = "blockers"    // compile.validate's data.blockers
	varReadiness  = "readiness"   // its summary
	varLocalRun   = "local_run"   // what execution.run_local said (LocalRun)
	varReadyFiles = "ready_files" // the DAG and config the ready phase judged
)

// Local run statuses (LocalRun.Status).
const (
	LocalRunSucceeded = "succeeded"   // every step succeeded or was substituted
	LocalRunFailed    = "failed"      // a step failed: Step, Message
	LocalRunNotRun    = "not_run"     // the pipeline is not deployable, so it was not run
	LocalRunSkipped   = "unavailable" // execution.run_local could not run here (gate closed, no interpreter): Message
)

// LocalRun is what execution.run_local said about a pipeline.
type LocalRun struct {
	Status  string `json:"status"`
	Step    string `json:"step,omitempty"`    // the failing step
	Message string `json:"message,omitempty"` // why it failed or did not run
	WorkDir string `json:"work_dir,omitempty"`
	Steps   int    `json:"steps,omitempty"` // steps that ran
}

// readyPhase is the phase that judges the pipeline in the files files
// returns (a DAG file and a config file, relative to the project root).
func readyPhase(files func(s *Step) (dagFile, configFile string)) Phase {
	return Phase{
		Name: "ready", Title: "Check it would run", Stage: "validate", Reassess: true,
		Detail: "compile.validate's readiness gate (deployable: no placeholder, unknown key, missing script or parameter without a default) " +
			"and, when it is deployable, execution.run_local of the definition (work_dir runs/<id>/local, data from local-data.json beside the DAG when there is one).",
		Gate:  "records the verdict; the run is done only when the pipeline is deployable and runs locally to the end, else incomplete with each blocker named",
		Tools: []string{"compile.validate", "execution.run_local"},
		Run: func(ctx context.Context, s *Step) error {
			dagFile, cfg := files(s)
			return phaseReady(ctx, s, dagFile, cfg)
		},
	}
}

func phaseReady(ctx context.Context, s *Step, dagFile, cfg string) error {
	args := withWorkspace(s, "compile.validate", map[string]any{"dag_file": s.Abs(dagFile), "config_file": s.Abs(cfg)})
	_, v, err := compileValidate(ctx, s, args, "ready")
	if err != nil {
		return err
	}
	run := LocalRun{Status: LocalRunNotRun, Message: "the pipeline is not deployable"}
	if v.Deployable {
		run = localRun(ctx, s, dagFile, cfg)
	}
	if err := firstError(s.Set(varDeployable, v.Deployable), s.Set(varBlockers, v.Blockers), s.Set(varReadiness, v.Summary),
		s.Set(varLocalRun, run), s.Set(varReadyFiles, map[string]string{"dag_file": dagFile, "config_file": cfg})); err != nil {
		return err
	}
	s.Summary("deployable", v.Deployable)
	s.Summary("blockers", len(v.Blockers))
	s.Summary("local_run", run.Status)
	if !v.Deployable {
		s.Warn("%s", v.Summary)
	}
	return nil
}

// localRun runs the pipeline with execution.run_local and says how it went.
func localRun(ctx context.Context, s *Step, dagFile, cfg string) LocalRun {
	work := s.RunPath("local")
	args := withWorkspace(s, "execution.run_local", map[string]any{"dag_file": s.Abs(dagFile), "config_file": s.Abs(cfg), "work_dir": s.Abs(work)})
	if data, ok := localData(s, dagFile); ok {
		args["data"] = data
	}
	resp, err := s.Call(ctx, "execution.run_local", args)
	if err != nil {
		return LocalRun{Status: LocalRunSkipped, Message: err.Error()}
	}
	_ = s.Report("execution.run_local", args, resp)
	if resp.OK {
		var r struct {
			Steps []json.RawMessage `json:"steps"`
		}
		_ = resp.Decode(&r)
		return LocalRun{Status: LocalRunSucceeded, WorkDir: work, Steps: len(r.Steps)}
	}
	if resp.Code != envelope.CodeRunFailed {
		return LocalRun{Status: LocalRunSkipped, Message: string(resp.Code) + ": " + resp.Error}
	}
	var env struct {
		Meta struct {
			Details struct {
				Report struct {
					Failed struct {
						Step string `json:"step"`
					} `json:"failed"`
				} `json:"report"`
			} `json:"details"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(resp.Envelope, &env)
	return LocalRun{Status: LocalRunFailed, Step: env.Meta.Details.Report.Failed.Step, Message: resp.Error, WorkDir: work}
}

// localData reads local-data.json beside the DAG file (the data argument
// of execution.run_local an example ships), relative paths in it taken from
// its directory.
func localData(s *Step, dagFile string) (map[string]any, bool) {
	p := path.Join(path.Dir(dagFile), "local-data.json")
	var data map[string]any
	found, err := s.ReadAnswer(p, func(b []byte) error { return json.Unmarshal(b, &data) })
	if err != nil || !found {
		return nil, false
	}
	for k, v := range data {
		if rel, ok := v.(string); ok && !path.IsAbs(rel) && !strings.Contains(rel, "://") {
			data[k] = s.Abs(path.Join(path.Dir(dagFile), rel))
		}
	}
	return data, true
}

// pipelineReady is the Ready hook of the workflows with a ready phase:
// ready when the pipeline is deployable and ran locally to the end.
func pipelineReady(v Vars) (bool, string) {
	deployable := false
	v.Get(varDeployable, &deployable)
	var run LocalRun
	v.Get(varLocalRun, &run)
	switch {
	case !deployable:
		return false, "not ready to deploy: " + strings.TrimPrefix(v.String(varReadiness), "Valid but not deployable: ")
	case run.Status == LocalRunSucceeded:
		return true, ""
	case run.Status == LocalRunFailed:
		return false, fmt.Sprintf("deployable, but the local run failed at step %s: %s", cmp.Or(run.Step, "?"), run.Message)
	}
	return false, "deployable, but not run locally (" + run.Message + "), so not known to run"
}

// readyOutputs adds the readiness of the pipeline to a workflow's outputs.
func readyOutputs(v Vars, out map[string]any) map[string]any {
	deployable := false
	v.Get(varDeployable, &deployable)
	var blockers []map[string]any
	v.Get(varBlockers, &blockers)
	if blockers == nil {
		blockers = []map[string]any{}
	}
	var run LocalRun
	v.Get(varLocalRun, &run)
	ready, why := pipelineReady(v)
	out["deployable"] = deployable
	out["blockers"] = blockers
	out["local_run"] = run
	out["ready_to_deploy"] = ready
	if !ready {
		out["not_ready"] = why
	}
	return out
}

package project

import (
	"fmt"
	"path"
	"strings"
)

// PlanStep is one call of the bring-up plan.
type PlanStep struct {
	Order    int            `json:"order"`
	Phase    string         `json:"phase"` // scaffold, dag, author, validate, configure, run, compile, deploy
	Tool     string         `json:"tool"`
	ArgsHint map[string]any `json:"args_hint"`
	Why      string         `json:"why"`
	Gate     string         `json:"gate,omitempty"` // what must hold before going on
	Optional bool           `json:"optional,omitempty"`
}

// BringUpOptions are the inputs of BringUpPlan.
type BringUpOptions struct {
	Name, Framework, TargetDir, Region, DAGSource string
}

// DAG sources of a bring-up.
const (
	DAGFromCatalog = "catalog"
	DAGManual      = "manual"
)

// BringUpPlan returns the ordered tool calls that take an empty folder to
// a compiled (and optionally deployed) pipeline with the project layout
// Init writes. Paths in the hints are relative to the project root the
// tools are confined to.
func BringUpPlan(o BringUpOptions) ([]PlanStep, error) {
	if err := CheckName(o.Name); err != nil {
		return nil, err
	}
	fw, ok := Frameworks[strings.ToLower(o.Framework)]
	if !ok {
		return nil, fmt.Errorf("%w %q: choose one of %s", ErrUnknownFramework, o.Framework, strings.Join(FrameworkNames(), ", "))
	}
	if o.DAGSource != DAGFromCatalog && o.DAGSource != DAGManual {
		return nil, fmt.Errorf("dag_source %q must be %s or %s", o.DAGSource, DAGFromCatalog, DAGManual)
	}
	dir := path.Join(o.TargetDir, DirName(o.Name, fw.Name))
	ws := []string{path.Join(dir, StepsDir)}
	dagFile, cfgFile := path.Join(dir, DAGFile), path.Join(dir, ConfigFile)
	custom := string(CustomStepName(o.Name))
	nodes, edges := DefaultDAG(fw, CustomStepName(o.Name))
	var plan []PlanStep
	add := func(p PlanStep) {
		p.Order = len(plan) + 1
		plan = append(plan, p)
	}
	add(PlanStep{Phase: "scaffold", Tool: "project.init", ArgsHint: map[string]any{"name": o.Name, "framework": fw.Name, "target_dir": o.TargetDir},
		Why: "writes the step file, script skeletons, DAG, config, sample data and the action-item ledger", Gate: "ok; needs " + "CURSUS_MCP_ENABLE_DESTRUCTIVE on a gated server"})
	if o.DAGSource == DAGFromCatalog {
		add(PlanStep{Phase: "dag", Tool: "pipeline_catalog.recommend", ArgsHint: map[string]any{"framework": fw.Name, "data_type": "tabular"}, Optional: true,
			Why: "look for a shared DAG closer to the use case than the scaffold's default"})
		add(PlanStep{Phase: "dag", Tool: "pipeline_catalog.load_dag", ArgsHint: map[string]any{"dag_id": "<chosen dag_id>"}, Optional: true,
			Why: "take its nodes and edges; keep the custom step between preprocessing and training, then rewrite " + DAGFile + " (dag.serialize)"})
	} else {
		add(PlanStep{Phase: "dag", Tool: "dag.construct", ArgsHint: map[string]any{"dag": map[string]any{"nodes": nodes, "edges": edges}}, Optional: true,
			Why: "edit the DAG by hand starting from the scaffold's default; write it with dag.serialize to " + dagFile})
	}
	add(PlanStep{Phase: "dag", Tool: "dag.validate_integrity", ArgsHint: map[string]any{"dag_file": dagFile},
		Why: "no cycles, dangling or undeclared nodes", Gate: "data.is_valid"})
	add(PlanStep{Phase: "author", Tool: "validate.step_interface", ArgsHint: map[string]any{"step_name": custom, "workspace_dirs": ws},
		Why: "the custom step file loads and passes registry parity", Gate: "ok"})
	add(PlanStep{Phase: "author", Tool: "author.check_script", ArgsHint: map[string]any{"step_name": custom, "workspace_dirs": ws},
		Why: "the custom script reads exactly what its contract declares", Gate: "ok"})
	add(PlanStep{Phase: "author", Tool: "author.preflight_step", ArgsHint: map[string]any{"step_name": custom, "workspace_dirs": ws},
		Why: "the custom step is constructible", Gate: "data.constructible"})
	add(PlanStep{Phase: "validate", Tool: "validate.alignment", ArgsHint: map[string]any{"workspace_dirs": ws, "script_dirs": []string{path.Join(dir, ScriptsDir)}},
		Why: "every step and script of the project aligns", Gate: "data.failed_steps == 0"})
	add(PlanStep{Phase: "configure", Tool: "author.config_constraints", ArgsHint: map[string]any{"step_name": string(fw.Training)},
		Why: "legal values of the fields to fill (see " + LedgerFile + ")"})
	add(PlanStep{Phase: "configure", Tool: "config.merge_save", ArgsHint: map[string]any{"dag_file": dagFile, "base": map[string]any{"region": o.Region, "author": "<you>", "bucket": "<bucket>", "role": "<role arn>"}, "steps": map[string]any{}, "output_file": cfgFile},
		Why: "replace the scaffold's placeholder values (or edit " + cfgFile + " directly)", Optional: true})
	add(PlanStep{Phase: "compile", Tool: "compile.validate", ArgsHint: map[string]any{"dag_file": dagFile, "config_file": cfgFile, "workspace_dirs": ws},
		Why: "every node resolves to a config and a builder and every required input is bound", Gate: "data.is_valid"})
	add(PlanStep{Phase: "run", Tool: "validate.run_scripts", ArgsHint: map[string]any{"dag_file": dagFile, "config_file": cfgFile, "workspace_dirs": ws,
		"input_data": map[string]any{"DummyDataLoading_training": map[string]string{"INPUT_DATA": path.Join(dir, SampleData)}, "DummyDataLoading_calibration": map[string]string{"INPUT_DATA": path.Join(dir, SampleData)}}},
		Why: "the scripts run end to end on the sample data", Gate: "data.pipeline_success; needs CURSUS_MCP_ALLOW_SCRIPT_EXEC on a gated server"})
	add(PlanStep{Phase: "compile", Tool: "compile.preview", ArgsHint: map[string]any{"dag_file": dagFile, "config_file": cfgFile, "workspace_dirs": ws},
		Why: "node -> config -> builder mapping with confidence"})
	add(PlanStep{Phase: "compile", Tool: "compile.dag", ArgsHint: map[string]any{"dag_file": dagFile, "config_file": cfgFile, "workspace_dirs": ws},
		Why: "build the SageMaker pipeline definition (build-only)", Gate: "ok"})
	add(PlanStep{Phase: "deploy", Tool: "compile.dag", ArgsHint: map[string]any{"dag_file": dagFile, "config_file": cfgFile, "workspace_dirs": ws, "upsert": true, "role": "<role arn>"},
		Why: "upload the scripts and create or update the pipeline, once the ledger's placeholders are replaced", Optional: true})
	return plan, nil
}

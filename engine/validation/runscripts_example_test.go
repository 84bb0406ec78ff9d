package validation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/internal/testfs"
)

// TestRunScriptsExampleFromItsFolder runs examples/xgboost-end-to-end the
// way the CLI does from the project folder: a relative config_path and
// workspace, no project root, and no input_data. The scripts are found and
// run although each runs in its own work folder (their paths are made
// absolute), and the config-sourced inputs are mounted as the compiler
// mounts them: Cradle's four specs written as <field>.json into the input
// folders, Package's inference_scripts_dir the catalog's XGBoost serving
// code (the example ships no scripts of its own: every step runs the
// catalog's).
func TestRunScriptsExampleFromItsFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nine Python scripts")
	}
	needML(t)
	example, err := filepath.Abs("../../examples/xgboost-end-to-end")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	testfs.CopyTree(t, example, root)
	t.Chdir(root)

	d, _, err := dag.ReadFile(nil, "dag.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunScripts(context.Background(), RunOptions{DAG: d, ConfigPath: "config.json", Workspace: "runs", UseDependencyResolution: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rep.ExecutionOrder {
		r := rep.ScriptResults[n]
		if n == "Registration" {
			continue // a RegisterModel step runs no script
		}
		if r.Status != RunSuccess {
			t.Errorf("%s: %s %s\n%s", n, r.Status, r.ErrorMessage, r.Stderr)
		}
		if !filepath.IsAbs(r.Script) {
			t.Errorf("%s: script path %q is relative", n, r.Script)
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "fed by nothing") {
				t.Errorf("%s: %s", n, w)
			}
		}
	}
	if !rep.PipelineSuccess {
		t.Errorf("pipeline_success false: %d of %d scripts", rep.SuccessfulScripts, rep.TotalScripts)
	}

	// The specs are the config's values, where the compiler mounts them.
	var cfg struct {
		Configuration struct {
			Specific map[string]map[string]any `json:"specific"`
		} `json:"configuration"`
	}
	b, err := os.ReadFile("config.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cradle := rep.ScriptResults["CradleDataLoading_training"]
	nodeRoot := filepath.Join(rep.RunDir, "CradleDataLoading_training", "root")
	for _, f := range []string{"data_sources_spec", "transform_spec", "output_spec", "cradle_job_spec"} {
		if cradle.Inputs[f] != "config:"+f {
			t.Errorf("input %s came from %q", f, cradle.Inputs[f])
		}
		b, err := os.ReadFile(filepath.Join(nodeRoot, "opt/ml/processing/input/config", f, f+".json"))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var got any
		if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, cfg.Configuration.Specific["CradleDataLoading_training"][f]) {
			t.Errorf("%s.json holds %s, want the config's value", f, b)
		}
	}
	if from := rep.ScriptResults["Package"].Inputs["inference_scripts_input"]; from != "embedded:scripts/inference/xgboost" {
		t.Errorf("Package's inference scripts came from %q", from)
	}
}

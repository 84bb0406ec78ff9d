package author

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/validation"
)

func cat(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stepFile is a valid step file with a name, an env var and a port name
// substituted, to probe what the loader accepts.
func stepFile(step, env, port string) string {
	return fmt.Sprintf(`step: %[1]s
verb: Processing
kind: internal
description: Probe of the naming rules.
framework: generic
compute:
  kind: sklearn
contract:
  entry_point: probe.py
  env:
    - {name: %[2]s, description: "probe"}
inputs:
  - name: %[3]s
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing]
    description: probe
outputs:
  - name: out
    type: processing_output
    path: /opt/ml/processing/output
    description: probe
fields:
  - {name: processing_entry_point, default: probe.py}
`, step, env, port)
}

// TestRulesUseTheCatalogsConstants: author.rules reports the patterns,
// compute kinds and SDK classes the catalog loader enforces (exported by
// engine/catalog, which tests them against ParseStepFile), and says
// include_job_type_in_path is metadata only.
func TestRulesUseTheCatalogsConstants(t *testing.T) {
	c := cat(t)
	naming, err := Rules(c, "naming")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"step_name_pattern": catalog.StepNamePattern, "field_name_pattern": catalog.FieldNamePattern,
		"port_name_pattern": catalog.PortNamePattern, "env_var_pattern": catalog.EnvNamePattern,
		"job_type_pattern": catalog.JobTypePattern, "entry_point_pattern": catalog.ScriptPattern,
		"channel_name_pattern": catalog.ChannelPattern, "output_path_token_pattern": catalog.PathTokenPattern,
		"parameter_ref_pattern": catalog.ParameterRefPattern,
	} {
		if naming[key] != want {
			t.Errorf("naming.%s = %v, want %s", key, naming[key], want)
		}
	}
	pack, err := Rules(c, "packaging")
	if err != nil {
		t.Fatal(err)
	}
	kinds := pack["compute_kinds"].(map[string][]string)
	classes := pack["sdk_classes"].(map[string][]string)
	for _, v := range catalog.Verbs {
		if !reflect.DeepEqual(kinds[string(v)], catalog.ComputeKinds(v)) {
			t.Errorf("compute_kinds.%s = %v, want %v", v, kinds[string(v)], catalog.ComputeKinds(v))
		}
		for _, k := range catalog.ComputeKinds(v) {
			if want := catalog.SDKClasses(k); len(want) > 0 && !reflect.DeepEqual(classes[k], want) {
				t.Errorf("sdk_classes.%s = %v, want %v", k, classes[k], want)
			}
		}
	}
	if len(classes) == 0 {
		t.Error("no kind has SDK classes")
	}
	if !reflect.DeepEqual(pack["image_frameworks"], catalog.ImageFrameworks()) {
		t.Errorf("image_frameworks %v", pack["image_frameworks"])
	}
	if s := pack["include_job_type_in_path"].(string); !strings.Contains(s, "metadata only") || !strings.Contains(s, "always carries the node's job type") {
		t.Errorf("include_job_type_in_path: %s", s)
	}
}

func TestRules(t *testing.T) {
	c := cat(t)
	for _, topic := range Topics {
		r, err := Rules(c, topic)
		if err != nil || len(r) == 0 {
			t.Fatalf("%s: %v %v", topic, r, err)
		}
	}
	naming, _ := Rules(c, "naming")
	if naming["step_name_pattern"] != catalog.StepNamePattern || len(naming["valid_sagemaker_step_types"].([]string)) != len(catalog.Verbs) {
		t.Errorf("naming: %v", naming)
	}
	sdk, _ := Rules(c, "sdk_carveout")
	if len(sdk["builders"].([]map[string]any)) != len(catalog.Verbs) {
		t.Errorf("sdk_carveout builders: %v", sdk["builders"])
	}
	var ue *UnknownTopicError
	if _, err := Rules(c, "nope"); !errors.As(err, &ue) {
		t.Errorf("unknown topic: %v", err)
	}
}

func TestChecklist(t *testing.T) {
	c := cat(t)
	cl, err := NewChecklist(c, "Processing", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Steps) < 5 || !cl.Routable || cl.ExemplarStep != "TabularPreprocessing" || cl.StepAssembly != "code" || cl.BoundHandler == nil {
		t.Fatalf("processing checklist: %+v", cl)
	}
	phases := []string{}
	for i, s := range cl.Steps {
		if s.Order != i+1 || s.Tool == "" || s.Action == "" {
			t.Errorf("step %d: %+v", i, s)
		}
		phases = append(phases, s.Phase)
	}
	if phases[0] != "resolve" || phases[len(phases)-1] != "integrate" {
		t.Errorf("phases %v", phases)
	}
	for _, v := range catalog.Verbs {
		cl, err := NewChecklist(c, string(v), "")
		if err != nil || cl.ExemplarStep == "" {
			t.Errorf("%s: exemplar %q, %v", v, cl.ExemplarStep, err)
		} else if st, _ := c.Step(catalog.StepType(cl.ExemplarStep)); st.Verb != v {
			t.Errorf("%s: exemplar %s has verb %s", v, cl.ExemplarStep, st.Verb)
		}
	}
	if cl, err := NewChecklist(c, "Processing", "step_args"); err != nil || cl.StepAssembly != "step_args" {
		t.Errorf("step_args: %+v %v", cl, err)
	}
	var ve *UnknownVerbError
	if _, err := NewChecklist(c, "AutoML", ""); !errors.As(err, &ve) {
		t.Errorf("unknown verb: %v", err)
	}
	var be *BadAssemblyError
	if _, err := NewChecklist(c, "Training", "code"); !errors.As(err, &be) {
		t.Errorf("assembly on Training: %v", err)
	}
}

func TestConfigConstraintsAndPreflight(t *testing.T) {
	c := cat(t)
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := c.Step("TabularPreprocessing")
	cons, err := ConfigConstraints(schema, st)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Constraint{}
	for _, k := range cons.ConstrainedFields {
		byName[k.Name] = k
	}
	if k := byName["output_format"]; len(k.AllowedValues) != 3 || !k.CaseSensitive {
		t.Errorf("output_format constraint: %+v", k)
	}
	if byName["train_ratio"].Max == nil || cons.FieldCount == 0 || len(cons.RequiredNoDefault) == 0 {
		t.Errorf("constraints: %+v", cons)
	}
	// Partial: only the given values.
	_, probs, err := PreflightConfig(schema, st, map[string]any{"job_type": "training", "output_format": "CSV", "train_ratio": 0.8}, true)
	if err != nil || len(probs) != 0 {
		t.Fatalf("valid partial: %+v %v", probs, err)
	}
	_, probs, err = PreflightConfig(schema, st, map[string]any{"output_format": "XLS", "train_ratio": 2, "batch_size": "five", "no_such_field_xyz": 1, "aws_region": "x"}, true)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, p := range probs {
		kinds[p.Field] = p.Type
	}
	want := map[string]string{"output_format": config.KindAllowed, "train_ratio": config.KindRange, "batch_size": config.KindType, "no_such_field_xyz": "unknown_field", "aws_region": "derived_field"}
	for f, k := range want {
		if kinds[f] != k {
			t.Errorf("%s: kind %q, want %q (all %+v)", f, kinds[f], k, probs)
		}
	}
	// Full: missing essentials are reported too.
	_, probs, err = PreflightConfig(schema, st, map[string]any{"output_format": "XLS"}, false)
	if err != nil {
		t.Fatal(err)
	}
	missing, allowed := 0, 0
	for _, p := range probs {
		switch p.Type {
		case config.KindMissing:
			missing++
		case config.KindAllowed:
			allowed++
			if len(p.Allowed) != 3 {
				t.Errorf("allowed values not listed: %+v", p)
			}
		}
	}
	if missing == 0 || allowed != 1 {
		t.Errorf("full preflight: %+v", probs)
	}
}

func TestPreflightStep(t *testing.T) {
	ctx := context.Background()
	pf, err := PreflightStep(ctx, PreflightOptions{StepName: "TabularPreprocessing"})
	if err != nil || !pf.Constructible || len(pf.Gates) != len(Gates) || *pf.StepName != "TabularPreprocessing" {
		t.Fatalf("TabularPreprocessing: %+v %v", pf, err)
	}
	for i, g := range pf.Gates {
		if g.Name != Gates[i] || !g.Passed || g.Step != "TabularPreprocessing" {
			t.Errorf("gate %d: %+v", i, g)
		}
	}
	pf, err = PreflightStep(ctx, PreflightOptions{All: true})
	if err != nil || !pf.Constructible || pf.Scope != "all" || pf.StepName != nil {
		t.Fatalf("all: %+v %v", pf, err)
	}
	// Unknown step: the interface gate fails, and the others are not checked.
	pf, err = PreflightStep(ctx, PreflightOptions{StepName: "NoSuchStepXyz"})
	if err != nil || pf.Constructible || pf.FailedGates[0] != GateInterface {
		t.Fatalf("unknown: %+v %v", pf, err)
	}
	if _, err := PreflightStep(ctx, PreflightOptions{}); !errors.Is(err, validation.ErrNoSelection) {
		t.Errorf("no selection: %v", err)
	}
	// A workspace step whose required input nothing provides fails resolvable_ports only.
	ws := t.TempDir()
	orphan := strings.NewReplacer("in_data", "quantum_flux", "type: processing_output\n    path: /opt/ml/processing/input/data", "type: hyperparameters\n    path: /opt/ml/processing/input/data",
		"compatible_sources: [TabularPreprocessing]", "compatible_sources: [UserProvided]").Replace(stepFile("ProbeOrphan", "PROBE_VAR", "in_data"))
	if err := os.WriteFile(filepath.Join(ws, "ProbeOrphan.step.yaml"), []byte(orphan), 0o644); err != nil {
		t.Fatal(err)
	}
	pf, err = PreflightStep(ctx, PreflightOptions{StepName: "ProbeOrphan", WorkspaceDirs: []string{ws}})
	if err != nil || pf.Constructible || strings.Join(pf.FailedGates, ",") != GatePorts {
		t.Fatalf("orphan: %+v %v", pf, err)
	}
	// An unbuildable one fails builder_routability.
	unbuildable := stepFile("ProbeHard", "PROBE_VAR", "in_data") + "  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible.\"}\n"
	if err := os.WriteFile(filepath.Join(ws, "ProbeHard.step.yaml"), []byte(unbuildable), 0o644); err != nil {
		t.Fatal(err)
	}
	pf, err = PreflightStep(ctx, PreflightOptions{StepName: "ProbeHard", WorkspaceDirs: []string{ws}})
	if err != nil || pf.Constructible || strings.Join(pf.FailedGates, ",") != GateRoutability || !strings.Contains(pf.Gates[2].Detail, "secret_code") {
		t.Fatalf("unbuildable: %+v %v", pf, err)
	}
}

package author

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// TestPatternsAgreeWithTheLoader keeps the copied patterns in step with
// what catalog.ParseStepFile accepts.
func TestPatternsAgreeWithTheLoader(t *testing.T) {
	for _, c := range []struct {
		pattern string
		names   []string
		file    func(string) string
	}{
		{StepNamePattern, []string{"Probe", "ProbeStep2", "probe", "Probe_Step", "2Probe", "PröbeX"}, func(n string) string { return stepFile(n, "PROBE_VAR", "in_data") }},
		{EnvNamePattern, []string{"PROBE_VAR", "_X", "probe_var", "PROBE-VAR", "9X"}, func(n string) string { return stepFile("Probe", n, "in_data") }},
		{PortNamePattern, []string{"in_data", "DATA2", "_x", "9x", "in-data"}, func(n string) string { return stepFile("Probe", "PROBE_VAR", n) }},
	} {
		re := regexp.MustCompile(c.pattern)
		for _, n := range c.names {
			file := "Probe.step.yaml"
			if c.pattern == StepNamePattern {
				file = n + ".step.yaml"
			}
			_, err := catalog.ParseStepFile(file, []byte(c.file(n)))
			if (err == nil) != re.MatchString(n) {
				t.Errorf("pattern %s says %q matches=%v but the loader says err=%v", c.pattern, n, re.MatchString(n), err)
			}
		}
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
	if naming["step_name_pattern"] != StepNamePattern || len(naming["valid_sagemaker_step_types"].([]string)) != len(catalog.Verbs) {
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
	if _, err := NewChecklist(c, "Lambda", ""); !errors.As(err, &ve) {
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

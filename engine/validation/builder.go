package validation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
)

// DryBuild is the outcome of building one step from its default config.
type DryBuild struct {
	Node      string                    `json:"node"`
	JobType   string                    `json:"job_type,omitempty"`
	StepName  catalog.SageMakerStepName `json:"sagemaker_step_name,omitempty"`
	Built     bool                      `json:"built"`
	Error     string                    `json:"error,omitempty"`
	Field     string                    `json:"field,omitempty"` // the config field at fault, when the builder names one
	Fragment  map[string]any            `json:"fragment,omitempty"`
	Warnings  []string                  `json:"warnings"`
	Inputs    map[string]string         `json:"manual_inputs"` // input -> the S3 URI fed to it
	step      *compiler.Step
	arguments string // Arguments and the step's own keys (StepFields) as JSON text, with those of the steps added for it
}

// BuildStep builds one step alone from a default config (defaults plus
// PlaceholderValue for essential fields) with a manual S3 URI for each
// input not supplied from config, through compiler.CompileSingleNode. A
// build failure is reported in the result (Built false, Error, Field); the
// error is for a step that has no config at all.
func BuildStep(ctx context.Context, cat *catalog.Catalog, st *catalog.Step, jobType string) (*DryBuild, error) {
	set, node, err := DefaultConfig(cat, st, jobType)
	_, jt := DefaultNode(st, jobType)
	res := &DryBuild{Node: node, JobType: jt, Warnings: []string{}, Inputs: map[string]string{}}
	if err != nil {
		if set == nil && node == "" {
			return nil, err
		}
		res.Error = "default config: " + err.Error()
		return res, nil
	}
	view := st.ForJobType(jt)
	for _, in := range view.Inputs {
		if in.ConfigSource != "" {
			continue
		}
		res.Inputs[in.LogicalName] = manualInputURI(in.LogicalName)
	}
	target := node
	if keys := set.Keys(); len(keys) == 1 {
		target = string(keys[0])
	}
	out, err := compiler.CompileSingleNode(ctx, compiler.SingleNodeInput{
		Input:          compiler.Input{Configs: set, Catalog: cat, BaseDir: "."},
		Target:         target,
		ManualInputs:   res.Inputs,
		ValidateInputs: true,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.Error = err.Error()
		var sb *compiler.StepBuildError
		if errors.As(err, &sb) {
			res.Field = sb.Field
		}
		return res, nil
	}
	res.Warnings = append(res.Warnings, out.Warnings...)
	// The node's own step, after the steps the compiler adds for it (a
	// model's repack job).
	want := 1
	if len(out.Report.Nodes) == 1 {
		want += len(out.Report.Nodes[0].AddedSteps)
	}
	if len(out.Definition.Steps) != want {
		res.Error = fmt.Sprintf("the builder produced %d steps, want %d", len(out.Definition.Steps), want)
		return res, nil
	}
	s := out.Definition.Steps[want-1]
	res.step = &s
	res.StepName = s.Name
	b, err := json.Marshal(s)
	if err != nil {
		res.Error = "the step does not encode as JSON: " + err.Error()
		return res, nil
	}
	var frag map[string]any
	if err := json.Unmarshal(b, &frag); err != nil {
		res.Error = "the step does not decode as a JSON object: " + err.Error()
		return res, nil
	}
	// An input may feed a step the compiler added for the node (a model's
	// archive goes to its repack job): the arguments of all of them count,
	// with a kind's step-level keys, which take inputs too (a model check's
	// ModelName).
	for _, st := range out.Definition.Steps {
		args, _ := json.Marshal([]any{st.Arguments, st.StepFields})
		res.arguments += string(args)
	}
	res.Fragment = frag
	res.Built = true
	return res, nil
}

// Test is one named check of the builder test.
type Test struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// Component is one scored part of the builder test.
type Component struct {
	Score  float64 `json:"score"` // 0-100
	Weight float64 `json:"weight"`
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	Tests  []Test  `json:"tests"`
}

// Score is the weighted builder score.
type Score struct {
	Overall    float64               `json:"overall"` // 0-100
	Rating     string                `json:"rating"`
	Components map[string]*Component `json:"components"`
}

// Component names and weights of the builder-test score.
const (
	ComponentAlignment   = "alignment_validation"
	ComponentIntegration = "integration_testing"
	ComponentCreation    = "step_creation"
)

var componentWeights = map[string]float64{ComponentAlignment: 2.0, ComponentIntegration: 1.5, ComponentCreation: 1.0}

// Rating turns a 0-100 score into a rating word.
func Rating(score float64) string {
	switch {
	case score >= 90:
		return "Excellent"
	case score >= 80:
		return "Good"
	case score >= 70:
		return "Satisfactory"
	case score >= 60:
		return "Needs Work"
	}
	return "Poor"
}

// BuilderReport is the outcome of TestBuilder.
type BuilderReport struct {
	StepName          string            `json:"step_name"`
	SageMakerStepType string            `json:"sagemaker_step_type"`
	Builder           string            `json:"builder"`
	DefinitionType    string            `json:"definition_type"`
	Build             *DryBuild         `json:"build"`
	Passed            bool              `json:"passed"` // every test passed
	Score             *Score            `json:"score,omitempty"`
	Tests             map[string][]Test `json:"tests"`
}

// TestBuilder builds the step from a default config (BuildStep) and runs
// the builder test: alignment (levels 2-4 of Align, static part), the
// integration of the fragment with the step's ports, environment and job
// arguments, and step creation. With scoring, each component is scored as
// the share of its tests passed and the components are weighted into a
// 0-100 score with a rating.
func TestBuilder(ctx context.Context, cat *catalog.Catalog, st *catalog.Step, jobType string, scoring bool) (*BuilderReport, error) {
	rep := &BuilderReport{StepName: string(st.Type), SageMakerStepType: string(st.Verb), Tests: map[string][]Test{}}
	if b, ok := compiler.Builder(st.Verb); ok {
		rep.Builder, rep.DefinitionType = b.Name, b.DefinitionType
	}
	build, err := BuildStep(ctx, cat, st, jobType)
	if err != nil {
		return nil, err
	}
	rep.Build = build
	view := st.ForJobType(build.JobType)

	// Alignment: the static levels.
	var align []Test
	for _, lv := range []struct {
		name string
		run  func() []Issue
	}{
		{"contract_ports", func() []Issue { return checkContractPorts(view) }},
		{"ports_dependencies", func() []Issue { return checkPortsResolvable(cat, st) }},
		{"builder_config_fields", func() []Issue { return checkBuilderFields(cat, view) }},
	} {
		issues := lv.run()
		t := Test{Name: lv.name, Passed: !HasBlocking(issues)}
		if b := Blocking(issues); len(b) > 0 {
			t.Message = b[0].Message
			if len(b) > 1 {
				t.Message += fmt.Sprintf(" (and %d more)", len(b)-1)
			}
		}
		align = append(align, t)
	}
	rep.Tests[ComponentAlignment] = align

	// Step creation.
	var creation []Test
	creation = append(creation, Test{Name: "builder_exists", Passed: rep.Builder != "", Message: msgIf(rep.Builder == "", "no builder for "+string(st.Verb))})
	creation = append(creation, Test{Name: "builds_from_default_config", Passed: build.Built, Message: build.Error})
	if build.Built {
		creation = append(creation, Test{Name: "definition_type", Passed: build.step.Type == rep.DefinitionType,
			Message: msgIf(build.step.Type != rep.DefinitionType, fmt.Sprintf("step Type %q, want %q", build.step.Type, rep.DefinitionType))})
		want := view.SageMakerName(build.JobType, "")
		okName := build.step.Name == want || strings.HasPrefix(string(build.step.Name), string(want)+"-")
		creation = append(creation, Test{Name: "step_name", Passed: okName && compiler.IsValidStepName(build.step.Name),
			Message: msgIf(!okName, fmt.Sprintf("step name %q, want %q", build.step.Name, want))})
		creation = append(creation, Test{Name: "has_arguments", Passed: build.step.Arguments != nil && build.arguments != "null" && build.arguments != "{}"})
	} else {
		for _, n := range []string{"definition_type", "step_name", "has_arguments"} {
			creation = append(creation, Test{Name: n, Passed: false, Message: "the step was not built"})
		}
	}
	rep.Tests[ComponentCreation] = creation

	// Integration.
	rep.Tests[ComponentIntegration] = integrationTests(view, build)

	rep.Passed = true
	for _, ts := range rep.Tests {
		for _, t := range ts {
			rep.Passed = rep.Passed && t.Passed
		}
	}
	if scoring {
		sc := &Score{Components: map[string]*Component{}}
		var sum, wsum float64
		for name, ts := range rep.Tests {
			c := &Component{Weight: componentWeights[name], Total: len(ts), Tests: ts}
			for _, t := range ts {
				if t.Passed {
					c.Passed++
				}
			}
			if c.Total > 0 {
				c.Score = round2(100 * float64(c.Passed) / float64(c.Total))
			}
			sc.Components[name] = c
			sum += c.Score * c.Weight
			wsum += c.Weight
		}
		if wsum > 0 {
			sc.Overall = round2(sum / wsum)
		}
		sc.Rating = Rating(sc.Overall)
		rep.Score = sc
	}
	return rep, nil
}

func msgIf(cond bool, msg string) string {
	if cond {
		return msg
	}
	return ""
}

func round2(f float64) float64 {
	return float64(int64(f*100+0.5)) / 100
}

// integrationTests checks the built fragment against the step's ports,
// environment and job arguments.
func integrationTests(st *catalog.Step, b *DryBuild) []Test {
	var ts []Test
	if !b.Built {
		return []Test{{Name: "fragment", Passed: false, Message: "the step was not built"}}
	}
	skipped := func(in string) bool {
		for _, w := range b.Warnings {
			if strings.Contains(w, "input "+in+" ") && strings.Contains(w, "skip_"+in) {
				return true
			}
		}
		return false
	}
	for _, in := range st.Inputs {
		uri, manual := b.Inputs[in.LogicalName]
		if !manual {
			continue
		}
		fed := strings.Contains(b.arguments, uri)
		t := Test{Name: "input_" + in.LogicalName, Passed: fed}
		if !fed {
			if !in.Required {
				t.Passed = true
				t.Message = "optional input not mounted"
				if skipped(in.LogicalName) {
					t.Message = "optional input dropped by skip_" + in.LogicalName
				}
			} else {
				t.Message = "the input's S3 URI does not appear in the step's arguments"
			}
		}
		ts = append(ts, t)
	}
	args, _ := b.Fragment["Arguments"].(map[string]any)
	switch st.Verb {
	case catalog.VerbProcessing:
		names := map[string]bool{}
		if oc, ok := args["ProcessingOutputConfig"].(map[string]any); ok {
			outs, _ := oc["Outputs"].([]any)
			for _, o := range outs {
				if m, ok := o.(map[string]any); ok {
					names[fmt.Sprint(m["OutputName"])] = true
				}
			}
		}
		for _, o := range st.Outputs {
			ts = append(ts, Test{Name: "output_" + o.LogicalName, Passed: names[o.LogicalName], Message: msgIf(!names[o.LogicalName], "no ProcessingOutput named "+o.LogicalName)})
		}
		app, _ := args["AppSpecification"].(map[string]any)
		cargs, _ := app["ContainerArguments"].([]any)
		have := map[string]bool{}
		for _, a := range cargs {
			have[fmt.Sprint(a)] = true
		}
		for _, ja := range st.Contract.JobArguments {
			ts = append(ts, Test{Name: "job_argument_" + strings.TrimLeft(ja.Flag, "-"), Passed: have[ja.Flag], Message: msgIf(!have[ja.Flag], ja.Flag+" is not among the container arguments")})
		}
	case catalog.VerbTraining:
		odc, _ := args["OutputDataConfig"].(map[string]any)
		ok := odc != nil && odc["S3OutputPath"] != nil
		ts = append(ts, Test{Name: "output_data_config", Passed: ok, Message: msgIf(!ok, "no OutputDataConfig.S3OutputPath")})
	}
	if st.Verb == catalog.VerbProcessing || st.Verb == catalog.VerbTraining {
		env, _ := args["Environment"].(map[string]any)
		for _, name := range st.Contract.RequiredEnv {
			_, ok := env[name]
			ts = append(ts, Test{Name: "env_" + name, Passed: ok, Message: msgIf(!ok, "required environment variable "+name+" is not set")})
		}
	}
	if len(ts) == 0 {
		ts = append(ts, Test{Name: "fragment", Passed: true})
	}
	return ts
}

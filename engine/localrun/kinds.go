package localrun

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/compiler"
)

// This file is the local runner's table of step kinds: one row per
// definition step Type says how a step of that Type runs here, what its
// outputs are called, where they go in S3 and which properties later steps
// read of them. A Type without a row does not run locally (the run fails
// at that step, saying so). CONTRIBUTING.md lists every file a new kind
// touches.

// localKind is one row.
type localKind struct {
	// run runs the step and fills its result.
	run func(r *run, ctx context.Context, s *defStep, sr *StepResult) error
	// outputs lists the step's output names (data keys, results).
	outputs func(s *defStep) []string
	// outputURI is where output out goes in S3 ("" when unknown before the
	// step runs).
	outputURI func(r *run, s *defStep, out string) (string, error)
	// setProps records the properties later steps read of output out,
	// written to uri and found locally at local.
	setProps func(s *defStep, state *stepState, out, uri string, local hostPath)
	// consumed maps a property path (normProp'd) of step s to the output
	// it reads ("" when it reads none).
	consumed func(s *defStep, prop string) string
}

// localKinds is the table. It is filled by init because its runners reach
// the table again (a step's run records its outputs' properties through
// it), which a variable's initializer may not.
var localKinds map[string]localKind

func init() {
	localKinds = map[string]localKind{
		compiler.StepTypeProcessing: {
			run: func(r *run, ctx context.Context, s *defStep, sr *StepResult) error { return r.processing(ctx, s, sr) },
			outputs: func(s *defStep) []string {
				var out []string
				for _, o := range listOf(s.Arguments, "ProcessingOutputConfig", "Outputs") {
					if m, ok := o.(map[string]any); ok {
						if n, _ := m["OutputName"].(string); n != "" {
							out = append(out, n)
						}
					}
				}
				return out
			},
			outputURI: func(r *run, s *defStep, out string) (string, error) {
				for _, o := range listOf(s.Arguments, "ProcessingOutputConfig", "Outputs") {
					m, _ := o.(map[string]any)
					if m["OutputName"] == out {
						s3, _ := m["S3Output"].(map[string]any)
						return r.ev.str(s3["S3Uri"])
					}
				}
				return "", nil
			},
			setProps: func(s *defStep, state *stepState, out, uri string, local hostPath) {
				for i, o := range listOf(s.Arguments, "ProcessingOutputConfig", "Outputs") {
					if m, _ := o.(map[string]any); m["OutputName"] == out {
						state.props[fmt.Sprintf("ProcessingOutputConfig.Outputs['%s'].S3Output.S3Uri", out)] = uri
						state.props[fmt.Sprintf("ProcessingOutputConfig.Outputs[%d].S3Output.S3Uri", i)] = uri
					}
				}
				for _, pf := range s.PropertyFiles {
					if pf.OutputName == out {
						state.propFiles[pf.PropertyFileName] = local.join(filepath.FromSlash(pf.FilePath))
					}
				}
			},
			consumed: func(s *defStep, prop string) string {
				if rest, ok := strings.CutPrefix(prop, "ProcessingOutputConfig.Outputs['"); ok {
					o, _, _ := strings.Cut(rest, "'")
					return o
				}
				// A property file (Std:JsonGet's PropertyFile) reads the output
				// it is declared on.
				if file, ok := strings.CutPrefix(prop, "PropertyFiles."); ok {
					for _, pf := range s.PropertyFiles {
						if pf.PropertyFileName == file {
							return pf.OutputName
						}
					}
				}
				return ""
			},
		},
		compiler.StepTypeTraining: {
			run:     func(r *run, ctx context.Context, s *defStep, sr *StepResult) error { return r.training(ctx, s, sr) },
			outputs: func(*defStep) []string { return []string{outModelArtifacts} },
			outputURI: func(r *run, s *defStep, _ string) (string, error) {
				base, err := r.ev.str(objOf(s.Arguments, "OutputDataConfig")["S3OutputPath"])
				if err != nil {
					return "", err
				}
				return strings.TrimSuffix(base, "/") + "/" + r.ev.steps[s.Name].job + "/output/model.tar.gz", nil
			},
			setProps: func(_ *defStep, state *stepState, _, uri string, _ hostPath) {
				state.props["ModelArtifacts.S3ModelArtifacts"] = uri
			},
			consumed: prefixOutput("ModelArtifacts.", outModelArtifacts),
		},
		compiler.StepTypeModel: {
			run: func(r *run, _ context.Context, s *defStep, sr *StepResult) error { return r.model(s, sr) },
		},
		compiler.StepTypeRegisterModel: {
			run: func(r *run, _ context.Context, s *defStep, sr *StepResult) error { return r.register(s, sr) },
		},
		compiler.StepTypeTransform: {
			run:     func(r *run, ctx context.Context, s *defStep, sr *StepResult) error { return r.transform(ctx, s, sr) },
			outputs: func(*defStep) []string { return []string{outTransform} },
			outputURI: func(r *run, s *defStep, _ string) (string, error) {
				return r.ev.str(objOf(s.Arguments, "TransformOutput")["S3OutputPath"])
			},
			setProps: func(_ *defStep, state *stepState, _, uri string, _ hostPath) {
				state.props["TransformOutput.S3OutputPath"] = uri
			},
			consumed: prefixOutput("TransformOutput.", outTransform),
		},
		// A Condition evaluates its conditions and picks its branch; a Fail
		// step ends the run (conditions.go).
		compiler.StepTypeCondition: {run: runCondition},
		compiler.StepTypeFail:      {run: runFail},
		// The kinds whose work happens outside this machine: a Lambda or
		// Callback step is substituted (its output parameters come from
		// data, and one no later step reads may be missing); a check step
		// is substituted when data gives its baselines, else it stops the
		// run saying why; an EMR step stops the run (outside.go).
		compiler.StepTypeLambda:       outsideKind(outputParameterNames, substituteOutside),
		compiler.StepTypeCallback:     outsideKind(outputParameterNames, substituteOutside),
		compiler.StepTypeQualityCheck: outsideKind(fixedOutputs(qualityCheckOutputs), substituteCheck),
		compiler.StepTypeClarifyCheck: outsideKind(fixedOutputs(clarifyCheckOutputs), substituteCheck),
		compiler.StepTypeEMR:          {run: refuseEMR},
	}
}

// prefixOutput is a consumed func: every property under prefix reads
// output out.
func prefixOutput(prefix, out string) func(*defStep, string) string {
	return func(_ *defStep, prop string) string {
		if strings.HasPrefix(prop, prefix) {
			return out
		}
		return ""
	}
}

// localTypes lists the Types that run locally, sorted.
func localTypes() []string {
	out := make([]string, 0, len(localKinds))
	for t, k := range localKinds {
		if k.run != nil {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

package localrun

import (
	"context"
	"fmt"
	"strings"
)

// This file is how a local run treats the step kinds whose work happens
// outside this machine: a Lambda function, an external system answering a
// callback, SageMaker's model monitor and Clarify images, an EMR cluster.
// None of them runs here. A Lambda or Callback step is substituted: its
// output parameters are taken from data ("<step>.<output>": a local file or
// directory, which later steps see at a local S3 URI of its own), and an
// output no later step reads may be left out. A QualityCheck or
// ClarifyCheck step is substituted when data gives its baselines
// ("<step>.CalculatedBaselineStatistics", ...), else the run stops at it
// saying which image does not run locally and which keys stand in for it.
// An EMR step always stops the run: its job runs on an EMR cluster and its
// results are wherever its arguments say.

// The outputs (properties) of the check kinds: what data may give of them.
var (
	qualityCheckOutputs = []string{"CalculatedBaselineStatistics", "CalculatedBaselineConstraints", "BaselineUsedForDriftCheckStatistics", "BaselineUsedForDriftCheckConstraints"}
	clarifyCheckOutputs = []string{"CalculatedBaselineConstraints", "BaselineUsedForDriftCheckConstraints"}
)

// outsideKind is the row of a kind whose outputs are properties named by
// outputs (an output parameter OutputParameters['<name>'], or a property
// such as CalculatedBaselineStatistics) and that run substitutes.
func outsideKind(outputs func(*defStep) []string, runner func(r *run, ctx context.Context, s *defStep, sr *StepResult) error) localKind {
	return localKind{
		run:     runner,
		outputs: outputs,
		outputURI: func(r *run, s *defStep, out string) (string, error) {
			return "s3://cursus-local-run/" + strings.ToLower(r.report.ExecutionID) + "/" + s.Name + "/" + out, nil
		},
		setProps: func(s *defStep, state *stepState, out, uri string, _ hostPath) {
			state.props[outsideProperty(s, out)] = uri
		},
		consumed: func(s *defStep, prop string) string {
			for _, o := range outputs(s) {
				if p := outsideProperty(s, o); prop == p || strings.HasPrefix(prop, p+".") {
					return o
				}
			}
			return ""
		},
	}
}

// outsideProperty is the property of an output of an outside kind.
func outsideProperty(s *defStep, out string) string {
	if s.Type == "Lambda" || s.Type == "Callback" {
		return "OutputParameters['" + out + "']"
	}
	return out
}

func outputParameterNames(s *defStep) []string {
	out := make([]string, 0, len(s.OutputParameters))
	for _, o := range s.OutputParameters {
		out = append(out, o.OutputName)
	}
	return out
}

func fixedOutputs(names []string) func(*defStep) []string {
	return func(*defStep) []string { return names }
}

// substituteOutside substitutes a Lambda or Callback step from data.
func substituteOutside(r *run, _ context.Context, s *defStep, sr *StepResult) error {
	why := fmt.Sprintf("a Lambda step invokes function %s in AWS, which a local run does not call", s.FunctionArn)
	if s.Type == "Callback" {
		why = fmt.Sprintf("a Callback step waits for a system outside the pipeline to answer the message it sends to %s, which a local run does not do", s.SqsQueueUrl)
	}
	return r.substituteStep(s, sr, why)
}

// substituteCheck substitutes a check step whose baselines data gives, and
// stops the run at one it gives nothing of.
func substituteCheck(r *run, _ context.Context, s *defStep, sr *StepResult) error {
	image := "SageMaker's model monitor analyzer image (Deequ on Spark)"
	if s.Type == "ClarifyCheck" {
		image = "SageMaker Clarify's image"
	}
	why := fmt.Sprintf("a %s step (%s) runs %s, which does not run locally", s.Type, s.CheckType, image)
	if len(r.dataOut[s.Name]) == 0 {
		keys := make([]string, 0, len(r.outputs[s.Name]))
		for _, o := range r.outputs[s.Name] {
			keys = append(keys, fmt.Sprintf("%q", s.Name+"."+o))
		}
		return fmt.Errorf("%s: give the baselines it would compute in data (%s: local statistics.json / constraints.json files) to stand in for it", why, strings.Join(keys, ", "))
	}
	return r.substituteStep(s, sr, why)
}

// refuseEMR stops the run at an EMR step.
func refuseEMR(_ *run, _ context.Context, s *defStep, _ *StepResult) error {
	where := "the cluster its ClusterConfig creates"
	if id, _ := s.Arguments["ClusterId"].(string); id != "" {
		where = "cluster " + id
	}
	return fmt.Errorf("an EMR step runs its job on an EMR cluster (%s), which a local run does not reach, and what the job writes is not known to the pipeline; run the steps before it locally and the rest on SageMaker", where)
}

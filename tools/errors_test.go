package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/execdoc"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/engine/strategies"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
)

// Every kind has its code, and every code of the table is a known one.
func TestKindTableComplete(t *testing.T) {
	for _, k := range errkind.All {
		code, ok := kindCodes[k]
		if !ok {
			t.Errorf("kind %q has no envelope code", k)
		} else if !code.Known() {
			t.Errorf("kind %q maps to unknown code %q", k, code)
		}
	}
	if len(kindCodes) != len(errkind.All) {
		t.Errorf("%d codes for %d kinds", len(kindCodes), len(errkind.All))
	}
}

func TestToolError(t *testing.T) {
	if toolError(nil) != nil {
		t.Error("nil became an error")
	}
	te := envelope.NotFound("x")
	if toolError(fmt.Errorf("wrapped: %w", te)) != te {
		t.Error("a ToolError in the chain passes as it is")
	}
	plain := errors.New("disk on fire")
	if toolError(plain) != plain {
		t.Error("an error without a kind passes unchanged (internal_error)")
	}
	err := toolError(fmt.Errorf("cannot load the step catalog: %w", catalog.LoadErrors{{File: "a.step.yaml", Field: "inputs[0].path", Message: "bad"}}))
	var got *envelope.ToolError
	if !errors.As(err, &got) || got.Code != envelope.CodeInvalidInput || got.Remedy == nil || got.Details["problems"] == nil {
		t.Fatalf("a kinded error: %#v", err)
	}
	if got.Message != "cannot load the step catalog: a.step.yaml: inputs[0].path: bad" {
		t.Errorf("message %q", got.Message)
	}
	err = toolError(fmt.Errorf("x: %w", context.Canceled))
	if !errors.As(err, &got) || got.Code != envelope.CodeCancelled {
		t.Errorf("a cancelled context: %#v", err)
	}
}

// Every remedy row is the first match of an engine error that has a kind
// (toolError consults the remedies only then): a row an earlier one
// shadows, or whose error type carries no kind, is never given.
func TestRemediesReachable(t *testing.T) {
	samples := []error{
		&compiler.FileError{Missing: true},
		&compiler.CycleError{},
		&compiler.InvalidDAGError{Err: &dag.BranchConflictError{}},
		&compiler.InvalidDAGError{},
		&compiler.MissingConfigError{},
		&compiler.UnboundInputsError{},
		&compiler.StepBuildError{},
		&compiler.UnknownStepError{},
		&compiler.InvalidPipelineNameError{},
		&compiler.NodeNotFoundError{},
		&compiler.ManualInputError{},
		&compiler.ParameterError{},
		&smclient.UpsertError{},
		&smclient.InputError{},
		&config.ResolutionError{},
		&config.DuplicateStepNameError{},
		&author.UnknownVerbError{},
		&validation.ScriptAnalysisError{},
		&validation.AnalyzerStoppedError{},
		fmt.Errorf("validate: %w", validation.ErrNoPython),
		&localrun.MissingModulesError{Python: "/usr/bin/python3", Missing: []string{"pandas"}, Steps: map[string]string{"pandas": "Prep"}},
		&catalog.NotFoundError{},
		catalog.LoadErrors{{File: "a.step.yaml", Message: "bad"}},
		&config.ValidationError{},
		&config.UnknownClassError{},
		&config.FormatError{},
		&execdoc.InvalidDocumentError{},
		&project.ExistsError{},
		&strategies.NotFoundError{},
		&strategies.AmbiguousError{},
		&strategies.AxisError{},
		&smclient.ParameterError{},
		&smclient.AWSError{NotFound: true},
		&smclient.AWSError{},
		&localrun.DefinitionError{},
		&pipelines.NotFoundError{},
		&localrun.SandboxError{Reason: "bwrap (bubblewrap) is not on PATH"},
	}
	first := map[int]bool{}
	for _, err := range samples {
		if errkind.Of(err) == errkind.Unknown {
			t.Errorf("%T has no kind: toolError never gives it a remedy", err)
		}
		i := slices.IndexFunc(remedies, func(r remedy) bool { return r.match(err) })
		if i < 0 {
			t.Errorf("%T matches no remedy", err)
			continue
		}
		first[i] = true
	}
	for i, r := range remedies {
		if !first[i] {
			t.Errorf("remedy %d (%q) is no sample's first match: shadowed by an earlier row, or a sample is missing", i, r.fix)
		}
	}
}

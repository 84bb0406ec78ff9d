package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
)

// This file holds what every namespace that reads the step catalog shares:
// loading it with a call's workspace_dirs, and looking a step_name up in it
// with the one not_found answer (close matches and the standard remedy).

// catalogWorkspace is the workspace_dirs argument of the tools that read
// the step catalog; an argument struct embeds it to take a project's own
// step files.
type catalogWorkspace struct {
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

// loadCatalog returns the embedded catalog, or the catalog extended with the
// workspace directories (relative ones from the project root when one is in
// force, registry.ResolveReadPath). A directory or file problem is
// invalid_input with every problem (file, line, field, message) in details
// (catalog.LoadErrors through toolError).
func loadCatalog(ctx context.Context, dirs []string) (*catalog.Catalog, error) {
	resolved, err := resolveDirs(ctx, "workspace_dirs", dirs, false)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(safefs.From(ctx), resolved...)
	if err != nil {
		err = toolError(fmt.Errorf("cannot load the step catalog: %w", err))
		if te, ok := err.(*envelope.ToolError); ok {
			te.WithDetails("workspace_dirs", dirs)
		}
		return nil, err
	}
	return cat, nil
}

// loadStep loads the catalog with the workspace directories (loadCatalog)
// and finds the step in it (findStep): how every tool about one step of the
// catalog starts.
func loadStep(ctx context.Context, dirs []string, name, jobType string) (*catalog.Step, string, error) {
	cat, err := loadCatalog(ctx, dirs)
	if err != nil {
		return nil, "", err
	}
	return findStep(cat, name, jobType)
}

// findStep resolves a step name (exact, alias, case/separator-insensitive or
// node name with a job-type suffix) and applies the job type. The job type
// argument wins over a suffix found in the name.
func findStep(cat *catalog.Catalog, name, jobType string) (*catalog.Step, string, error) {
	s, suffix, err := lookupStep(name, cat.Lookup)
	if err != nil {
		return nil, "", err
	}
	jt := strings.TrimSpace(jobType)
	if jt == "" {
		jt = suffix
	}
	return s.ForJobType(jt), jt, nil
}

// lookupStep looks a step_name argument up with lookup (the catalog's or
// the validation package's naming rules), which returns the step and the
// job type its name carries. A blank name is invalid_input (requireStepName)
// and a name lookup does not know is stepNotFound with its suggestions.
func lookupStep(name string, lookup func(string) (*catalog.Step, string, error)) (*catalog.Step, string, error) {
	if err := requireStepName(name); err != nil {
		return nil, "", err
	}
	s, jt, err := lookup(name)
	if err != nil {
		var nf *catalog.NotFoundError
		if errors.As(err, &nf) {
			return nil, "", stepNotFound(name, nf.Suggestions)
		}
		return nil, "", err
	}
	return s, jt, nil
}

// requireStepName answers a blank step_name argument with invalid_input.
func requireStepName(name string) error {
	if strings.TrimSpace(name) == "" {
		return envelope.InvalidInput("step_name must be a non-empty string").WithDetails("step_name", name)
	}
	return nil
}

// unknownStepFix is the remedy of an unknown step type, whether a handler
// answers it (stepNotFound) or the engine's *catalog.NotFoundError does
// (remedies).
const unknownStepFix = "use one of close_matches, search the catalog with part of the name, or list every step type (abstract names such as Base or Processing are not steps)"

// stepNotFound is the not_found error of an unknown step, with close
// matches and a remedy.
func stepNotFound(name string, close []catalog.StepType) *envelope.ToolError {
	names := asStrings(close)
	msg := "unknown step type %q"
	args := []any{name}
	if len(names) > 0 {
		msg += "; did you mean %s?"
		args = append(args, strings.Join(names, ", "))
	}
	return envelope.Errorf(envelope.CodeNotFound, msg, args...).
		WithDetails("step_name", name, "close_matches", names).
		WithRemedy(unknownStepFix, "catalog.search", "catalog.list_steps")
}

// asStrings renders names of a string type (step types, verbs) as plain
// strings; never nil, so an empty list stays a JSON list.
func asStrings[T ~string](types []T) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = string(t)
	}
	return out
}

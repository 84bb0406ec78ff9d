package author

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
)

// ChecklistStep is one step of the authoring checklist: Tool is the tool
// to call, SeeAlso tools that help with the same step.
type ChecklistStep struct {
	Order    int            `json:"order"`
	Phase    string         `json:"phase"` // resolve, author, validate, preflight, integrate
	Action   string         `json:"action"`
	Tool     string         `json:"tool"`
	ArgsHint map[string]any `json:"args_hint"`
	SeeAlso  []string       `json:"see_also,omitempty"`
}

// Checklist is the ordered procedure to add a step type for one verb.
type Checklist struct {
	SageMakerStepType string                `json:"sagemaker_step_type"`
	StepAssembly      string                `json:"step_assembly,omitempty"`
	Routable          bool                  `json:"routable"`
	BoundHandler      *compiler.BuilderInfo `json:"bound_handler"`
	ExemplarStep      string                `json:"exemplar_step"`
	Steps             []ChecklistStep       `json:"steps"`
}

// UnknownVerbError reports a SageMaker step type outside the closed set.
type UnknownVerbError struct {
	Verb  string
	Valid []string
}

// Error implements error.
func (e *UnknownVerbError) Error() string {
	return fmt.Sprintf("unknown sagemaker_step_type %q (valid: %s)", e.Verb, strings.Join(e.Valid, ", "))
}

// Kind implements errkind.Kinded.
func (e *UnknownVerbError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the step type given and the valid ones.
func (e *UnknownVerbError) Details() map[string]any {
	return map[string]any{"sagemaker_step_type": e.Verb, "valid": e.Valid}
}

// BadAssemblyError reports a step_assembly the verb's builder does not take.
type BadAssemblyError struct {
	Verb, Assembly string
	Valid          []string
}

// Error implements error.
func (e *BadAssemblyError) Error() string {
	if len(e.Valid) == 0 {
		return fmt.Sprintf("step_assembly applies to Processing steps only, not %s", e.Verb)
	}
	return fmt.Sprintf("step_assembly %q is not one of %s for %s", e.Assembly, strings.Join(e.Valid, ", "), e.Verb)
}

// Kind implements errkind.Kinded.
func (e *BadAssemblyError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the assembly given and the verb's
// assemblies.
func (e *BadAssemblyError) Details() map[string]any {
	valid := e.Valid
	if valid == nil {
		valid = []string{}
	}
	return map[string]any{"step_assembly": e.Assembly, "valid": valid}
}

// Exemplar returns the catalog step to copy for a verb (and assembly): the
// verb's exemplar (catalog.VerbInfo.Exemplar) when the catalog has it, else the first step of that
// verb (and assembly) by name; "" when the catalog has none.
func Exemplar(cat *catalog.Catalog, v catalog.Verb, assembly string) string {
	fits := func(s *catalog.Step) bool {
		return s.Verb == v && (assembly == "" || s.Patterns.StepAssembly == assembly)
	}
	if vi, ok := catalog.VerbInfoOf(v); ok && vi.Exemplar != "" {
		if s, ok := cat.Step(vi.Exemplar); ok && fits(s) {
			return string(vi.Exemplar)
		}
	}
	for _, s := range cat.Steps() {
		if fits(s) {
			return string(s.Type)
		}
	}
	return ""
}

// NewChecklist returns the checklist for a verb. assembly applies to
// Processing only ("" = the default, code).
func NewChecklist(cat *catalog.Catalog, verb, assembly string) (*Checklist, error) {
	var v catalog.Verb
	for _, x := range catalog.Verbs {
		if string(x) == verb {
			v = x
		}
	}
	if v == "" {
		return nil, &UnknownVerbError{Verb: verb, Valid: verbs()}
	}
	b, routable := compiler.Builder(v)
	if assembly != "" {
		ok := false
		for _, a := range b.Assemblies {
			ok = ok || a == assembly
		}
		if !ok {
			return nil, &BadAssemblyError{Verb: verb, Assembly: assembly, Valid: b.Assemblies}
		}
	} else if v == catalog.VerbProcessing {
		assembly = "code"
	}
	cl := &Checklist{SageMakerStepType: verb, StepAssembly: assembly, Routable: routable}
	if routable {
		bb := b
		cl.BoundHandler = &bb
	}
	cl.ExemplarStep = Exemplar(cat, v, assembly)
	if cl.ExemplarStep == "" {
		cl.ExemplarStep = Exemplar(cat, v, "")
	}
	name := "<NewStep>"
	ws := "<workspace dir>"
	// author.scaffold_step writes a Processing step of the code assembly
	// (step file and script skeleton, consistent as written); any other
	// step file is written by hand from the exemplar's.
	write := struct {
		phase, action, tool string
		args                map[string]any
		also                []string
	}{"author", "Scaffold the step file " + ws + "/" + name + catalog.StepFileSuffix + " and its script skeleton with the ports the step reads and writes (both validate as written), then write the step's logic in the script's main(input_paths, output_paths, environ_vars, job_args)",
		"author.scaffold_step",
		map[string]any{"step_name": name, "workspace_dir": ws, "inputs": []any{map[string]any{"name": "<input port>"}}, "outputs": []any{map[string]any{"name": "<output port>"}}},
		[]string{"author.rules"}}
	if v != catalog.VerbProcessing || assembly != "code" {
		write.action = "Write the step file " + ws + "/" + name + catalog.StepFileSuffix + " (ports with container paths, contract env vars and job arguments, fields) starting from a copy of the exemplar's step file (catalog.step_info gives its path), and its script with main(input_paths, output_paths, environ_vars, job_args); author.scaffold_step scaffolds Processing steps of the code assembly only"
		write.tool = "catalog.step_info"
		write.args = map[string]any{"step_name": cl.ExemplarStep}
		write.also = []string{"author.rules", "steps.patterns"}
	}
	steps := []struct {
		phase, action, tool string
		args                map[string]any
		also                []string
	}{
		{"resolve", "Confirm the verb routes to a builder and read its knobs", "strategies.for_step_type",
			map[string]any{"sagemaker_step_type": verb, "step_assembly": assembly}, nil},
		{"resolve", "Read the naming rules and pick a PascalCase name that no catalog step uses", "author.rules", map[string]any{"topic": "naming"}, nil},
		{"author", "Study the exemplar's ports, construction patterns and config fields", "steps.io",
			map[string]any{"step_name": cl.ExemplarStep}, []string{"steps.patterns", "catalog.config_fields"}},
		write,
		{"validate", "Validate the step file: schema, invariants, registry parity", "validate.step_interface",
			map[string]any{"step_name": name, "workspace_dirs": []string{ws}}, nil},
		{"validate", "Check the script against the contract in both directions", "author.check_script",
			map[string]any{"step_name": name, "workspace_dirs": []string{ws}}, nil},
		{"preflight", "Prove the step is constructible: interface, parity, builder routability, resolvable ports", "author.preflight_step",
			map[string]any{"step_name": name, "workspace_dirs": []string{ws}}, nil},
		{"integrate", "Add the step to a DAG and config, then validate and compile", "compile.validate",
			map[string]any{"dag_file": "<dag.json>", "config_file": "<config.json>", "workspace_dirs": []string{ws}}, nil},
	}
	for i, s := range steps {
		cl.Steps = append(cl.Steps, ChecklistStep{Order: i + 1, Phase: s.phase, Action: s.action, Tool: s.tool, ArgsHint: s.args, SeeAlso: s.also})
	}
	return cl, nil
}

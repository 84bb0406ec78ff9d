package workflow

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/stages"
)

// ValuesFile is the answer file a stopped configure phase asks for:
// runs/<id>/values.json, {"base": {...}, "steps": {"<node>": {...}}}. It
// wins over the run's values argument.
const ValuesFile = "values.json"

// configure-pipeline variables.
const (
	varDAG          = "dag"            // DAG: the pipeline's nodes and edges
	varDAGFile      = "dag_file"       // where the DAG comes from (a seed phase sets it)
	varRunDAG       = "run_dag_file"   // runs/<id>/dag.json
	varSteps        = "node_steps"     // node -> canonical step type
	varClassMap     = "class_map"      // node -> config class
	varRequirements = "requirements"   // config.requirements data
	varFieldSets    = "field_sets"     // step type -> declared non-derived field names
	varMergeArgs    = "merge_args"     // {base, steps}: the values config.merge_save gets
	varPlaceholders = "placeholders"   // path -> placeholder value filled in
	varConfigFile   = "config_file"    // runs/<id>/config.json
	varGates        = "gates"          // gate name -> passed
	varWorkspace    = "workspace_dirs" // workspace directories of custom steps
	varSourceDir    = "source_dir"     // source_dir value for configs in the run folder
	varProjectDir   = "project_dir"    // the project folder, relative to the root
)

// MergeArgs are the values config.merge_save receives.
type MergeArgs struct {
	Base  map[string]any            `json:"base"`
	Steps map[string]map[string]any `json:"steps"`
}

func configurePipeline() *Workflow {
	return &Workflow{
		Name: "configure-pipeline",
		Description: "Produce a validated config.json for a DAG of known step types: map every node to its config class, read the constraints, " +
			"fill the values (arguments, then the run's values.json answer, then placeholders when asked), preflight every node's values, " +
			"write config.json with config.merge_save and check the whole graph (integrity, compile.validate, compile.preview, dependency resolution). " +
			"Shippable only when every gate ran and passed; done (ready to deploy) only when compile.validate also answers deployable and execution.run_local runs it to the end, else incomplete with each blocker named.",
		Args: []Arg{
			{Name: "dag", Type: "object", Description: "The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or wrapped in {\"dag\": ...}). Give one of dag, dag_file, project_dir."},
			{Name: "dag_file", Type: "string", Description: "A DAG file (dag.serialize or pipeline-catalog format), relative to the project root."},
			{Name: "project_dir", Type: "string", Description: "A project folder made by project.init: its pipeline_config/dag.json is configured and its scripts/ is the source directory."},
			{Name: "values", Type: "object", Description: "Config values: {\"base\": {field: value}, \"steps\": {\"<node>\": {field: value}}}; the run's values.json answer file wins over them."},
			{Name: "placeholders", Type: "boolean", Default: false, Description: "Fill essential fields nobody gave with valid placeholder values marked replace-me (listed in the outputs) instead of stopping for them."},
			{Name: "workspace_dirs", Type: "array", Description: "Directories of custom *.step.yaml files the DAG uses."},
		},
		Check: func(a map[string]any) []string {
			n := 0
			for _, k := range []string{"dag", "dag_file", "project_dir"} {
				if _, ok := a[k]; ok {
					n++
				}
			}
			if n != 1 {
				return []string{"give exactly one of dag, dag_file, project_dir"}
			}
			return nil
		},
		Phases: append(configurePhases(), readyPhase(func(s *Step) (string, string) {
			return s.Vars().String(varRunDAG), s.Vars().String(varConfigFile)
		})),
		Result: configureOutputs,
		Ready:  pipelineReady,
	}
}

func configurePhases() []Phase {
	return []Phase{
		{
			Name: "map", Title: "Map nodes to configs", Stage: "configure",
			Detail:   "Read the DAG, write it to runs/<id>/dag.json, resolve every node to its step type and config class and read the field requirements of each.",
			Gate:     "every node resolves to a step type with a config class (no pending steps)",
			Tools:    []string{"dag.deserialize", "dag.serialize", "catalog.resolve_step", "config.requirements"},
			Judgment: "nodes whose step type does not exist yet must be authored (author-step) or renamed",
			Run:      phaseMap,
		},
		{
			Name: "constrain", Title: "Read the constraints", Stage: "configure",
			Detail: "author.config_constraints for every step type of the DAG: the fields of its config class and their legal values.",
			Gate:   "every step type's constraints are known",
			Tools:  []string{"author.config_constraints"},
			Run:    phaseConstrain,
		},
		{
			Name: "values", Title: "Fill the values", Stage: "configure",
			Detail:   "Start from config.template (defaults), add the values argument, then the run's values.json answer; fill remaining essential fields with placeholders when asked.",
			Gate:     "every essential field has a value",
			Tools:    []string{"config.template"},
			Judgment: "essential fields (role, bucket, data sources, ...) nobody gave need real values: write them to runs/<id>/values.json",
			Run:      phaseValues,
		},
		{
			Name: "preflight", Title: "Preflight every node", Stage: "configure",
			Detail: "author.preflight_config on every node with the values it will get (base fields its class declares, plus its own).",
			Gate:   "every node's values are valid for its config class",
			Tools:  []string{"author.preflight_config"},
			Run:    phasePreflight,
		},
		{
			Name: "generate", Title: "Write config.json", Stage: "configure",
			Detail: "config.merge_save writes runs/<id>/config.json; config.load reads it back.",
			Gate:   "config.json is written and every value in it is valid",
			Tools:  []string{"config.merge_save", "config.load"},
			Run:    phaseGenerate,
		},
		{
			Name: "dag-check", Title: "Check the whole graph", Stage: "validate",
			Detail: "dag.validate_integrity, compile.validate, compile.preview and validate.deps_resolve on the DAG and config.json; each answer is kept in reports/.",
			Gate:   "the DAG has no integrity issue, compile.validate is valid, no node resolves ambiguously, dependency resolution runs",
			Tools:  []string{"dag.validate_integrity", "compile.validate", "compile.preview", "validate.deps_resolve"},
			Run:    phaseDAGCheck,
		},
		{
			Name: "synthesize", Title: "Synthesize", Stage: "validate",
			Detail: "Re-read the recorded gates: shippable only when every gate ran and passed; list the placeholders still to replace.",
			Gate:   "every earlier gate of the run is recorded as passed",
			Run:    phaseSynthesize,
		},
	}
}

// dagSource picks where the DAG comes from: a variable set by an earlier
// phase (new-project's seed), else the arguments.
func dagSource(ctx context.Context, s *Step) (DAG, string, error) {
	if f := s.Vars().String(varDAGFile); f != "" {
		d, err := loadDAGFile(ctx, s, f)
		return d, f, err
	}
	if v, ok := s.Args()["dag"]; ok {
		d, err := dagFromValue(v)
		if err != nil {
			return DAG{}, "", &GateFailure{Code: envelope.CodeInvalidInput, Message: err.Error()}
		}
		return d, "", nil
	}
	if f := s.ArgString("dag_file"); f != "" {
		d, err := loadDAGFile(ctx, s, f)
		return d, f, err
	}
	if p := s.ArgString("project_dir"); p != "" {
		f := strings.TrimSuffix(p, "/") + "/pipeline_config/dag.json"
		d, err := loadDAGFile(ctx, s, f)
		return d, f, err
	}
	return DAG{}, "", &GateFailure{Code: envelope.CodeInvalidInput, Message: "no DAG: give dag, dag_file or project_dir"}
}

func workspaceDirs(s *Step) []string {
	var out []string
	if s.Vars().Get(varWorkspace, &out) && len(out) > 0 {
		return out
	}
	if v, ok := s.Args()["workspace_dirs"]; ok {
		return stringsOf(v)
	}
	if p := s.ArgString("project_dir"); p != "" {
		if s.FS().IsDir(s.Abs(strings.TrimSuffix(p, "/") + "/steps")) {
			return []string{strings.TrimSuffix(p, "/") + "/steps"}
		}
	}
	return nil
}

func withWorkspace(s *Step, tool string, args map[string]any) map[string]any {
	if ws := workspaceDirs(s); len(ws) > 0 && acceptsArg(s, tool, "workspace_dirs") {
		list := make([]any, len(ws))
		for i, w := range ws {
			list[i] = s.Abs(w)
		}
		args["workspace_dirs"] = list
	}
	return args
}

func phaseMap(ctx context.Context, s *Step) error {
	d, from, err := dagSource(ctx, s)
	if err != nil {
		return err
	}
	if len(d.Nodes) == 0 {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: "the DAG has no nodes"}
	}
	runDAG := s.RunPath(stages.DAGFile)
	meta := map[string]any{"workflow_run": s.RunID()}
	if from != "" {
		meta["source"] = from
	}
	if err := saveDAG(ctx, s, d, runDAG, meta); err != nil {
		return err
	}
	if err := copyWorkspaceSteps(s); err != nil {
		return err
	}
	steps := map[string]string{}
	for _, n := range d.Nodes {
		resp, err := s.Call(ctx, "catalog.resolve_step", withWorkspace(s, "catalog.resolve_step", map[string]any{"step_name": n}))
		if err != nil {
			return err
		}
		var rs struct {
			Canonical string `json:"canonical_name"`
		}
		if !resp.OK || resp.Decode(&rs) != nil || rs.Canonical == "" {
			continue // config.requirements reports it pending
		}
		steps[n] = rs.Canonical
	}
	reqArgs := withWorkspace(s, "config.requirements", map[string]any{"dag": d.object()})
	resp, err := s.Require(ctx, "config.requirements", reqArgs)
	if err != nil {
		return err
	}
	var answer struct {
		config.Requirements
		// Classes is each config class's fields, once per class: the
		// nodes' are their classes' (config_class_map).
		Classes map[string][]config.Requirement `json:"class_requirements"`
	}
	if err := resp.Decode(&answer); err != nil {
		return Gate("config.requirements", resp, "unexpected answer: %v", err)
	}
	req := answer.Requirements
	if req.Steps == nil {
		req.Steps = map[catalog.NodeName][]config.Requirement{}
	}
	for n, class := range req.ConfigClassMap {
		if fs, ok := answer.Classes[class]; ok {
			req.Steps[n] = fs
		}
	}
	if err := s.Report("config.requirements", reqArgs, resp); err != nil {
		return err
	}
	if err := firstError(s.Set(varDAG, d), s.Set(varRunDAG, runDAG), s.Set(varSteps, steps), s.Set(varClassMap, req.ConfigClassMap), s.Set(varRequirements, req)); err != nil {
		return err
	}
	s.Summary("nodes", len(d.Nodes))
	s.Summary("config_classes", req.ConfigClassMap)
	if len(req.Pending) > 0 {
		pending := make([]string, len(req.Pending))
		for i, n := range req.Pending {
			pending[i] = string(n)
		}
		sort.Strings(pending)
		calls := []ToolCall{}
		for _, n := range pending {
			calls = append(calls, ToolCall{Tool: "catalog.search", Args: map[string]any{"query": n}, Why: "find the step type " + n + " may mean"})
		}
		calls = append(calls, ToolCall{Command: "cursus workflow run author-step --args '{\"producer\": \"<upstream node>\", \"consumer\": \"<downstream node>\", \"step_name\": \"<NewStep>\"}'",
			Why: "author a new step type for a node that needs one"})
		return &Judgment{
			Reason: fmt.Sprintf("%d node(s) have no config class: %s", len(pending), strings.Join(pending, ", ")),
			ActionItems: []string{
				"for each pending node, either rename it to a step type the catalog knows (catalog.search) or author the step type (the author-step workflow, then pass its workspace in workspace_dirs)",
				"fix the DAG source (" + cmp.Or(from, "the dag argument") + ") and resume this run",
			},
			ToolCalls: calls,
		}
	}
	for _, n := range d.Nodes {
		if _, ok := steps[n]; !ok {
			// A workspace step the catalog tool cannot see: take the class name.
			steps[n] = strings.TrimSuffix(req.ConfigClassMap[catalog.NodeName(n)], "Config")
		}
	}
	return s.Set(varSteps, steps)
}

// copyWorkspaceSteps copies the step files of the run's workspaces into
// runs/<id>/steps/, so the run folder holds every step type its DAG names
// (the guided stages read a run's custom steps from there).
func copyWorkspaceSteps(s *Step) error {
	for _, ws := range workspaceDirs(s) {
		ents, err := s.FS().ReadDir(s.Abs(ws))
		if err != nil {
			continue // the tools report a workspace they cannot read
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".step.yaml") {
				continue
			}
			b, err := s.FS().ReadFile(s.Abs(ws+"/"+e.Name()), safefs.KindDocument)
			if err != nil {
				return err
			}
			if err := s.WriteFile(s.RunPath(stages.StepsDir, e.Name()), b); err != nil {
				return err
			}
		}
	}
	return nil
}

func phaseConstrain(ctx context.Context, s *Step) error {
	var steps map[string]string
	s.Vars().Get(varSteps, &steps)
	types := map[string]bool{}
	for _, t := range steps {
		types[t] = true
	}
	fieldSets := map[string][]string{}
	for _, t := range slices.Sorted(maps.Keys(types)) {
		args := withWorkspace(s, "author.config_constraints", map[string]any{"step_name": t})
		resp, err := s.RequireAndReport(ctx, "author.config_constraints", args, t)
		if err != nil {
			return err
		}
		c, err := dataAs[author.Constraints](resp)
		if err != nil {
			return Gate("author.config_constraints", resp, "unexpected answer: %v", err)
		}
		names := make([]string, 0, len(c.Fields))
		for _, f := range c.Fields {
			names = append(names, f.Name)
		}
		fieldSets[t] = names
	}
	s.Summary("step_types", len(fieldSets))
	return s.Set(varFieldSets, fieldSets)
}

func phaseValues(ctx context.Context, s *Step) error {
	var d DAG
	s.Vars().Get(varDAG, &d)
	resp, err := s.Require(ctx, "config.template", withWorkspace(s, "config.template", map[string]any{"dag": d.object()}))
	if err != nil {
		return err
	}
	var tpl struct {
		MergeSaveArgs MergeArgs `json:"merge_save_args"`
		Essential     []string  `json:"essential_fields"`
	}
	if err := resp.Decode(&tpl); err != nil {
		return Gate("config.template", resp, "unexpected answer: %v", err)
	}
	m := tpl.MergeSaveArgs
	if m.Base == nil {
		m.Base = map[string]any{}
	}
	if m.Steps == nil {
		m.Steps = map[string]map[string]any{}
	}
	sources := map[string]string{}
	overlay := func(v map[string]any, source string) {
		if b, ok := v["base"].(map[string]any); ok {
			for k, x := range b {
				m.Base[k] = x
				sources["base."+k] = source
			}
		}
		if st, ok := v["steps"].(map[string]any); ok {
			for n, vals := range st {
				obj, ok := vals.(map[string]any)
				if !ok {
					continue
				}
				if m.Steps[n] == nil {
					m.Steps[n] = map[string]any{}
				}
				for k, x := range obj {
					m.Steps[n][k] = x
					sources[n+"."+k] = source
				}
			}
		}
	}
	// Values a workflow knows (the project folder, source directory, region).
	var known map[string]any
	if s.Vars().Get("known_values", &known) {
		overlay(known, "workflow")
	}
	if sd := s.Vars().String(varSourceDir); sd != "" {
		m.Base["source_dir"] = sd
		sources["base.source_dir"] = "workflow"
	} else if p := s.ArgString("project_dir"); p != "" {
		m.Base["source_dir"] = relFrom(s.RunPath(), strings.TrimSuffix(p, "/")+"/scripts")
		sources["base.source_dir"] = "workflow"
	}
	if v := s.ArgObject("values"); v != nil {
		overlay(v, "args")
	}
	answers := s.RunPath(ValuesFile)
	if _, err := s.ReadAnswer(answers, func(b []byte) error {
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			return &GateFailure{Code: envelope.CodeInvalidInput, Message: fmt.Sprintf("%s is not a JSON object: %v", answers, err),
				Remedy: "write {\"base\": {...}, \"steps\": {\"<node>\": {...}}} to " + answers}
		}
		overlay(v, "values.json")
		return nil
	}); err != nil {
		return err
	}
	blank := func(path string) bool {
		node, field, _ := strings.Cut(path, ".")
		if node == "base" {
			return m.Base[field] == nil
		}
		if v, ok := m.Steps[node][field]; ok && v != nil {
			return false
		}
		// A base value reaches every config that declares the field.
		return m.Base[field] == nil
	}
	var missing []string
	for _, p := range tpl.Essential {
		if blank(p) {
			missing = append(missing, p)
		}
	}
	placeholders := map[string]any{}
	if len(missing) > 0 && s.ArgBool("placeholders") {
		fields := requirementFields(s)
		var still []string
		for _, p := range missing {
			node, field, _ := strings.Cut(p, ".")
			f, ok := fields[p]
			if !ok {
				f, ok = fields["base."+field]
			}
			v, ok2 := placeholder(f)
			if !ok || !ok2 {
				still = append(still, p)
				continue
			}
			if node == "base" {
				m.Base[field] = v
			} else {
				if m.Steps[node] == nil {
					m.Steps[node] = map[string]any{}
				}
				m.Steps[node][field] = v
			}
			placeholders[p] = v
			sources[p] = "placeholder"
		}
		missing = still
	}
	// Values given as placeholders by anyone are listed too.
	for _, k := range slices.Sorted(maps.Keys(m.Base)) {
		if isPlaceholder(m.Base[k]) {
			placeholders["base."+k] = m.Base[k]
		}
	}
	for _, n := range slices.Sorted(maps.Keys(m.Steps)) {
		for _, k := range slices.Sorted(maps.Keys(m.Steps[n])) {
			if isPlaceholder(m.Steps[n][k]) {
				placeholders[n+"."+k] = m.Steps[n][k]
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		example := map[string]any{"base": map[string]any{}, "steps": map[string]any{}}
		for _, p := range missing {
			node, field, _ := strings.Cut(p, ".")
			if node == "base" {
				example["base"].(map[string]any)[field] = "<value>"
			} else {
				st := example["steps"].(map[string]any)
				if st[node] == nil {
					st[node] = map[string]any{}
				}
				st[node].(map[string]any)[field] = "<value>"
			}
		}
		return &Judgment{
			Reason: fmt.Sprintf("%d essential field(s) have no value: %s", len(missing), strings.Join(missing, ", ")),
			ActionItems: []string{
				"decide a real value for each field listed (config.requirements describes each: type, allowed values, pattern)",
				"write them to " + answers + " as " + mustJSON(example),
				"resume the run; the values are checked by author.preflight_config and config.merge_save",
			},
			ToolCalls: []ToolCall{
				{Tool: "config.requirements", Args: map[string]any{"dag": d.object()}, Why: "the type, allowed values and description of every field"},
				{Command: "cursus workflow run " + s.r.w.Name + " --resume " + s.RunID(), Why: "continue once " + answers + " is written"},
			},
			Files: []string{answers},
		}
	}
	clean := MergeArgs{Base: dropNulls(m.Base), Steps: map[string]map[string]any{}}
	for n, v := range m.Steps {
		clean.Steps[n] = dropNulls(v)
	}
	if err := s.Set(varMergeArgs, clean); err != nil {
		return err
	}
	if err := s.Set(varPlaceholders, placeholders); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(map[string]any{"base": clean.Base, "steps": clean.Steps, "sources": sources, "placeholders": placeholders}, "", "  ")
	if err := s.WriteFile(s.RunPath("config.values.json"), append(b, '\n')); err != nil {
		return err
	}
	s.Summary("essential_fields", len(tpl.Essential))
	s.Summary("placeholders", len(placeholders))
	if len(placeholders) > 0 {
		s.Warn("%d config value(s) are placeholders to replace before deploying: %s", len(placeholders), strings.Join(slices.Sorted(maps.Keys(placeholders)), ", "))
	}
	return nil
}

// requirementFields indexes config.requirements by "base.<field>" and
// "<node>.<field>".
func requirementFields(s *Step) map[string]config.Requirement {
	var req config.Requirements
	out := map[string]config.Requirement{}
	if !s.Vars().Get(varRequirements, &req) {
		return out
	}
	for _, f := range append(req.Base, req.BaseProcessing...) {
		out["base."+f.Name] = f
	}
	for n, fs := range req.Steps {
		for _, f := range fs {
			out[string(n)+"."+f.Name] = f
		}
	}
	return out
}

func dropNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

func phasePreflight(ctx context.Context, s *Step) error {
	var d DAG
	var steps map[string]string
	var fieldSets map[string][]string
	var m MergeArgs
	s.Vars().Get(varDAG, &d)
	s.Vars().Get(varSteps, &steps)
	s.Vars().Get(varFieldSets, &fieldSets)
	s.Vars().Get(varMergeArgs, &m)
	checked := 0
	for _, n := range d.Nodes {
		declared := map[string]bool{}
		for _, f := range fieldSets[steps[n]] {
			declared[f] = true
		}
		values := map[string]any{}
		for k, v := range m.Base {
			if declared[k] {
				values[k] = v
			}
		}
		for k, v := range m.Steps[n] {
			values[k] = v
		}
		args := withWorkspace(s, "author.preflight_config", map[string]any{"step_name": steps[n], "values": values})
		resp, err := s.Call(ctx, "author.preflight_config", args)
		if err != nil {
			return err
		}
		if err := s.Report("author.preflight_config", args, resp, n); err != nil {
			return err
		}
		checked++
		if !resp.OK {
			return &GateFailure{Tool: "author.preflight_config", Code: resp.Code, Message: fmt.Sprintf("node %s: %s", n, resp.Error), Envelope: resp.Envelope,
				Remedy: "write the corrected values of the fields named in the envelope's meta.details.errors to " + s.RunPath(ValuesFile) +
					" ({\"base\": {...}, \"steps\": {\"<node>\": {...}}}; it wins over the run's arguments) and resume"}
		}
	}
	s.Summary("nodes_checked", checked)
	return nil
}

func phaseGenerate(ctx context.Context, s *Step) error {
	var d DAG
	var m MergeArgs
	s.Vars().Get(varDAG, &d)
	s.Vars().Get(varMergeArgs, &m)
	out := s.RunPath(stages.ConfigFile)
	steps := map[string]any{}
	for n, v := range m.Steps {
		steps[n] = v
	}
	resp, err := s.Require(ctx, "config.merge_save", withWorkspace(s, "config.merge_save",
		map[string]any{"dag": d.object(), "base": m.Base, "steps": steps, "output_file": s.Abs(out)}))
	if err != nil {
		return err
	}
	if err := s.Record(out); err != nil {
		return err
	}
	load, err := s.Require(ctx, "config.load", withWorkspace(s, "config.load", map[string]any{"config_file": s.Abs(out)}))
	if err != nil {
		return err
	}
	var l struct {
		Valid     *bool `json:"valid"`
		StepCount int   `json:"step_count"`
	}
	if err := load.Decode(&l); err != nil {
		return Gate("config.load", load, "unexpected answer: %v", err)
	}
	if l.Valid != nil && !*l.Valid {
		return Gate("config.load", load, "config.json was written but config.load finds invalid values")
	}
	if l.StepCount != len(d.Nodes) {
		return Gate("config.load", load, "config.json holds %d configs for %d nodes", l.StepCount, len(d.Nodes))
	}
	_ = resp
	s.Summary("config_file", out)
	return s.Set(varConfigFile, out)
}

func phaseDAGCheck(ctx context.Context, s *Step) error {
	var d DAG
	s.Vars().Get(varDAG, &d)
	dagFile := s.Vars().String(varRunDAG)
	cfg := s.Vars().String(varConfigFile)
	gates := map[string]bool{}
	// Integrity.
	integ, iv, err := validateIntegrity(ctx, s, d)
	if err != nil {
		return err
	}
	if !iv.IsValid && !onlyWorkspaceSteps(s, iv.Issues) {
		return Gate("dag.validate_integrity", integ, "the DAG has integrity issues: %s", strings.Join(slices.Sorted(maps.Keys(iv.Issues)), ", "))
	}
	if !iv.IsValid {
		s.Warn("dag.validate_integrity reports missing_steps for nodes of the workspace (%s), which it cannot see; catalog.resolve_step found them there", strings.Join(workspaceDirs(s), ", "))
	}
	gates["dag.validate_integrity"] = true
	// compile.validate.
	fileArgs := withWorkspace(s, "compile.validate", map[string]any{"dag_file": s.Abs(dagFile), "config_file": s.Abs(cfg)})
	cv, vr, err := compileValidate(ctx, s, fileArgs)
	if err != nil {
		return err
	}
	if !vr.IsValid {
		return Gate("compile.validate", cv, "compile.validate: %s", cmp.Or(vr.Summary, "not valid"))
	}
	gates["compile.validate"] = true
	// compile.preview.
	pv, err := s.RequireAndReport(ctx, "compile.preview", fileArgs)
	if err != nil {
		return err
	}
	pr, err := dataAs[compiler.Preview](pv)
	if err != nil {
		return Gate("compile.preview", pv, "unexpected answer: %v", err)
	}
	if len(pr.AmbiguousResolutions) > 0 {
		return Gate("compile.preview", pv, "%d node(s) resolve to a config ambiguously", len(pr.AmbiguousResolutions))
	}
	gates["compile.preview"] = true
	// Dependency resolution along the edges.
	drArgs := withWorkspace(s, "validate.deps_resolve", map[string]any{"dag_file": s.Abs(dagFile)})
	if _, err := s.RequireAndReport(ctx, "validate.deps_resolve", drArgs); err != nil {
		return err
	}
	gates["validate.deps_resolve"] = true
	for _, w := range cv.Warnings {
		s.Warn("%s", w)
	}
	s.Summary("gates", gates)
	return s.Set(varGates, gates)
}

// onlyWorkspaceSteps reports whether the integrity issues are only
// missing_steps naming nodes the map phase resolved with the workspace (a
// project's own steps, which dag.validate_integrity does not load).
func onlyWorkspaceSteps(s *Step, issues map[string][]string) bool {
	if len(issues) != 1 || len(issues["missing_steps"]) == 0 || len(workspaceDirs(s)) == 0 {
		return false
	}
	var steps map[string]string
	s.Vars().Get(varSteps, &steps)
	for _, msg := range issues["missing_steps"] {
		found := false
		for n := range steps {
			if strings.Contains(msg, "'"+n+"'") {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// configureGates are the gates configure-pipeline's synthesis requires,
// with the phase that records each.
var configureGates = []struct{ Gate, Phase string }{
	{"config.requirements", "map"},
	{"author.config_constraints", "constrain"},
	{"author.preflight_config", "preflight"},
	{"config.merge_save", "generate"},
	{"dag.validate_integrity", "dag-check"},
	{"compile.validate", "dag-check"},
	{"compile.preview", "dag-check"},
	{"validate.deps_resolve", "dag-check"},
}

func phaseSynthesize(_ context.Context, s *Step) error {
	prefix := ""
	if i := strings.LastIndex(s.phase.Name, "/"); i >= 0 {
		prefix = s.phase.Name[:i+1]
	}
	status := map[string]*PhaseState{}
	for i := range s.r.st.Phases {
		status[s.r.st.Phases[i].Name] = &s.r.st.Phases[i]
	}
	var gates []map[string]any
	var notPassed []string
	for _, g := range configureGates {
		ps := status[prefix+g.Phase]
		ran, passed := false, false
		if ps != nil {
			for _, c := range ps.Calls {
				if c.Tool == g.Gate && c.Status == "done" {
					ran = true
					passed = c.OK
				}
			}
			passed = passed && ps.Status == PhasePassed
		}
		if !ran || !passed {
			notPassed = append(notPassed, g.Gate)
		}
		gates = append(gates, map[string]any{"gate": g.Gate, "phase": prefix + g.Phase, "ran": ran, "passed": passed})
	}
	var placeholders map[string]any
	s.Vars().Get(varPlaceholders, &placeholders)
	shippable := len(notPassed) == 0
	summary := map[string]any{
		"shippable": shippable, "gates": gates, "placeholders": placeholders,
		"config_file": s.Vars().String(varConfigFile), "dag_file": s.Vars().String(varRunDAG),
	}
	s.Summary("report", summary)
	if err := s.Set("shippable", shippable); err != nil {
		return err
	}
	if !shippable {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: "not shippable: gates that did not run or pass: " + strings.Join(notPassed, ", ")}
	}
	s.Summary("shippable", true)
	return nil
}

func configureOutputs(v Vars) map[string]any {
	var placeholders map[string]any
	v.Get(varPlaceholders, &placeholders)
	var gates map[string]bool
	v.Get(varGates, &gates)
	shippable := false
	v.Get("shippable", &shippable)
	return readyOutputs(v, map[string]any{
		"dag_file": v.String(varRunDAG), "config_file": v.String(varConfigFile),
		"shippable": shippable, "placeholders": placeholders,
	})
}

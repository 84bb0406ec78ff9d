package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/stages"
)

// ChoiceFile is the answer file of new-project's seed phase:
// runs/<id>/dag_choice.json, {"dag_id": "<catalog id>"} or
// {"dag_file": "<path of a DAG file>"}.
const ChoiceFile = "dag_choice.json"

// DefinitionFile is the compiled definition in a run folder (the guided
// stages' file of the same name).
const DefinitionFile = stages.DefinitionFile

// new-project variables.
const (
	varDAGID      = "dag_id"
	varDefinition = "definition_file"
)

func newProject() *Workflow {
	args := projectArgs()
	args = append(args,
		Arg{Name: "region", Type: "string", Default: "NA", Description: "AWS region of the pipeline (us-west-2, eu-central-1, ...) or a region code (NA us-east-1, EU eu-west-1, FE us-west-2)."},
		Arg{Name: "dag_source", Type: "string", Default: "catalog", Enum: []string{"catalog", "manual"}, Description: "catalog: seed the DAG from the shared pipeline catalog; manual: stop and let a person choose or write it."},
		Arg{Name: "dag_id", Type: "string", Description: "A pipeline-catalog DAG id to use instead of the recommendation."},
		Arg{Name: "need", Type: "string", Description: "What the pipeline must do, in words (e.g. \"calibration and registration\"), for the recommendation; when two DAGs fit it equally the run stops for a choice."},
		Arg{Name: "data_type", Type: "string", Default: "tabular", Enum: []string{"tabular", "text", "mixed"}, Description: "Kind of input data, for the recommendation."},
		Arg{Name: "data_source", Type: "string", Enum: []string{"s3", "athena", "redshift", "cradle"}, Description: "Where the data lives, for the recommendation: a DAG that loads through the managed data service (cradle) is left out unless asked for. Omitted: read from an s3:// URI in need, else unknown."},
		Arg{Name: "values", Type: "object", Description: "Config values: {\"base\": {field: value}, \"steps\": {\"<node>\": {field: value}}}."},
		Arg{Name: "placeholders", Type: "boolean", Default: true, Description: "Fill essential config values nobody gave with valid placeholders marked replace-me (listed in the outputs and in runs/<id>/ACTION_ITEMS.md) instead of stopping for them."},
	)
	phases := nested(initProject())
	phases = append(phases,
		Phase{
			Name: "seed-dag", Title: "Seed the DAG", Stage: "plan",
			Detail:   "dag_id, or the top pipeline_catalog.recommend match for the framework (and need), loaded with pipeline_catalog.load_dag and written to the project's pipeline_config/dag.json with dag.serialize.",
			Gate:     "a catalog DAG (or a chosen DAG file) with at least one node is written to the project",
			Tools:    []string{"pipeline_catalog.recommend", "pipeline_catalog.load_dag", "dag.deserialize", "dag.serialize"},
			Judgment: "dag_source manual, no recommendation, or two DAGs that fit the need equally: choose one in runs/<id>/" + ChoiceFile,
			Run:      phaseSeedDAG,
		},
		Phase{
			Name: "gate-dag", Title: "Gate the DAG", Stage: "plan",
			Detail: "dag.validate_integrity on the seeded DAG.",
			Gate:   "the DAG is non-empty and dag.validate_integrity reports is_valid",
			Tools:  []string{"dag.validate_integrity"},
			Run:    phaseGateDAG,
		},
	)
	// configure-pipeline's own readiness check judges the run's files; the
	// project's are judged once they are published.
	for _, p := range nested(configurePipeline()) {
		if p.Name != "configure-pipeline/ready" {
			phases = append(phases, p)
		}
	}
	phases = append(phases,
		Phase{
			Name: "compile", Title: "Compile the definition", Stage: "compile",
			Detail: "compile.definition on the run's dag.json and config.json; the definition is written to runs/<id>/" + DefinitionFile + ".",
			Gate:   "compile.definition succeeds with one step per node",
			Tools:  []string{"compile.definition"},
			Run:    phaseCompile,
		},
		Phase{
			Name: "publish", Title: "Publish to the project", Stage: "compile",
			Detail: "Write the same values to the project's pipeline_config/config.json (config.merge_save, source_dir scripts) and check the project compiles on its own (compile.validate on its dag.json and config.json).",
			Gate:   "the project's config.json is written and compile.validate on the project's files is valid",
			Tools:  []string{"config.merge_save", "compile.validate"},
			Run:    phasePublish,
		},
		readyPhase(func(s *Step) (string, string) {
			return s.Vars().String(varDAGFile), s.Vars().String(varProjectConfig)
		}),
	)
	return &Workflow{
		Name: "new-project",
		Description: "End-to-end bring-up from an empty folder: init-project (scaffold, ledger, verify), seed the DAG from the pipeline catalog, " +
			"gate it, configure-pipeline (values, preflight, config.json, whole-graph checks) and compile.definition, writing the " +
			"SageMaker definition to runs/<id>/" + DefinitionFile + ", then judge the project's files: done (ready to deploy) only when " +
			"compile.validate answers deployable and execution.run_local runs them to the end, else incomplete with each blocker named.",
		Args:   args,
		Phases: phases,
		Result: newProjectOutputs,
		Ready:  pipelineReady,
	}
}

func phaseSeedDAG(ctx context.Context, s *Step) error {
	projDir := s.Vars().String(varProjectDir)
	target := s.Vars().String(varProjectDAG)
	choicePath := s.RunPath(ChoiceFile)
	var choice struct {
		DAGID   string `json:"dag_id"`
		DAGFile string `json:"dag_file"`
	}
	hasChoice, err := s.ReadAnswer(choicePath, func(b []byte) error {
		if err := json.Unmarshal(b, &choice); err != nil || (choice.DAGID == "" && choice.DAGFile == "") {
			return &GateFailure{Code: envelope.CodeInvalidInput, Message: fmt.Sprintf("%s must be {\"dag_id\": ...} or {\"dag_file\": ...}", choicePath)}
		}
		return nil
	})
	if err != nil {
		return err
	}
	dagID := s.ArgString("dag_id")
	if hasChoice {
		dagID = choice.DAGID
	}
	var d DAG
	source := map[string]any{}
	switch {
	case hasChoice && choice.DAGFile != "":
		loaded, err := loadDAGFile(ctx, s, choice.DAGFile)
		if err != nil {
			return err
		}
		d = loaded
		source["source"] = choice.DAGFile
	case dagID == "" && s.ArgString("dag_source") == "manual":
		return &Judgment{
			Reason: "dag_source is manual: the DAG is chosen by a person",
			ActionItems: []string{
				"pick a DAG: a pipeline-catalog id (pipeline_catalog.list, pipeline_catalog.get_dag), or write your own DAG file (dag.serialize), e.g. by editing " + target,
				"write " + choicePath + " as {\"dag_id\": \"<id>\"} or {\"dag_file\": \"<path>\"}",
				"resume the run; the DAG is gated by dag.validate_integrity",
			},
			ToolCalls: []ToolCall{
				{Tool: "pipeline_catalog.list", Args: map[string]any{"framework": s.ArgString("framework")}, Why: "the catalog DAGs of the framework"},
				{Tool: "dag.deserialize", Args: map[string]any{"dag_file": s.Abs(target)}, Why: "the project's scaffolded default DAG, a starting point"},
				{Command: "cursus workflow run new-project --resume " + s.RunID(), Why: "continue once " + choicePath + " is written"},
			},
			Files: []string{choicePath},
		}
	default:
		if dagID == "" {
			args := map[string]any{"framework": s.ArgString("framework"), "data_type": s.ArgString("data_type"), "max_results": 5}
			if need := s.ArgString("need"); need != "" {
				args["need"] = need
			}
			if src := s.ArgString("data_source"); src != "" {
				args["data_source"] = src
			}
			resp, err := s.RequireAndReport(ctx, "pipeline_catalog.recommend", args)
			if err != nil {
				return err
			}
			var rec struct {
				Recommendations []struct {
					DagID     string  `json:"dag_id"`
					Score     float64 `json:"score"`
					NeedMatch float64 `json:"need_match"`
				} `json:"recommendations"`
			}
			if err := resp.Decode(&rec); err != nil {
				return Gate("pipeline_catalog.recommend", resp, "unexpected answer: %v", err)
			}
			if len(rec.Recommendations) == 0 {
				return &Judgment{
					Reason:      "the pipeline catalog has no DAG for these requirements",
					ActionItems: []string{"choose a catalog DAG or write one, then write " + choicePath + " as {\"dag_id\": ...} or {\"dag_file\": ...}", "resume the run"},
					ToolCalls: []ToolCall{
						{Tool: "pipeline_catalog.list", Args: map[string]any{}, Why: "every catalog DAG"},
						{Command: "cursus workflow run new-project --resume " + s.RunID(), Why: "continue once " + choicePath + " is written"},
					},
					Files: []string{choicePath},
				}
			}
			top := rec.Recommendations[0]
			if s.ArgString("need") != "" && len(rec.Recommendations) > 1 {
				second := rec.Recommendations[1]
				if second.Score == top.Score && second.NeedMatch == top.NeedMatch && top.NeedMatch < 1 {
					return &Judgment{
						Reason: fmt.Sprintf("two DAGs fit the need equally (score %.3g, need match %.3g): %s and %s", top.Score, top.NeedMatch, top.DagID, second.DagID),
						ActionItems: []string{
							"compare the two (pipeline_catalog.get_dag on each: nodes, cost, when to use)",
							"write " + choicePath + " as {\"dag_id\": \"<the one you choose>\"}",
							"resume the run",
						},
						ToolCalls: []ToolCall{
							{Tool: "pipeline_catalog.get_dag", Args: map[string]any{"dag_id": top.DagID}, Why: "the first candidate"},
							{Tool: "pipeline_catalog.get_dag", Args: map[string]any{"dag_id": second.DagID}, Why: "the second candidate"},
							{Command: "cursus workflow run new-project --resume " + s.RunID(), Why: "continue once " + choicePath + " is written"},
						},
						Files: []string{choicePath},
					}
				}
			}
			dagID = top.DagID
			s.Summary("recommended", dagID)
		}
		args := map[string]any{"dag_id": dagID}
		resp, err := s.Require(ctx, "pipeline_catalog.load_dag", args)
		if err != nil {
			return err
		}
		if err := resp.Decode(&d); err != nil {
			return Gate("pipeline_catalog.load_dag", resp, "unexpected answer: %v", err)
		}
		source["source"] = "pipeline_catalog"
		source["dag_id"] = dagID
		if err := s.Set(varDAGID, dagID); err != nil {
			return err
		}
	}
	if len(d.Nodes) == 0 {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: "the chosen DAG has no nodes"}
	}
	// A catalog DAG knows nothing of the project's own step: put it where
	// the scaffold has it, or keep the scaffold's DAG.
	custom := stringsVar(s, varCustomSteps)
	if source["source"] == "pipeline_catalog" && len(custom) > 0 {
		scaffold, err := loadDAGFile(ctx, s, target)
		if err != nil {
			return err
		}
		if spliced, ok := spliceCustomSteps(d, scaffold, custom); ok {
			d = spliced
			source["custom_steps"] = custom
		} else {
			s.Warn("the catalog's %s has no place for the project's own step %s (its neighbours in the scaffold are not in it): the scaffold's DAG is kept",
				dagID, strings.Join(custom, ", "))
			d = scaffold
			source = map[string]any{"source": "project.init", "recommended_dag_id": dagID}
			if err := s.Set(varDAGID, ""); err != nil {
				return err
			}
		}
	}
	if err := saveDAG(ctx, s, d, target, source); err != nil {
		return err
	}
	if err := redrawReadme(s, path.Join(projDir, "README.md"), d); err != nil {
		return err
	}
	// What configure-pipeline needs to know about the project.
	known := map[string]any{"base": map[string]any{
		"project_root_folder": path.Base(projDir),
		"region":              s.ArgString("region"),
	}}
	if err := firstError(
		s.Set(varDAGFile, target), s.Set("known_values", known),
		s.Set(varSourceDir, relFrom(s.RunPath(), s.Vars().String(varScriptsDir))),
	); err != nil {
		return err
	}
	s.Summary("dag", source)
	s.Summary("nodes", len(d.Nodes))
	return nil
}

// stringsVar reads a list-of-strings variable.
func stringsVar(s *Step, name string) []string {
	var out []string
	s.Vars().Get(name, &out)
	return out
}

// customNodes returns the nodes of d whose step type is one of custom
// (node "<Type>" or "<Type>_<job type>").
func customNodes(d DAG, custom []string) []string {
	var out []string
	for _, n := range d.Nodes {
		for _, c := range custom {
			if n == c || strings.HasPrefix(n, c+"_") {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// spliceCustomSteps puts the scaffold's custom nodes into a catalog DAG
// where the scaffold has them: a custom node C with parents P and children
// K in the scaffold gets the edges P -> C and C -> K, and the catalog's
// direct edges P -> K go (C now stands between them). A custom node none of
// whose neighbours is in the catalog DAG sits on a branch the catalog DAG
// does not have (the scaffold's calibration branch in a training-only DAG)
// and is left out. ok is false when some custom node has only part of its
// neighbours there, or none of its parent -> child edges, or when no
// custom node finds a place: the project's own step would drop out.
func spliceCustomSteps(cat, scaffold DAG, custom []string) (DAG, bool) {
	has := map[string]bool{}
	for _, n := range cat.Nodes {
		has[n] = true
	}
	edges := map[[2]string]bool{}
	for _, e := range cat.Edges {
		edges[[2]string{e[0], e[1]}] = true
	}
	parents, children := map[string][]string{}, map[string][]string{}
	for _, e := range scaffold.Edges {
		children[e[0]] = append(children[e[0]], e[1])
		parents[e[1]] = append(parents[e[1]], e[0])
	}
	out := DAG{Nodes: append([]string(nil), cat.Nodes...)}
	var added [][]string
	cnodes := customNodes(scaffold, custom)
	isCustom := map[string]bool{}
	for _, c := range cnodes {
		isCustom[c] = true
	}
	placed := 0
	for _, c := range cnodes {
		present, absent := 0, 0
		for _, nb := range append(append([]string(nil), parents[c]...), children[c]...) {
			switch {
			case isCustom[nb]:
			case has[nb]:
				present++
			default:
				absent++
			}
		}
		if present == 0 {
			continue // a branch the catalog DAG does not have
		}
		if absent > 0 {
			return DAG{}, false
		}
		replaced := false
		for _, p := range parents[c] {
			for _, k := range children[c] {
				if !isCustom[p] && !isCustom[k] && edges[[2]string{p, k}] {
					delete(edges, [2]string{p, k})
					replaced = true
				}
			}
		}
		if !replaced {
			return DAG{}, false
		}
		placed++
		out.Nodes = append(out.Nodes, c)
		for _, p := range parents[c] {
			added = append(added, []string{p, c})
		}
		for _, k := range children[c] {
			added = append(added, []string{c, k})
		}
	}
	if placed == 0 {
		return DAG{}, false
	}
	for _, e := range cat.Edges {
		if edges[[2]string{e[0], e[1]}] {
			out.Edges = append(out.Edges, []string{e[0], e[1]})
		}
	}
	out.Edges = append(out.Edges, added...)
	return out, true
}

// redrawReadme replaces the Mermaid flowchart of the project's README (the
// pipeline project.init drew) with the DAG the run uses. A README without
// one is left alone.
func redrawReadme(s *Step, readme string, d DAG) error {
	b, err := s.FS().ReadFile(s.Abs(readme), safefs.KindDocument)
	if err != nil {
		return nil // no README to keep in step
	}
	text := string(b)
	const open = "```mermaid\nflowchart LR\n"
	i := strings.Index(text, open)
	if i < 0 {
		return nil
	}
	j := strings.Index(text[i+len(open):], "```")
	if j < 0 {
		return nil
	}
	var chart strings.Builder
	for _, e := range d.Edges {
		fmt.Fprintf(&chart, "  %s --> %s\n", e[0], e[1])
	}
	text = text[:i+len(open)] + chart.String() + text[i+len(open)+j:]
	if err := s.WriteFile(readme, []byte(text)); err != nil {
		return err
	}
	// People edit the README: hand it over rather than vouch for it.
	return s.Handoff(readme)
}

func phaseGateDAG(ctx context.Context, s *Step) error {
	d, err := loadDAGFile(ctx, s, s.Vars().String(varDAGFile))
	if err != nil {
		return err
	}
	if len(d.Nodes) == 0 {
		return &GateFailure{Tool: "dag.deserialize", Code: envelope.CodeGateFailed, Message: "the DAG is empty"}
	}
	resp, iv, err := validateIntegrity(ctx, s, d, "seed")
	if err != nil {
		return err
	}
	if !iv.IsValid {
		g := Gate("dag.validate_integrity", resp, "the seeded DAG has integrity issues: %s", strings.Join(slices.Sorted(maps.Keys(iv.Issues)), ", "))
		g.Remedy = "fix the DAG (or author missing step types with the author-step workflow), write " + s.RunPath(ChoiceFile) + " and resume"
		return g
	}
	s.Summary("is_valid", true)
	return nil
}

func phaseCompile(ctx context.Context, s *Step) error {
	var d DAG
	s.Vars().Get(varDAG, &d)
	args := withWorkspace(s, "compile.definition", map[string]any{"dag_file": s.Abs(s.Vars().String(varRunDAG)), "config_file": s.Abs(s.Vars().String(varConfigFile))})
	resp, err := s.Require(ctx, "compile.definition", args)
	if err != nil {
		return err
	}
	var out struct {
		Definition   json.RawMessage `json:"definition"`
		PipelineName string          `json:"pipeline_name"`
		StepCount    int             `json:"step_count"`
		Manifest     []struct {
			LocalPath string `json:"local_path"`
			Missing   bool   `json:"missing"`
		} `json:"upload_manifest"`
	}
	if err := resp.Decode(&out); err != nil {
		return Gate("compile.definition", resp, "unexpected answer: %v", err)
	}
	var def struct {
		Version string            `json:"Version"`
		Steps   []json.RawMessage `json:"Steps"`
	}
	if err := json.Unmarshal(out.Definition, &def); err != nil || def.Version == "" {
		return Gate("compile.definition", resp, "the answer holds no definition")
	}
	if len(def.Steps) != len(d.Nodes) {
		return Gate("compile.definition", resp, "the definition has %d steps for %d nodes", len(def.Steps), len(d.Nodes))
	}
	// The definition goes to its artifact and the report keeps the envelope
	// with a pointer to it, as the guided stages capture it.
	pretty, slim, err := stages.CaptureField(resp.Envelope, "definition", DefinitionFile)
	if err != nil {
		return Gate("compile.definition", resp, "%v", err)
	}
	defPath := s.RunPath(DefinitionFile)
	if err := s.WriteFile(defPath, pretty); err != nil {
		return err
	}
	resp.Envelope = slim
	if err := s.Report("compile.definition", args, resp); err != nil {
		return err
	}
	var missing []string
	for _, a := range out.Manifest {
		if a.Missing {
			missing = append(missing, a.LocalPath)
		}
	}
	for _, w := range resp.Warnings {
		s.Warn("%s", w)
	}
	if err := firstError(s.Set(varDefinition, defPath), s.Set("pipeline_name", out.PipelineName), s.Set("step_count", out.StepCount), s.Set("missing_code", missing)); err != nil {
		return err
	}
	s.Summary("definition", defPath)
	s.Summary("steps", len(def.Steps))
	return nil
}

func phasePublish(ctx context.Context, s *Step) error {
	var d DAG
	var m MergeArgs
	s.Vars().Get(varDAG, &d)
	s.Vars().Get(varMergeArgs, &m)
	projDAG := s.Vars().String(varDAGFile)
	projCfg := s.Vars().String(varProjectConfig)
	base := map[string]any{}
	for k, v := range m.Base {
		base[k] = v
	}
	// In the project, config.json sits in pipeline_config/ and code paths are
	// taken from the project folder.
	base["source_dir"] = "scripts"
	steps := map[string]any{}
	for n, v := range m.Steps {
		steps[n] = v
	}
	args := withWorkspace(s, "config.merge_save", map[string]any{"dag": d.object(), "base": base, "steps": steps, "output_file": s.Abs(projCfg)})
	if _, err := s.Require(ctx, "config.merge_save", args); err != nil {
		return err
	}
	if err := s.Record(projCfg); err != nil {
		return err
	}
	if err := s.Record(projDAG); err != nil {
		return err
	}
	vargs := withWorkspace(s, "compile.validate", map[string]any{"dag_file": s.Abs(projDAG), "config_file": s.Abs(projCfg)})
	cv, vr, err := compileValidate(ctx, s, vargs, "project")
	if err != nil {
		return err
	}
	if !vr.IsValid {
		return Gate("compile.validate", cv, "the project's own dag.json and config.json do not validate: %s", vr.Summary)
	}
	if err := writeRunLedger(s, d); err != nil {
		return err
	}
	deploy := ToolCall{Tool: "compile.dag", Args: map[string]any{"dag_file": s.Abs(projDAG), "config_file": s.Abs(projCfg), "upsert": true},
		Why: "deploy once every placeholder has a real value and the scripts hold their logic"}
	if err := s.Set("deploy", deploy); err != nil {
		return err
	}
	s.Summary("project_config", projCfg)
	return nil
}

// writeRunLedger writes runs/<id>/ACTION_ITEMS.md: what is left after the
// run (placeholders to replace, the deploy call), in the project ledger's
// checklist form. The project's own ledger is project.init's and is not
// touched (only tools write into the project); this one supersedes its
// placeholder list, since the run replaced the scaffold's DAG and config.
func writeRunLedger(s *Step, d DAG) error {
	var placeholders map[string]any
	s.Vars().Get(varPlaceholders, &placeholders)
	var w strings.Builder
	fmt.Fprintf(&w, "# Action items after run %s (cursus workflow new-project)\n\n", s.RunID())
	src := "the DAG chosen for the run"
	if id := s.Vars().String(varDAGID); id != "" {
		src = "the pipeline catalog's `" + id + "`"
		if nodes := customNodes(d, stringsVar(s, varCustomSteps)); len(nodes) > 0 {
			src += " with the project's own " + strings.Join(nodes, ", ")
		}
	}
	fmt.Fprintf(&w, "`%s` is now %s (%d nodes) and `%s` was rewritten for it; these items supersede the\n", s.Vars().String(varDAGFile), src, len(d.Nodes), s.Vars().String(varProjectConfig))
	fmt.Fprintf(&w, "placeholder list of `%s` (its other items still apply).\n\n", s.Vars().String(varLedger))
	for _, k := range slices.Sorted(maps.Keys(placeholders)) {
		fmt.Fprintf(&w, "- [ ] `%s` = `%v`: replace with the real value (configure-pipeline with project_dir and values rewrites config.json)\n", k, placeholders[k])
	}
	fmt.Fprintf(&w, "- [ ] deploy: `compile.dag {\"dag_file\": %q, \"config_file\": %q, \"upsert\": true}` once every value is real and the scripts hold their logic\n",
		s.Vars().String(varDAGFile), s.Vars().String(varProjectConfig))
	fmt.Fprintf(&w, "- [x] compiled definition: `%s`\n", s.Vars().String(varDefinition))
	fmt.Fprintf(&w, "- [x] every gate of the run passed: `%s`\n", s.RunPath(StateFile))
	path := s.RunPath(LedgerFile)
	if err := s.WriteFile(path, []byte(w.String())); err != nil {
		return err
	}
	// People tick the items: hand the file over rather than vouch for it.
	if err := s.Handoff(path); err != nil {
		return err
	}
	return s.Set("run_ledger", path)
}

func newProjectOutputs(v Vars) map[string]any {
	out := configureOutputs(v)
	var missing, items []string
	v.Get("missing_code", &missing)
	v.Get("action_items", &items)
	var steps int
	v.Get("step_count", &steps)
	out["project_dir"] = v.String(varProjectDir)
	out["project_dag_file"] = v.String(varDAGFile)
	out["project_config_file"] = v.String(varProjectConfig)
	out["dag_id"] = v.String(varDAGID)
	out["definition_file"] = v.String(varDefinition)
	out["pipeline_name"] = v.String("pipeline_name")
	out["step_count"] = steps
	out["missing_code"] = missing
	out["action_items"] = items
	out["run_ledger"] = v.String("run_ledger")
	var deploy ToolCall
	v.Get("deploy", &deploy)
	out["deploy"] = deploy
	return out
}

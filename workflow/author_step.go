package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/cursus-go/cursus/engine/deps"
	"path"
	"regexp"
	"strings"

	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"

	"github.com/cursus-go/cursus/envelope"
)

// The rungs of the gap ladder.
const (
	RungReuse  = "reuse"
	RungExtend = "extend"
	RungNew    = "new"
)

// author-step variables.
const (
	varRung      = "rung"
	varStep      = "step_name"
	varNode      = "step_node"
	varProducer  = "producer"
	varConsumer  = "consumer"
	varContract  = "contract"
	varStepFile  = "step_file"
	varScript    = "script_file"
	varSkeleton  = "skeleton_sha256"
	varEdgeScore = "edge_scores"
)

// Contract is the designed interface of the step between producer and consumer.
type Contract struct {
	Step          string   `json:"step"`
	Node          string   `json:"node"`
	JobType       string   `json:"job_type,omitempty"`
	EntryPoint    string   `json:"entry_point"`
	Producer      string   `json:"producer"`
	ProducerType  string   `json:"producer_type"`
	ProducerPort  string   `json:"producer_output"`
	ProducerKind  string   `json:"producer_output_type"`
	Consumer      string   `json:"consumer"`
	ConsumerType  string   `json:"consumer_type"`
	ConsumerPort  string   `json:"consumer_input"`
	ConsumerKind  string   `json:"consumer_input_type"`
	InputName     string   `json:"input_name"`
	InputPath     string   `json:"input_path"`
	InputKeywords []string `json:"input_keywords"`
	OutputName    string   `json:"output_name"`
	OutputPath    string   `json:"output_path"`
	OutputAliases []string `json:"output_aliases"`
	Description   string   `json:"description"`
}

// pascalCaseRE is what author-step's step_name must match.
var pascalCaseRE = lazyre.New(`^[A-Z][A-Za-z0-9]*$`)

func authorStep() *Workflow {
	return &Workflow{
		Name: "author-step",
		Description: "Insert a step type between a producer and a consumer node: pick the rung (reuse an existing step that already " +
			"binds both edges, extend one that almost does, or author a new one), design its ports from the two edges, scaffold the " +
			"step file and a script skeleton from that contract, stop until the script's logic is written, then gate it with " +
			"validate.step_interface, author.check_script and author.preflight_step, and re-resolve both edges above the resolver's threshold.",
		Args: []Arg{
			{Name: "producer", Type: "string", Required: true, Description: "Upstream DAG node (or step type) whose output feeds the step, e.g. TabularPreprocessing_training."},
			{Name: "consumer", Type: "string", Required: true, Description: "Downstream DAG node (or step type) the step feeds, e.g. XGBoostTraining."},
			{Name: "step_name", Type: "string", Required: true, Description: "Step type to insert (PascalCase): an existing one to reuse, or the name of the new one."},
			{Name: "sagemaker_step_type", Type: "string", Default: "Processing", Enum: []string{"Processing"}, Description: "SageMaker step type of a new step (the scaffold writes Processing steps)."},
			{Name: "description", Type: "string", Description: "What the new step does, for its step file and script."},
			{Name: "job_type", Type: "string", Description: "Job type of the new node; default: the producer node's job type, if any."},
			{Name: "workspace_dir", Type: "string", Description: "Folder of the new step file (a catalog workspace), relative to the project root; default <project_dir>/steps or steps. Its script goes to the sibling scripts/ folder."},
			{Name: "project_dir", Type: "string", Description: "A project folder made by project.init; its steps/ is the default workspace."},
			{Name: "overwrite", Type: "boolean", Default: false, Description: "Replace an existing step file of the same name in the workspace (otherwise an existing file is kept and gated as it is)."},
		},
		Check: func(a map[string]any) []string {
			var probs []string
			if n, _ := a["step_name"].(string); !pascalCaseRE().MatchString(n) {
				probs = append(probs, "step_name: must be PascalCase (^[A-Z][A-Za-z0-9]*$)")
			}
			for _, k := range []string{"producer", "consumer"} {
				if v, _ := a[k].(string); strings.TrimSpace(v) == "" {
					probs = append(probs, k+": must be a non-empty string")
				}
			}
			if wd, _ := a["workspace_dir"].(string); strings.Contains(wd, "..") {
				probs = append(probs, "workspace_dir: must not contain '..'")
			}
			return probs
		},
		Phases: []Phase{
			{
				Name: "resolve", Title: "Pick the rung", Stage: "author_step",
				Detail:   "Resolve producer and consumer, check the name against author.rules naming, and pick reuse (the step exists and binds both edges), extend (it exists but does not) or new.",
				Gate:     "producer and consumer are known step types, the name is legal, and the rung is reuse or new",
				Tools:    []string{"catalog.resolve_step", "author.rules", "validate.deps_resolve", "catalog.search"},
				Judgment: "extend: an existing step that does not bind both edges needs port edits a person or agent decides",
				Run:      phaseResolve,
			},
			{
				Name: "contract", Title: "Design the contract", Stage: "author_step",
				Detail: "From catalog.step_spec of producer and consumer: the producer output the step reads, the consumer input it feeds, the ports, container paths and entry point of the new step; written to runs/<id>/contract.json.",
				Gate:   "the producer has an output and the consumer a required input the step can bind",
				Tools:  []string{"catalog.step_spec"},
				Run:    phaseContract,
			},
			{
				Name: "scaffold", Title: "Scaffold step file and script", Stage: "author_step",
				Detail: "author.scaffold_step writes <workspace>/<Step>.step.yaml from the contract (checked by the catalog's loader) and a script skeleton in the sibling scripts/ folder that reads and writes exactly the contract's paths; existing files are kept.",
				Gate:   "author.scaffold_step succeeds: the step file loads and the script exists",
				Tools:  []string{"author.scaffold_step"},
				Run:    phaseScaffoldStep,
			},
			{
				Name: "script-logic", Title: "Write the script's logic", Stage: "author_step",
				Detail:   "The skeleton only moves data; the step's logic is judgment. The run stops here until the script differs from the skeleton author.scaffold_step wrote, then author.check_script checks it against the contract.",
				Gate:     "the script is no longer the skeleton and author.check_script passes",
				Tools:    []string{"author.check_script"},
				Judgment: "the step's logic: what the script does with the data",
				Run:      phaseScriptLogic,
			},
			{
				Name: "validate", Title: "Validate interface and script", Stage: "author_step",
				Detail: "validate.step_interface on the step file and author.check_script on its script, with the workspace.",
				Gate:   "both pass with no blocking issue",
				Tools:  []string{"validate.step_interface", "author.check_script"},
				Run:    phaseValidateStep,
			},
			{
				Name: "preflight", Title: "Preflight the step", Stage: "author_step",
				Detail: "author.preflight_step: interface, registry parity, builder routability and resolvable ports.",
				Gate:   "the step is constructible",
				Tools:  []string{"author.preflight_step"},
				Run:    phasePreflightStep,
			},
			{
				Name: "align-edges", Title: "Re-resolve both edges", Stage: "validate",
				Detail: "validate.deps_resolve on producer -> step -> consumer with the workspace: the step's input must bind to the producer and the consumer's input to the step, each above the resolver's threshold.",
				Gate:   "both edges bind with a score above the resolver threshold",
				Tools:  []string{"validate.deps_resolve"},
				Run:    phaseAlignEdges,
			},
		},
		Result: authorOutputs,
	}
}

// authorWorkspace is the workspace the new step goes to.
func authorWorkspace(s *Step) string {
	if w := strings.Trim(s.ArgString("workspace_dir"), "/"); w != "" {
		return w
	}
	if p := strings.Trim(s.ArgString("project_dir"), "/"); p != "" {
		return p + "/steps"
	}
	return "steps"
}

func withWS(s *Step, tool string, args map[string]any, ws string) map[string]any {
	if ws != "" && acceptsArg(s, tool, "workspace_dirs") {
		args["workspace_dirs"] = []any{s.Abs(ws)}
	}
	return args
}

type resolved struct {
	Canonical string `json:"canonical_name"`
	JobType   string `json:"job_type"`
	Verb      string `json:"sagemaker_step_type"`
	Snake     string `json:"snake_name"`
}

func resolveStep(ctx context.Context, s *Step, name, ws string) (resolved, Response, error) {
	resp, err := s.Call(ctx, "catalog.resolve_step", withWS(s, "catalog.resolve_step", map[string]any{"step_name": name}, ws))
	if err != nil {
		return resolved{}, resp, err
	}
	var r resolved
	if resp.OK {
		if err := resp.Decode(&r); err != nil {
			return resolved{}, resp, Gate("catalog.resolve_step", resp, "unexpected answer: %v", err)
		}
	}
	return r, resp, nil
}

func phaseResolve(ctx context.Context, s *Step) error {
	ws := authorWorkspace(s)
	wsExists := false
	if s.FS().IsDir(s.Abs(ws)) {
		wsExists = true
	}
	wsArg := ""
	if wsExists {
		wsArg = ws
	}
	prod, resp, err := resolveStep(ctx, s, s.ArgString("producer"), wsArg)
	if err != nil {
		return err
	}
	if !resp.OK {
		return &GateFailure{Tool: "catalog.resolve_step", Code: resp.Code, Message: "producer: " + resp.Error, Envelope: resp.Envelope}
	}
	cons, resp, err := resolveStep(ctx, s, s.ArgString("consumer"), wsArg)
	if err != nil {
		return err
	}
	if !resp.OK {
		return &GateFailure{Tool: "catalog.resolve_step", Code: resp.Code, Message: "consumer: " + resp.Error, Envelope: resp.Envelope}
	}
	rules, err := s.Require(ctx, "author.rules", map[string]any{"topic": "naming"})
	if err != nil {
		return err
	}
	var r struct {
		Rules struct {
			StepNamePattern string `json:"step_name_pattern"`
		} `json:"rules"`
	}
	if err := rules.Decode(&r); err != nil {
		return Gate("author.rules", rules, "unexpected answer: %v", err)
	}
	step := s.ArgString("step_name")
	if r.Rules.StepNamePattern != "" {
		if re, err := regexp.Compile(r.Rules.StepNamePattern); err == nil && !re.MatchString(step) {
			return Gate("author.rules", rules, "step name %q breaks the naming rule %s", step, r.Rules.StepNamePattern)
		}
	}
	jobType := s.ArgString("job_type")
	if jobType == "" {
		jobType = prod.JobType
	}
	node := step
	if jobType != "" {
		node = step + "_" + jobType
	}
	producerNode := s.ArgString("producer")
	consumerNode := s.ArgString("consumer")
	existing, resp, err := resolveStep(ctx, s, step, wsArg)
	if err != nil {
		return err
	}
	rung := RungNew
	if resp.OK && existing.Canonical == step {
		// The step exists: reuse when it binds both edges already.
		scores, dr, err := edgeScores(ctx, s, producerNode, node, consumerNode, wsArg)
		if err != nil {
			return err
		}
		if scores.bothBound() {
			rung = RungReuse
		} else if s.Vars().String(varRung) == RungNew && s.Vars().String(varStepFile) != "" {
			// This run authored the step (a resumed run re-checks its rung):
			// it is still this run's new step.
			rung = RungNew
		} else {
			return &Judgment{
				Reason: fmt.Sprintf("step %s exists but does not bind both edges (%s): extend its ports, or choose a new name", step, scores.describe()),
				ActionItems: []string{
					"compare its ports with the producer's outputs and the consumer's inputs (catalog.step_spec on each)",
					"extend it in a workspace copy (" + ws + "/" + step + catalog.StepFileSuffix + "): add the producer to compatible_sources, or output aliases the consumer's input matches",
					"or run author-step again with a new step_name to author a new step",
					"resume the run; the rung is checked again",
				},
				ToolCalls: []ToolCall{
					{Tool: "catalog.step_spec", Args: map[string]any{"step_name": step}, Why: "the ports of the existing step"},
					{Tool: "validate.deps_resolve", Args: dr, Why: "which edge does not bind, and why"},
					{Command: "cursus workflow run author-step --resume " + s.RunID(), Why: "continue after extending the step"},
				},
			}
		}
	} else {
		// Point at similar steps: reusing one may be cheaper than a new type.
		sr, err := s.Call(ctx, "catalog.search", map[string]any{"query": splitWords(step)})
		if err != nil {
			return err
		}
		var found struct {
			Matches []struct {
				Name  string  `json:"step_name"`
				Score float64 `json:"score"`
			} `json:"matches"`
		}
		if sr.OK && sr.Decode(&found) == nil {
			var similar []string
			for _, m := range found.Matches {
				if m.Score >= 0.6 && len(similar) < 3 {
					similar = append(similar, m.Name)
				}
			}
			if len(similar) > 0 {
				s.Warn("similar catalog steps exist (%s): run author-step with one of them as step_name to reuse it instead", strings.Join(similar, ", "))
				s.Summary("similar", similar)
			}
		}
	}
	if err := firstError(
		s.Set(varRung, rung), s.Set(varStep, step), s.Set(varNode, node), s.Set("job_type", jobType),
		s.Set(varProducer, map[string]string{"node": producerNode, "type": prod.Canonical}),
		s.Set(varConsumer, map[string]string{"node": consumerNode, "type": cons.Canonical}),
		s.Set(varWorkspace, []string{ws}), s.Set("step_workspace", wsArg),
	); err != nil {
		return err
	}
	s.Summary("rung", rung)
	return nil
}

// splitWords turns PascalCase into words for a search.
func splitWords(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// edgeResult is how one edge resolved.
type edgeResult struct {
	Input    string  `json:"input"`
	Output   string  `json:"output"`
	Provider string  `json:"provider"`
	Score    float64 `json:"score"`
	Bound    bool    `json:"bound"`
	Required bool    `json:"required,omitempty"`
}

type edgeScoresT struct {
	Threshold float64    `json:"threshold"`
	In        edgeResult `json:"producer_to_step"`
	Out       edgeResult `json:"step_to_consumer"`
	// Unbound are the required inputs the two edges must feed and do not:
	// the step's own (its only parent is the producer) and the consumer's
	// that the producer fed before the step stood between them, each as
	// "<node>.<input>".
	Unbound []string `json:"unbound_required,omitempty"`
}

// bothBound reports whether both edges bind and every required input they
// must feed is bound: a binding to an optional input does not stand in for
// an unbound required one.
func (e edgeScoresT) bothBound() bool { return e.In.Bound && e.Out.Bound && len(e.Unbound) == 0 }

func (e edgeScoresT) describe() string {
	f := func(r edgeResult) string {
		if !r.Bound {
			return "unbound"
		}
		return fmt.Sprintf("%s.%s -> %s at %.3f", r.Provider, r.Output, r.Input, r.Score)
	}
	msg := fmt.Sprintf("producer edge %s, consumer edge %s, threshold %.2f", f(e.In), f(e.Out), e.Threshold)
	if len(e.Unbound) > 0 {
		msg += "; required input(s) left unbound: " + strings.Join(e.Unbound, ", ")
	}
	return msg
}

// edgeScores resolves producer -> node -> consumer with validate.deps_resolve
// and reads how the node's inputs bind to the producer and the consumer's
// inputs to the node.
func edgeScores(ctx context.Context, s *Step, producer, node, consumer, ws string) (edgeScoresT, map[string]any, error) {
	args := withWS(s, "validate.deps_resolve", map[string]any{"dag": map[string]any{
		"nodes": []any{producer, node, consumer},
		"edges": []any{[]any{producer, node}, []any{node, consumer}},
	}}, ws)
	d, resp, err := depsResolve(ctx, s, args)
	if err != nil {
		return edgeScoresT{}, args, err
	}
	out := edgeScoresT{Threshold: d.Report.Threshold}
	// an edge's main binding is a required input's when it feeds one (an
	// optional input scoring higher is not what the edge is for), the
	// highest-scoring one among them
	pick := func(consumerNode, provider string) edgeResult {
		best, bestReq := edgeResult{}, false
		for _, b := range d.Report.Steps[consumerNode].Bindings {
			if b.Provider != provider {
				continue
			}
			if (b.Required && !bestReq) || (b.Required == bestReq && b.Score > best.Score) {
				best, bestReq = edgeResult{Input: b.Input, Output: b.Output, Provider: b.Provider, Score: b.Score, Bound: b.Score >= out.Threshold, Required: b.Required}, b.Required
			}
		}
		return best
	}
	out.In = pick(node, producer)
	out.Out = pick(consumer, node)
	// The step's required inputs: the producer is its only parent.
	for _, in := range d.Report.Steps[node].Unresolved {
		out.Unbound = append(out.Unbound, node+"."+in)
	}
	// The consumer's required inputs the producer fed directly must now
	// come from the step.
	direct, _, err := depsResolve(ctx, s, withWS(s, "validate.deps_resolve", map[string]any{"dag": map[string]any{
		"nodes": []any{producer, consumer}, "edges": []any{[]any{producer, consumer}},
	}}, ws))
	if err != nil {
		return edgeScoresT{}, args, err
	}
	fed := map[string]bool{}
	for _, b := range d.Report.Steps[consumer].Bindings {
		if b.Provider == node && b.Score >= out.Threshold {
			fed[b.Input] = true
		}
	}
	for _, b := range direct.Report.Steps[consumer].Bindings {
		if b.Required && b.Provider == producer && !fed[b.Input] {
			out.Unbound = append(out.Unbound, consumer+"."+b.Input)
		}
	}
	_ = resp
	return out, args, nil
}

// depsResolution is the part of validate.deps_resolve's answer the edge
// checks read.
type depsResolution struct {
	Report struct {
		Threshold float64 `json:"resolution_threshold"`
		Steps     map[string]struct {
			Bindings []struct {
				Input    string  `json:"input"`
				Required bool    `json:"required"`
				Provider string  `json:"provider"`
				Output   string  `json:"output"`
				Score    float64 `json:"score"`
			} `json:"bindings"`
			Unresolved []string `json:"unresolved_dependencies"` // required inputs bound to nothing
		} `json:"step_details"`
	} `json:"report"`
}

func depsResolve(ctx context.Context, s *Step, args map[string]any) (depsResolution, Response, error) {
	var d depsResolution
	resp, err := s.Require(ctx, "validate.deps_resolve", args)
	if err != nil {
		return d, resp, err
	}
	if err := resp.Decode(&d); err != nil {
		return d, resp, Gate("validate.deps_resolve", resp, "unexpected answer: %v", err)
	}
	return d, resp, nil
}

type portSpec struct {
	LogicalName string   `json:"logical_name"`
	Type        string   `json:"dependency_type"`
	OutputType  string   `json:"output_type"`
	Required    bool     `json:"required"`
	Keywords    []string `json:"semantic_keywords"`
	Aliases     []string `json:"aliases"`
	Sources     []string `json:"compatible_sources"`
}

type stepSpec struct {
	Dependencies []portSpec `json:"dependencies"`
	Outputs      []portSpec `json:"outputs"`
}

func phaseContract(ctx context.Context, s *Step) error {
	var prod, cons map[string]string
	s.Vars().Get(varProducer, &prod)
	s.Vars().Get(varConsumer, &cons)
	step := s.Vars().String(varStep)
	if s.Vars().String(varRung) == RungReuse {
		s.Summary("rung", RungReuse)
		return s.Set(varContract, Contract{Step: step, Node: s.Vars().String(varNode), Producer: prod["node"], Consumer: cons["node"]})
	}
	spec := func(name string) (stepSpec, error) {
		args := withWS(s, "catalog.step_spec", map[string]any{"step_name": name}, s.Vars().String("step_workspace"))
		resp, err := s.Require(ctx, "catalog.step_spec", args)
		if err != nil {
			return stepSpec{}, err
		}
		var sp stepSpec
		if err := resp.Decode(&sp); err != nil {
			return stepSpec{}, Gate("catalog.step_spec", resp, "unexpected answer: %v", err)
		}
		return sp, nil
	}
	ps, err := spec(prod["node"])
	if err != nil {
		return err
	}
	cs, err := spec(cons["node"])
	if err != nil {
		return err
	}
	// The consumer input to feed: its first required data input.
	var in *portSpec
	for i, d := range cs.Dependencies {
		if d.Required && (d.Type == "processing_output" || d.Type == "training_data") {
			in = &cs.Dependencies[i]
			break
		}
	}
	// The producer output to read: a data output (not a model).
	var out *portSpec
	for i, o := range ps.Outputs {
		if o.OutputType == "processing_output" || o.OutputType == "training_data" {
			out = &ps.Outputs[i]
			break
		}
	}
	if in == nil || out == nil {
		what := "the consumer has no required data input"
		if out == nil {
			what = "the producer has no data output"
		}
		return &GateFailure{Tool: "catalog.step_spec", Code: envelope.CodeGateFailed, Message: what + "; a Processing step cannot be placed on this edge",
			Remedy: "choose a producer with a processing_output and a consumer with a required processing_output or training_data input"}
	}
	jobType := s.Vars().String("job_type")
	desc := s.ArgString("description")
	if desc == "" {
		desc = fmt.Sprintf("Reads %s's %s and writes %s for %s.", prod["type"], out.LogicalName, in.LogicalName, cons["type"])
	}
	kw := append([]string{out.LogicalName}, out.Aliases...)
	kw = append(kw, out.Keywords...)
	aliases := []string{}
	if in.LogicalName != "processed_data" {
		aliases = append(aliases, "processed_data")
	}
	c := Contract{
		Step: step, Node: s.Vars().String(varNode), JobType: jobType, EntryPoint: author.EntryPoint(step),
		Producer: prod["node"], ProducerType: prod["type"], ProducerPort: out.LogicalName, ProducerKind: out.OutputType,
		Consumer: cons["node"], ConsumerType: cons["type"], ConsumerPort: in.LogicalName, ConsumerKind: in.Type,
		InputName: "input_data", InputPath: "/opt/ml/processing/input/data", InputKeywords: strlist.Unique(kw),
		OutputName: in.LogicalName, OutputPath: "/opt/ml/processing/output", OutputAliases: aliases,
		Description: desc,
	}
	if c.OutputName == c.InputName {
		c.InputName = "source_data"
	}
	b := []byte(mustJSONIndent(c))
	if err := s.WriteFile(s.RunPath("contract.json"), b); err != nil {
		return err
	}
	s.Summary("reads", prod["node"]+"."+out.LogicalName)
	s.Summary("feeds", cons["node"]+"."+in.LogicalName)
	return s.Set(varContract, c)
}

func mustJSONIndent(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return mustJSON(v) + "\n"
	}
	return string(b) + "\n"
}

func phaseScaffoldStep(ctx context.Context, s *Step) error {
	if s.Vars().String(varRung) == RungReuse {
		s.Summary("rung", "reuse: nothing to scaffold")
		return nil
	}
	var c Contract
	s.Vars().Get(varContract, &c)
	ws := authorWorkspace(s)
	args := map[string]any{
		"step_name": c.Step, "workspace_dir": s.Abs(ws), "description": c.Description,
		"keywords": strlist.Unique(append(strings.Fields(strings.ToLower(splitWords(c.Step))), c.OutputName)),
		"inputs": []any{map[string]any{"name": c.InputName, "type": c.ProducerKind, "path": c.InputPath,
			"compatible_sources": []any{c.ProducerType}, "keywords": toAny(c.InputKeywords),
			"description": fmt.Sprintf("What %s writes as %s.", c.ProducerType, c.ProducerPort)}},
		"outputs": []any{map[string]any{"name": c.OutputName, "path": c.OutputPath, "aliases": toAny(c.OutputAliases),
			"keywords":    toAny(strlist.Unique([]string{c.OutputName, c.ConsumerPort, "processed", "data"})),
			"description": fmt.Sprintf("What %s reads as %s.", c.ConsumerType, c.ConsumerPort)}},
		// A file already there (a person's edit, or this run's earlier
		// attempt) is kept: the gates that follow judge it.
		"if_exists": "keep",
	}
	if s.ArgBool("overwrite") && s.PreviousAttempts() == 0 {
		args["if_exists"] = "overwrite"
	}
	if c.JobType != "" {
		args["job_type"] = c.JobType
	}
	resp, err := s.Require(ctx, "author.scaffold_step", args)
	if err != nil {
		return err
	}
	var out struct {
		StepFile     string `json:"step_file"`
		Script       string `json:"script"`
		ScriptSHA    string `json:"script_sha256"`
		StepStatus   string `json:"step_file_status"`
		ScriptStatus string `json:"script_status"`
	}
	if err := resp.Decode(&out); err != nil {
		return Gate("author.scaffold_step", resp, "unexpected answer: %v", err)
	}
	stepFile, err := s.Rel(out.StepFile)
	if err != nil {
		return Gate("author.scaffold_step", resp, "%v", err)
	}
	scriptFile, err := s.Rel(out.Script)
	if err != nil {
		return Gate("author.scaffold_step", resp, "%v", err)
	}
	// Both files are handed to later phases and people: their content is
	// judged by the gates that follow, not by hash.
	if err := s.Handoff(stepFile); err != nil {
		return err
	}
	if err := s.Handoff(scriptFile); err != nil {
		return err
	}
	skeleton := out.ScriptSHA
	if out.ScriptStatus == "kept" && s.Vars().String(varSkeleton) != "" {
		// Keep the skeleton this run wrote first: the kept file may hold logic already.
		skeleton = s.Vars().String(varSkeleton)
	}
	if err := firstError(s.Set(varStepFile, stepFile), s.Set(varScript, scriptFile), s.Set(varSkeleton, skeleton)); err != nil {
		return err
	}
	s.Summary("step_file", stepFile+" ("+out.StepStatus+")")
	s.Summary("script", scriptFile+" ("+out.ScriptStatus+")")
	return nil
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// stepWorkspace is the workspace holding the step: the folder of the step
// file this run wrote, else the workspace the step was found in (reuse).
func stepWorkspace(s *Step) string {
	if f := s.Vars().String(varStepFile); f != "" {
		return path.Dir(f)
	}
	return s.Vars().String("step_workspace")
}

func checkScriptArgs(s *Step) map[string]any {
	args := withWS(s, "author.check_script", map[string]any{"step_name": s.Vars().String(varStep)}, stepWorkspace(s))
	if sc := s.Vars().String(varScript); sc != "" && acceptsArg(s, "author.check_script", "script_path") {
		args["script_path"] = s.Abs(sc)
	}
	return args
}

func phaseScriptLogic(ctx context.Context, s *Step) error {
	if s.Vars().String(varRung) == RungReuse {
		return reusedScriptLogic(ctx, s)
	}
	script := s.Vars().String(varScript)
	b, err := s.FS().ReadFile(s.Abs(script), safefs.KindScript)
	if err != nil {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: fmt.Sprintf("the script %s cannot be read: %v", script, err),
			Remedy: "restore the script (delete " + s.Vars().String(varStepFile) + " and resume to scaffold again)"}
	}
	var c Contract
	s.Vars().Get(varContract, &c)
	// The skeleton this run wrote, or any cursus skeleton left as written
	// (one a scaffold outside the run wrote, for other arguments, is kept
	// by the run's scaffold phase and has another hash).
	if hashBytes(b) == s.Vars().String(varSkeleton) || project.IsSkeleton(b) {
		return &Judgment{
			Reason: fmt.Sprintf("the script %s is still the skeleton: its logic (what %s does with the data) must be written", script, c.Step),
			ActionItems: []string{
				fmt.Sprintf("write the step's logic in %s (the skeleton's hook; search for TODO) and remove the hook's TODO line: read %s (the data %s writes as %s) and write %s (what %s reads as %s)",
					script, c.InputPath, c.ProducerType, c.ProducerPort, c.OutputPath, c.ConsumerType, c.ConsumerPort),
				"keep the declared container paths and the --job_type argument; read no undeclared path or environment variable (or declare it in " + s.Vars().String(varStepFile) + ")",
				"resume the run: author.check_script checks the script against the contract",
			},
			ToolCalls: []ToolCall{
				{Tool: "steps.io", Args: withWS(s, "steps.io", map[string]any{"step_name": c.Step}, stepWorkspace(s)), Why: "the step's ports and container paths"},
				{Tool: "author.check_script", Args: checkScriptArgs(s), Why: "check the script against its contract while writing it"},
				{Command: "cursus workflow run author-step --resume " + s.RunID(), Why: "continue once the logic is written"},
			},
			Files: []string{script},
		}
	}
	args := checkScriptArgs(s)
	resp, err := s.RequireAndReport(ctx, "author.check_script", args, "logic")
	if err != nil {
		return err
	}
	cs, err := dataAs[validation.ScriptCheck](resp)
	if err != nil {
		return Gate("author.check_script", resp, "unexpected answer: %v", err)
	}
	if cs.Status != "checked" || !cs.Passed {
		return Gate("author.check_script", resp, "the script was not checked against its contract (%s %s)", cs.Status, cs.Reason)
	}
	if err := s.recordRead(script, b); err != nil {
		return err
	}
	s.Summary("script", script)
	return nil
}

// reusedScriptLogic is the script-logic gate of a reused step: a catalog
// step's script is real code, but a workspace step's may be a skeleton
// nobody filled in (a scaffold made outside the run), and reusing it would
// put a step that only moves data into the pipeline.
func reusedScriptLogic(ctx context.Context, s *Step) error {
	ws := s.Vars().String("step_workspace")
	if ws == "" {
		s.Summary("rung", "reuse: the step's script is the catalog's")
		return nil
	}
	args := withWS(s, "author.check_script", map[string]any{"step_name": s.Vars().String(varStep)}, ws)
	resp, err := s.RequireAndReport(ctx, "author.check_script", args, "reuse")
	if err != nil {
		return err
	}
	cs, err := dataAs[validation.ScriptCheck](resp)
	if err != nil || cs.Script == "" {
		s.Summary("rung", "reuse")
		return nil
	}
	b, err := s.FS().ReadFile(s.Abs(cs.Script), safefs.KindScript)
	if err != nil || !project.IsSkeleton(b) {
		s.Summary("rung", "reuse: "+cs.Script)
		return nil
	}
	return &Judgment{
		Reason: fmt.Sprintf("the script %s of the reused step %s is still the skeleton: its logic must be written", cs.Script, s.Vars().String(varStep)),
		ActionItems: []string{
			fmt.Sprintf("write the step's logic in %s (the skeleton's hook; search for TODO) and remove the hook's TODO line", cs.Script),
			"resume the run: author.check_script checks the script against the contract",
		},
		ToolCalls: []ToolCall{
			{Tool: "author.check_script", Args: args, Why: "check the script against its contract while writing it"},
			{Command: "cursus workflow run author-step --resume " + s.RunID(), Why: "continue once the logic is written"},
		},
		Files: []string{cs.Script},
	}
}

func phaseValidateStep(ctx context.Context, s *Step) error {
	step := s.Vars().String(varStep)
	ws := stepWorkspace(s)
	args := withWS(s, "validate.step_interface", map[string]any{"step_name": step}, ws)
	if jt := s.Vars().String("job_type"); jt != "" {
		args["job_type"] = jt
	}
	resp, err := s.RequireAndReport(ctx, "validate.step_interface", args)
	if err != nil {
		return err
	}
	cargs := checkScriptArgs(s)
	cr, err := s.RequireAndReport(ctx, "author.check_script", cargs)
	if err != nil {
		return err
	}
	if f := s.Vars().String(varStepFile); f != "" {
		if err := s.Record(f); err != nil {
			return err
		}
	}
	if f := s.Vars().String(varScript); f != "" {
		if err := s.Record(f); err != nil {
			return err
		}
	}
	for _, w := range append(resp.Warnings, cr.Warnings...) {
		s.Warn("%s", w)
	}
	return nil
}

func phasePreflightStep(ctx context.Context, s *Step) error {
	ws := stepWorkspace(s)
	args := withWS(s, "author.preflight_step", map[string]any{"step_name": s.Vars().String(varStep)}, ws)
	if jt := s.Vars().String("job_type"); jt != "" {
		args["job_type"] = jt
	}
	resp, err := s.RequireAndReport(ctx, "author.preflight_step", args)
	if err != nil {
		return err
	}
	p, err := dataAs[author.Preflight](resp)
	if err != nil {
		return Gate("author.preflight_step", resp, "unexpected answer: %v", err)
	}
	if !p.Constructible {
		return Gate("author.preflight_step", resp, "not constructible: %s", strings.Join(p.FailedGates, ", "))
	}
	s.Summary("constructible", true)
	return nil
}

func phaseAlignEdges(ctx context.Context, s *Step) error {
	var prod, cons map[string]string
	s.Vars().Get(varProducer, &prod)
	s.Vars().Get(varConsumer, &cons)
	ws := stepWorkspace(s)
	scores, args, err := edgeScores(ctx, s, prod["node"], s.Vars().String(varNode), cons["node"], ws)
	if err != nil {
		return err
	}
	if err := s.Set(varEdgeScore, scores); err != nil {
		return err
	}
	s.Summary("edges", scores)
	for _, e := range []edgeResult{scores.In, scores.Out} {
		if e.Bound && e.Score < deps.HighScore {
			s.Warn("%s.%s -> %s binds at score %.3f, below the trusted %.1f: check it is the output meant (validate.deps_explain %s)",
				e.Provider, e.Output, e.Input, e.Score, deps.HighScore, mustJSON(map[string]any{"name1": e.Input, "name2": e.Output}))
		}
	}
	if !scores.bothBound() || scores.In.Score <= scores.Threshold || scores.Out.Score <= scores.Threshold {
		msg := "an edge does not bind above the threshold: " + scores.describe()
		if scores.In.Bound && scores.Out.Bound && len(scores.Unbound) > 0 {
			msg = "the edges bind, but not every required input: " + scores.describe()
		}
		return &GateFailure{Tool: "validate.deps_resolve", Code: envelope.CodeGateFailed, Message: msg,
			Remedy: "align the ports in " + s.Vars().String(varStepFile) + " (compatible_sources, keywords, aliases, types: the step's output must match each required input named) and resume; validate.deps_resolve " + mustJSON(args) + " shows the scores"}
	}
	return nil
}

func authorOutputs(v Vars) map[string]any {
	var scores edgeScoresT
	v.Get(varEdgeScore, &scores)
	var ws []string
	v.Get(varWorkspace, &ws)
	return map[string]any{
		"rung": v.String(varRung), "step_name": v.String(varStep), "node": v.String(varNode),
		"step_file": v.String(varStepFile), "script": v.String(varScript), "workspace_dirs": ws, "edges": scores,
	}
}

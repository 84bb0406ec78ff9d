package deps

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Node is a DAG node with the step it runs (the job-type view, as
// catalog.Step.ForJobType returns it).
type Node struct {
	Name catalog.NodeName
	Step *catalog.Step
}

// Binding is one bound input: the consumer's input takes the provider
// node's output.
type Binding struct {
	Input            string           `json:"input"`
	Required         bool             `json:"required"`
	Provider         catalog.NodeName `json:"provider"` // DAG node name
	ProviderStepType catalog.StepType `json:"provider_step_type"`
	Output           string           `json:"output"`
	// PropertyPath is the provider output's property path
	// ("properties.ProcessingOutputConfig.Outputs['DATA'].S3Output.S3Uri");
	// see PropertyReference.
	PropertyPath string  `json:"property_path"`
	Score        float64 `json:"score"`
}

// Rejection reasons of a Candidate that was not bound.
const (
	RejectBelowThreshold = "below_threshold" // score <= Threshold
	RejectOutputTaken    = "output_taken"    // the output feeds another input of the step
	RejectWeakMatch      = "weak_match"      // an optional input's candidate is not a strong match (StrongMatch)
)

// Candidate is a scored (input, provider output) pair that was not bound.
type Candidate struct {
	Provider         catalog.NodeName `json:"provider"`
	ProviderStepType catalog.StepType `json:"provider_step_type"`
	Output           string           `json:"output"`
	Score            float64          `json:"score"`
	Reason           string           `json:"reason"`
	// TakenBy names the input that got the output (Reason output_taken).
	TakenBy string `json:"taken_by,omitempty"`
}

// Unbound is an input left without a provider.
type Unbound struct {
	Input    string `json:"input"`
	Required bool   `json:"required"`
	// ConfigSource is set when the input can come from a config field
	// instead; such an input is not missing even when required.
	ConfigSource string `json:"config_source,omitempty"`
	// Best is the best-scoring rejected candidate (nil when no parent has a
	// type-compatible output).
	Best *Candidate `json:"best_candidate,omitempty"`
}

// Missing reports whether the input is required, has no config source and
// is unbound: an error for the pipeline.
func (u Unbound) Missing() bool { return u.Required && u.ConfigSource == "" }

// Why explains in one sentence why the input is unbound.
func (u Unbound) Why() string {
	switch {
	case u.Best == nil:
		return "no parent step has an output of a compatible type"
	case u.Best.Reason == RejectOutputTaken:
		return fmt.Sprintf("its best candidate %s.%s (score %.4f) already feeds input '%s'", u.Best.Provider, u.Best.Output, u.Best.Score, u.Best.TakenBy)
	case u.Best.Reason == RejectWeakMatch:
		return fmt.Sprintf("its best candidate %s.%s scored %.4f, but an optional input binds only to an output it names (exact name or alias), an output type it declares (compatible_output_types) or the best output of a step its compatible_sources name", u.Best.Provider, u.Best.Output, u.Best.Score)
	default:
		return fmt.Sprintf("its best candidate %s.%s scored %.4f, not above the threshold %.1f", u.Best.Provider, u.Best.Output, u.Best.Score, Threshold)
	}
}

// Consumer is the resolution of one node: every input is either in
// Bindings or in Unbound, each list in the step's input order.
type Consumer struct {
	Node     catalog.NodeName   `json:"node"`
	StepType catalog.StepType   `json:"step_type"`
	Parents  []catalog.NodeName `json:"parents"`
	Bindings []Binding          `json:"bindings"`
	Unbound  []Unbound          `json:"unbound"`
}

// Binding returns the binding of one input.
func (c *Consumer) Binding(input string) (Binding, bool) {
	for _, b := range c.Bindings {
		if b.Input == input {
			return b, true
		}
	}
	return Binding{}, false
}

// Result is the resolution of a whole DAG: one Consumer per node, in node
// order.
type Result struct {
	Consumers []Consumer `json:"consumers"`
	index     map[catalog.NodeName]int
}

// Consumer returns the resolution of one node (nil when unknown).
func (r *Result) Consumer(node catalog.NodeName) *Consumer {
	if i, ok := r.index[node]; ok {
		return &r.Consumers[i]
	}
	return nil
}

// Missing lists every missing required input (Unbound.Missing), in node
// order.
func (r *Result) Missing() []MissingInput {
	var out []MissingInput
	for _, c := range r.Consumers {
		for _, u := range c.Unbound {
			if u.Missing() {
				out = append(out, MissingInput{Node: c.Node, StepType: c.StepType, Unbound: u})
			}
		}
	}
	return out
}

// MissingInput is a required input left unbound.
type MissingInput struct {
	Node     catalog.NodeName
	StepType catalog.StepType
	Unbound
}

// String names the step, the input and the best rejected candidate.
func (m MissingInput) String() string {
	return fmt.Sprintf("step '%s' (%s): required input '%s' is not bound: %s", m.Node, m.StepType, m.Input, m.Why())
}

// UnresolvedError is returned with a complete Result when required inputs
// are left unbound.
type UnresolvedError struct {
	Missing []MissingInput
}

// Error lists every missing input.
func (e *UnresolvedError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		parts[i] = m.String()
	}
	return "unresolved required inputs: " + strings.Join(parts, "; ")
}

// LookupError reports nodes whose step could not be found.
type LookupError struct {
	Nodes []catalog.NodeName
	Errs  []error
}

// Error lists the nodes and causes.
func (e *LookupError) Error() string {
	parts := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		parts[i] = fmt.Sprintf("%s: %v", n, e.Errs[i])
	}
	return "no step for node(s): " + strings.Join(parts, "; ")
}

// Unwrap returns the causes.
func (e *LookupError) Unwrap() []error { return e.Errs }

// StepLookup returns the step (job-type view) a DAG node runs.
type StepLookup func(node catalog.NodeName) (*catalog.Step, error)

// CatalogLookup looks nodes up in a catalog: the node name resolves to a
// step type and job type (catalog.ResolveNode), and the step's view for
// that job type is used.
func CatalogLookup(c *catalog.Catalog) StepLookup {
	return func(node catalog.NodeName) (*catalog.Step, error) {
		t, jt, ok := c.ResolveNode(node)
		if !ok {
			return nil, fmt.Errorf("no step type in the catalog matches node %q", node)
		}
		s, ok := c.Step(t)
		if !ok {
			return nil, fmt.Errorf("step type %s of node %q is not in the catalog", t, node)
		}
		return s.ForJobType(jt), nil
	}
}

// PropertyReference renders the reference a consumer uses for a provider
// output in the pipeline definition: "Steps.<SageMaker step name>.<property
// path without its leading "properties.">".
func PropertyReference(sageMakerName catalog.SageMakerStepName, propertyPath string) string {
	return "Steps." + string(sageMakerName) + "." + strings.TrimPrefix(propertyPath, "properties.")
}

// Resolver resolves dependencies and remembers similarity and compatibility
// scores between calls, so resolving many nodes of the same step types costs
// little more than reading the graph. A Resolver is not safe for concurrent
// use; the zero value is ready.
type Resolver struct {
	sim    map[[2]string]float64
	scores map[scoreKey]float64
}

type scoreKey struct {
	in       *catalog.InputPort
	out      *catalog.OutputPort
	provider *catalog.Step
}

// NewResolver returns an empty Resolver.
func NewResolver() *Resolver { return &Resolver{} }

func (r *Resolver) similarity(a, b string) float64 {
	if r.sim == nil {
		r.sim = make(map[[2]string]float64)
	}
	k := [2]string{a, b}
	if s, ok := r.sim[k]; ok {
		return s
	}
	s := Similarity(a, b)
	r.sim[k] = s
	return s
}

// Score is the package-level Score, memoized by port identity.
func (r *Resolver) Score(in *catalog.InputPort, out *catalog.OutputPort, provider *catalog.Step) float64 {
	if r.scores == nil {
		r.scores = make(map[scoreKey]float64)
	}
	k := scoreKey{in, out, provider}
	if s, ok := r.scores[k]; ok {
		return s
	}
	s := score(r.similarity, in, out, provider)
	r.scores[k] = s
	return s
}

// Resolve resolves every node of d along its edges. Steps come from lookup;
// edges touching undeclared nodes are ignored (dag.Validate reports them).
// A lookup failure returns a *LookupError and no result. Otherwise the
// result is complete, and the error is an *UnresolvedError when required
// inputs are missing (see Result.Missing).
func Resolve(ctx context.Context, d *dag.PipelineDAG, lookup StepLookup) (*Result, error) {
	return NewResolver().Resolve(ctx, d, lookup)
}

// Resolve is the package-level Resolve using r's memory.
func (r *Resolver) Resolve(ctx context.Context, d *dag.PipelineDAG, lookup StepLookup) (*Result, error) {
	nodes := d.Nodes()
	steps := make(map[catalog.NodeName]*catalog.Step, len(nodes))
	var le LookupError
	for _, n := range nodes {
		s, err := lookup(n)
		if err == nil && s == nil {
			err = fmt.Errorf("no step")
		}
		if err != nil {
			le.Nodes = append(le.Nodes, n)
			le.Errs = append(le.Errs, err)
			continue
		}
		steps[n] = s
	}
	if len(le.Nodes) > 0 {
		return nil, &le
	}
	res := &Result{Consumers: make([]Consumer, 0, len(nodes)), index: make(map[catalog.NodeName]int, len(nodes))}
	var parents []Node
	for i, n := range nodes {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		parents = parents[:0]
		for _, p := range d.DeclaredParents(n) {
			parents = append(parents, Node{Name: p, Step: steps[p]})
		}
		res.index[n] = len(res.Consumers)
		res.Consumers = append(res.Consumers, r.ResolveConsumer(Node{Name: n, Step: steps[n]}, parents))
	}
	if m := res.Missing(); len(m) > 0 {
		return res, &UnresolvedError{Missing: m}
	}
	return res, nil
}

// ResolveConsumer binds the inputs of one node to outputs of its parents
// (given in edge order). Every (input, parent output) pair scoring above
// Threshold is a candidate. Candidates are taken greedily: required inputs
// first, then higher scores; ties keep the order the candidates were found
// in (inputs in the order they first got a candidate, by parent then input
// declaration; within an input, by parent then output order). A candidate is skipped when its input is
// already bound or its (parent, output) already feeds another input of this
// node.
func (r *Resolver) ResolveConsumer(consumer Node, parents []Node) Consumer {
	step := consumer.Step
	c := Consumer{Node: consumer.Name, Parents: make([]catalog.NodeName, len(parents)), Bindings: []Binding{}, Unbound: []Unbound{}}
	for i, p := range parents {
		c.Parents[i] = p.Name
	}
	if step == nil {
		return c
	}
	c.StepType = step.Type
	nIn := len(step.Inputs)
	if nIn == 0 {
		return c
	}

	type cand struct {
		in, parent, out int
		score           float64
	}
	weakSet := map[[3]int]bool{} // (input, parent, output) of an optional input's viable candidate that is no strong match
	byInput := make([][]cand, nIn)
	firstSeen := make([]int, 0, nIn)
	best := make([]cand, nIn) // best scored pair per input, viable or not
	for i := range best {
		best[i].parent = -1
	}
	for pi, p := range parents {
		if p.Step == nil {
			continue
		}
		for ii := range step.Inputs {
			in := &step.Inputs[ii]
			for oi := range p.Step.Outputs {
				s := r.Score(in, &p.Step.Outputs[oi], p.Step)
				if s <= 0 {
					continue
				}
				cd := cand{ii, pi, oi, s}
				if best[ii].parent < 0 || s > best[ii].score {
					best[ii] = cd
				}
				if s > Threshold {
					if len(byInput[ii]) == 0 {
						firstSeen = append(firstSeen, ii)
					}
					byInput[ii] = append(byInput[ii], cd)
				}
			}
		}
	}
	// An optional input binds only on a strong match: a guess would feed a
	// step data it did not ask for.
	for ii := range byInput {
		in := &step.Inputs[ii]
		if in.Required {
			continue
		}
		kept := byInput[ii][:0]
		for _, cd := range byInput[ii] {
			p := parents[cd.parent]
			if StrongMatch(in, &p.Step.Outputs[cd.out], p.Step) {
				kept = append(kept, cd)
			} else {
				weakSet[[3]int{ii, cd.parent, cd.out}] = true
			}
		}
		byInput[ii] = kept
	}
	var flat []cand
	for _, ii := range firstSeen {
		if len(byInput[ii]) == 0 {
			continue
		}
		flat = append(flat, byInput[ii]...)
	}
	sort.SliceStable(flat, func(a, b int) bool {
		ra, rb := step.Inputs[flat[a].in].Required, step.Inputs[flat[b].in].Required
		if ra != rb {
			return ra
		}
		return flat[a].score > flat[b].score
	})

	bound := make([]int, nIn) // index+1 into flat
	type slot struct{ parent, out int }
	taken := make(map[slot]int, len(flat)) // -> input index
	for fi, cd := range flat {
		if bound[cd.in] != 0 {
			continue
		}
		k := slot{cd.parent, cd.out}
		if _, used := taken[k]; used {
			continue
		}
		taken[k] = cd.in
		bound[cd.in] = fi + 1
	}
	for ii := range step.Inputs {
		in := &step.Inputs[ii]
		if fi := bound[ii]; fi != 0 {
			cd := flat[fi-1]
			p := parents[cd.parent]
			out := &p.Step.Outputs[cd.out]
			c.Bindings = append(c.Bindings, Binding{
				Input: in.LogicalName, Required: in.Required,
				Provider: p.Name, ProviderStepType: p.Step.Type,
				Output: out.LogicalName, PropertyPath: out.PropertyPath, Score: cd.score,
			})
			continue
		}
		u := Unbound{Input: in.LogicalName, Required: in.Required, ConfigSource: in.ConfigSource}
		if b := best[ii]; b.parent >= 0 {
			p := parents[b.parent]
			rc := &Candidate{Provider: p.Name, ProviderStepType: p.Step.Type, Output: p.Step.Outputs[b.out].LogicalName, Score: b.score, Reason: RejectBelowThreshold}
			if b.score > Threshold {
				owner, isTaken := taken[slot{b.parent, b.out}]
				switch {
				case isTaken:
					rc.Reason, rc.TakenBy = RejectOutputTaken, step.Inputs[owner].LogicalName
				case weakSet[[3]int{ii, b.parent, b.out}]:
					rc.Reason = RejectWeakMatch
				default:
					rc.Reason = RejectOutputTaken
				}
			}
			u.Best = rc
		}
		c.Unbound = append(c.Unbound, u)
	}
	return c
}

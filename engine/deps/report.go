package deps

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Member is one step of a set whose wiring is checked: a name (a DAG node
// or the step name asked for), the step it runs (its job-type view) and
// that job type.
type Member struct {
	Name    catalog.NodeName
	Step    *catalog.Step
	JobType string
}

// Members is a set of steps to resolve: the members found, in order, the
// names asked for that name no catalog step, and the names asked for more
// than once (used once).
type Members struct {
	Found      []Member
	Missing    []catalog.NodeName
	Duplicates []catalog.NodeName
}

// DAGMembers looks every node of d up in c (catalog.Catalog.ResolveNode);
// a node no step type matches is missing.
func DAGMembers(c *catalog.Catalog, d *dag.PipelineDAG) Members {
	var m Members
	for _, n := range d.Nodes() {
		t, jt, ok := c.ResolveNode(n)
		s, found := c.Step(t)
		if !ok || !found {
			m.Missing = append(m.Missing, n)
			continue
		}
		m.Found = append(m.Found, Member{Name: n, Step: s.ForJobType(jt), JobType: jt})
	}
	return m
}

// StepMembers looks every name up in c (catalog.Catalog.Lookup: a step
// type, an alias or a node name); a blank or unknown name is missing, a
// repeated one is used once. A member is named as it was asked for.
func StepMembers(c *catalog.Catalog, names []catalog.NodeName) Members {
	var m Members
	seen := map[catalog.NodeName]bool{}
	for _, n := range names {
		asked := string(n) // any name Lookup takes
		if seen[n] {
			m.Duplicates = append(m.Duplicates, n)
			continue
		}
		seen[n] = true
		s, jt, err := c.Lookup(asked)
		if err != nil || strings.TrimSpace(asked) == "" {
			m.Missing = append(m.Missing, n)
			continue
		}
		m.Found = append(m.Found, Member{Name: n, Step: s.ForJobType(jt), JobType: jt})
	}
	return m
}

// StepReport is the resolution of one member of a set.
type StepReport struct {
	StepType catalog.StepType `json:"step_type"`
	JobType  string           `json:"job_type,omitempty"`
	// TotalDependencies counts the step's dependencies: its inputs but
	// those it reads from a config file of its own (catalog.Step.Dependencies).
	TotalDependencies    int `json:"total_dependencies"`
	RequiredDependencies int `json:"required_dependencies"`
	OptionalDependencies int `json:"optional_dependencies"`
	Outputs              int `json:"outputs"`
	// ResolvedDependencies maps each bound input to "<provider>.<output>".
	ResolvedDependencies map[string]string `json:"resolved_dependencies"`
	// UnresolvedDeps are the missing required inputs (Unbound.Missing).
	UnresolvedDeps []string  `json:"unresolved_dependencies"`
	Bindings       []Binding `json:"bindings"`
	Unbound        []Unbound `json:"unbound"`
	// Providers are the members the step could take inputs from.
	Providers []catalog.NodeName `json:"providers"`
	// Error says which required inputs are missing and why, when any are.
	Error string `json:"error,omitempty"`
}

// SetReport is the resolution of a set of steps: one StepReport per member
// and the totals.
type SetReport struct {
	Steps map[catalog.NodeName]*StepReport
	// WithErrors names the members with missing required inputs, in order.
	WithErrors []catalog.NodeName
	// Total counts the dependencies of every member, Resolved the bound ones.
	Total, Resolved int
}

// Rate is the share of dependencies bound (0 when there are none).
func (r *SetReport) Rate() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Resolved) / float64(r.Total)
}

// AllOthers is the parentsOf of a set in which every member may feed every
// other one.
func AllOthers(members []Member) func(name catalog.NodeName) []catalog.NodeName {
	return func(name catalog.NodeName) []catalog.NodeName {
		out := make([]catalog.NodeName, 0, len(members))
		for _, m := range members {
			if m.Name != name {
				out = append(out, m.Name)
			}
		}
		return out
	}
}

// ReportSet resolves each member against the members parentsOf names for
// it, in that order (a name that is no member offers nothing and is left
// out); with a DAG, parentsOf is its DeclaredParents, so the set resolves
// along its edges as the compiler does. ctx is checked every 64 members.
func (r *Resolver) ReportSet(ctx context.Context, members []Member, parentsOf func(name catalog.NodeName) []catalog.NodeName) (*SetReport, error) {
	byName := make(map[catalog.NodeName]*catalog.Step, len(members))
	for _, m := range members {
		byName[m.Name] = m.Step
	}
	rep := &SetReport{Steps: make(map[catalog.NodeName]*StepReport, len(members))}
	for i, m := range members {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var parents []Node
		for _, p := range parentsOf(m.Name) {
			if s, ok := byName[p]; ok {
				parents = append(parents, Node{Name: p, Step: s})
			}
		}
		c := r.ResolveConsumer(Node{Name: m.Name, Step: m.Step}, parents)
		deps := m.Step.Dependencies()
		sr := &StepReport{
			StepType: m.Step.Type, JobType: m.JobType, TotalDependencies: len(deps), Outputs: len(m.Step.Outputs),
			ResolvedDependencies: map[string]string{}, UnresolvedDeps: []string{},
			Bindings: c.Bindings, Unbound: c.Unbound, Providers: c.Parents,
		}
		for _, in := range deps {
			if in.Required {
				sr.RequiredDependencies++
			}
		}
		sr.OptionalDependencies = sr.TotalDependencies - sr.RequiredDependencies
		for _, b := range c.Bindings {
			sr.ResolvedDependencies[b.Input] = string(b.Provider) + "." + b.Output
		}
		var msgs []string
		for _, u := range c.Unbound {
			if u.Missing() {
				sr.UnresolvedDeps = append(sr.UnresolvedDeps, u.Input)
				msgs = append(msgs, fmt.Sprintf("'%s' (%s)", u.Input, u.Why()))
			}
		}
		if len(msgs) > 0 {
			sr.Error = fmt.Sprintf("Step '%s' has unresolved required dependencies: %s", m.Name, strings.Join(msgs, "; "))
			rep.WithErrors = append(rep.WithErrors, m.Name)
		}
		rep.Total += sr.TotalDependencies
		rep.Resolved += len(c.Bindings)
		rep.Steps[m.Name] = sr
	}
	return rep, nil
}

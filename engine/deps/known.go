package deps

import (
	"context"
	"fmt"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Partial is what ResolveKnown finds: the consumers of the nodes lookup
// knows, by node name, and the nodes it does not know, in DAG order.
type Partial struct {
	Consumers map[catalog.NodeName]*Consumer
	Unknown   []catalog.NodeName
}

// ResolveKnown resolves, along d's declared edges, every node lookup knows
// and does not fail on the others: an unknown node is listed in Unknown
// and, as a parent, offers no output. It is what a view of a DAG under
// construction needs (a drawing, an execution plan), where Resolve would
// refuse the whole DAG.
func ResolveKnown(ctx context.Context, d *dag.PipelineDAG, lookup StepLookup) (*Partial, error) {
	nodes := d.Nodes()
	known := make(map[catalog.NodeName]Node, len(nodes))
	out := &Partial{Consumers: make(map[catalog.NodeName]*Consumer, len(nodes))}
	for _, n := range nodes {
		if s, err := lookup(n); err == nil && s != nil {
			known[n] = Node{Name: n, Step: s}
		} else {
			out.Unknown = append(out.Unknown, n)
		}
	}
	r := NewResolver()
	var parents []Node
	for i, n := range nodes {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		node, ok := known[n]
		if !ok {
			continue
		}
		parents = parents[:0]
		for _, p := range d.DeclaredParents(n) {
			parents = append(parents, Node{Name: p, Step: known[p].Step}) // nil step: an unknown parent offers nothing
		}
		c := r.ResolveConsumer(node, parents)
		out.Consumers[n] = &c
	}
	return out, nil
}

// DataFlow maps each node of order (a topological order of d) to where its
// inputs come from, input -> "<provider>:<output>", as p binds them; a
// node p did not resolve (unknown, or p nil) gets one entry per parent,
// input_<i> -> "<parent>:output". It also returns a note for every
// required input left unbound.
func DataFlow(d *dag.PipelineDAG, order []catalog.NodeName, p *Partial) (map[catalog.NodeName]map[string]string, []string) {
	var consumers map[catalog.NodeName]*Consumer
	if p != nil {
		consumers = p.Consumers
	}
	flow := make(map[catalog.NodeName]map[string]string, len(order))
	var notes []string
	for _, n := range order {
		m := map[string]string{}
		if c, ok := consumers[n]; ok {
			for _, b := range c.Bindings {
				m[b.Input] = string(b.Provider) + ":" + b.Output
			}
			for _, u := range c.Unbound {
				if u.Missing() {
					notes = append(notes, fmt.Sprintf("%s: required input '%s' is not bound: %s", n, u.Input, u.Why()))
				}
			}
		} else {
			for i, parent := range d.Parents(n) {
				m[fmt.Sprintf("input_%d", i)] = string(parent) + ":output"
			}
		}
		flow[n] = m
	}
	return flow, notes
}

package deps

import (
	"context"

	"github.com/cursus-go/cursus/engine/dag"
)

// Partial is what ResolveKnown finds: the consumers of the nodes lookup
// knows, by node name, and the nodes it does not know, in DAG order.
type Partial struct {
	Consumers map[string]*Consumer
	Unknown   []string
}

// ResolveKnown resolves, along d's declared edges, every node lookup knows
// and does not fail on the others: an unknown node is listed in Unknown
// and, as a parent, offers no output. It is what a view of a DAG under
// construction needs (a drawing, an execution plan), where Resolve would
// refuse the whole DAG.
func ResolveKnown(ctx context.Context, d *dag.PipelineDAG, lookup StepLookup) (*Partial, error) {
	nodes := d.Nodes()
	known := make(map[string]Node, len(nodes))
	out := &Partial{Consumers: make(map[string]*Consumer, len(nodes))}
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

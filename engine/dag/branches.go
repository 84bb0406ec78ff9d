package dag

import (
	"fmt"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/internal/strlist"
)

// Branch is the part of a DAG a gate guards. A gate is a node whose step
// decides whether the nodes after it run (a quality gate compiles to a
// SageMaker Condition step): every declared node downstream of it is in its
// branch and runs only when the gate passes. Branches nest: a gate inside
// another gate's branch has a branch of its own inside it.
type Branch struct {
	Gate catalog.NodeName `json:"gate"`
	// Parent is the gate whose branch holds this gate ("" at the top).
	Parent catalog.NodeName `json:"parent,omitempty"`
	// Nodes are the nodes directly in the branch, in topological order: a
	// nested gate is one of them, its own nodes are in its Branch.
	Nodes []catalog.NodeName `json:"nodes"`
}

// BranchConflictError is a node downstream of two gates neither of which
// is downstream of the other: it would have to sit in two branches.
type BranchConflictError struct {
	Node  catalog.NodeName
	Gates []catalog.NodeName
}

// BranchConflictFix is the way out of a *BranchConflictError.
const BranchConflictFix = "put one gate after the other, or give each branch its own nodes"

// Error names the node and the gates.
func (e *BranchConflictError) Error() string {
	return fmt.Sprintf("node %s is downstream of gates %s, neither of which is downstream of the other: a node can be in one gate's branch only (%s)",
		e.Node, strlist.Join(e.Gates, " and "), BranchConflictFix)
}

// Branches returns the branch of every gate among the declared nodes, in
// topological order of the gates; isGate says which nodes are gates. The
// DAG must be sortable (see TopologicalSort, whose error it returns); a
// node below two gates that are not one above the other is a
// *BranchConflictError.
func (d *PipelineDAG) Branches(isGate func(node catalog.NodeName) bool) ([]Branch, error) {
	order, err := d.TopologicalSort()
	if err != nil {
		return nil, err
	}
	var gates []catalog.NodeName
	for _, n := range order {
		if isGate(n) {
			gates = append(gates, n)
		}
	}
	if len(gates) == 0 {
		return nil, nil
	}
	// below[g] is the set of declared nodes downstream of gate g.
	below := make(map[catalog.NodeName]map[catalog.NodeName]bool, len(gates))
	for _, g := range gates {
		below[g] = d.descendants(g)
	}
	// A node's innermost gate is the one, among the gates above it, that
	// every other gate above it is above; the gates above a node must form
	// a chain.
	innermost := func(n catalog.NodeName) (catalog.NodeName, error) {
		var above []catalog.NodeName
		for _, g := range gates {
			if below[g][n] {
				above = append(above, g)
			}
		}
		if len(above) == 0 {
			return "", nil
		}
		in := above[0]
		for _, g := range above[1:] {
			switch {
			case below[in][g]:
				in = g
			case below[g][in]:
			default:
				return "", &BranchConflictError{Node: n, Gates: []catalog.NodeName{in, g}}
			}
		}
		return in, nil
	}
	out := make([]Branch, len(gates))
	idx := make(map[catalog.NodeName]int, len(gates))
	for i, g := range gates {
		parent, err := innermost(g)
		if err != nil {
			return nil, err
		}
		out[i] = Branch{Gate: g, Parent: parent, Nodes: []catalog.NodeName{}}
		idx[g] = i
	}
	for _, n := range order {
		g, err := innermost(n)
		if err != nil {
			return nil, err
		}
		if g != "" {
			out[idx[g]].Nodes = append(out[idx[g]].Nodes, n)
		}
	}
	return out, nil
}

// InBranch maps every node inside a branch to its innermost gate.
func InBranch(branches []Branch) map[catalog.NodeName]catalog.NodeName {
	m := map[catalog.NodeName]catalog.NodeName{}
	for _, b := range branches {
		for _, n := range b.Nodes {
			m[n] = b.Gate
		}
	}
	return m
}

// descendants is the set of declared nodes reachable from name.
func (d *PipelineDAG) descendants(name catalog.NodeName) map[catalog.NodeName]bool {
	seen := map[catalog.NodeName]bool{}
	id, ok := d.ids[name]
	if !ok {
		return seen
	}
	stack := []int32{id}
	visited := map[int32]bool{id: true}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range d.out[v] {
			if visited[c] {
				continue
			}
			visited[c] = true
			if d.pos[c] >= 0 {
				seen[d.names[c]] = true
			}
			stack = append(stack, c)
		}
	}
	return seen
}

package dag

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Edge is a directed edge: From runs before To. In JSON it is the pair
// [from, to].
type Edge struct {
	From catalog.NodeName
	To   catalog.NodeName
}

// String renders the edge as "from -> to".
func (e Edge) String() string { return fmt.Sprintf("%s -> %s", e.From, e.To) }

// MarshalJSON encodes the edge as a two-element array.
func (e Edge) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]catalog.NodeName{e.From, e.To})
}

// UnmarshalJSON decodes a two-element array of strings.
func (e *Edge) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("edge must be a [src, dst] pair: %w", err)
	}
	if len(pair) != 2 {
		return fmt.Errorf("edge must be a [src, dst] pair, got %d elements", len(pair))
	}
	var from, to catalog.NodeName
	if err := json.Unmarshal(pair[0], &from); err != nil {
		return fmt.Errorf("edge source must be a string: %s", pair[0])
	}
	if err := json.Unmarshal(pair[1], &to); err != nil {
		return fmt.Errorf("edge destination must be a string: %s", pair[1])
	}
	e.From, e.To = from, to
	return nil
}

// ErrNotSortable is returned (wrapped in a *SortError) by TopologicalSort
// when the graph has a cycle or a node that waits on an undeclared node.
var ErrNotSortable = errors.New("DAG has cycles or disconnected nodes")

// SortError is the error of TopologicalSort: Unplaced lists, in node order,
// the nodes that could not be placed (those on or after a cycle, or behind
// an edge from an undeclared node).
type SortError struct {
	Unplaced []catalog.NodeName
}

// Error returns ErrNotSortable's message, which names both causes.
func (e *SortError) Error() string { return ErrNotSortable.Error() }

// Unwrap returns ErrNotSortable.
func (e *SortError) Unwrap() error { return ErrNotSortable }

// PipelineDAG is a directed graph of pipeline steps with insertion-ordered
// nodes and edges. The zero value is not usable; call New. A PipelineDAG is
// not safe for concurrent mutation; concurrent reads are safe.
type PipelineDAG struct {
	nodes    []catalog.NodeName         // declared nodes, insertion order
	pos      []int32                    // vertex id -> position in nodes, -1 when undeclared
	ids      map[catalog.NodeName]int32 // every vertex: declared nodes and edge endpoints
	names    []catalog.NodeName         // vertex id -> name
	edges    []Edge                     // insertion order, no duplicates
	edgeSet  map[[2]int32]struct{}
	out, in  [][]int32 // vertex adjacency in edge insertion order
	dupNodes []catalog.NodeName
	dupEdges []Edge
}

// New builds a DAG from declared nodes and edges, both kept in order.
// Edge endpoints are not declared as nodes (see the package doc); repeated
// nodes and edges are ignored and reported by Duplicates.
func New(nodes []catalog.NodeName, edges []Edge) *PipelineDAG {
	d := &PipelineDAG{
		nodes:   make([]catalog.NodeName, 0, len(nodes)),
		ids:     make(map[catalog.NodeName]int32, len(nodes)+len(edges)/4),
		edgeSet: make(map[[2]int32]struct{}, len(edges)),
	}
	for _, n := range nodes {
		d.AddNode(n)
	}
	for _, e := range edges {
		d.AddEdge(e.From, e.To)
	}
	return d
}

// FromPairs builds a DAG from nodes and [src, dst] pairs; a pair that does
// not have exactly two elements is an error naming its index.
func FromPairs(nodes []catalog.NodeName, pairs [][]catalog.NodeName) (*PipelineDAG, error) {
	edges := make([]Edge, 0, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("edges[%d] must be a [src, dst] pair, got %d element(s)", i, len(p))
		}
		edges = append(edges, Edge{From: p[0], To: p[1]})
	}
	return New(nodes, edges), nil
}

func (d *PipelineDAG) vertex(name catalog.NodeName) int32 {
	if id, ok := d.ids[name]; ok {
		return id
	}
	id := int32(len(d.names))
	d.ids[name] = id
	d.names = append(d.names, name)
	d.pos = append(d.pos, -1)
	d.out = append(d.out, nil)
	d.in = append(d.in, nil)
	return id
}

// AddNode declares a node and reports whether it was new. Declaring a name
// that so far was only an edge endpoint makes it a node (appended last).
func (d *PipelineDAG) AddNode(name catalog.NodeName) bool {
	id := d.vertex(name)
	if d.pos[id] >= 0 {
		d.dupNodes = append(d.dupNodes, name)
		return false
	}
	d.pos[id] = int32(len(d.nodes))
	d.nodes = append(d.nodes, name)
	return true
}

// AddEdge adds the edge from -> to and reports whether it was new. It never
// declares its endpoints.
func (d *PipelineDAG) AddEdge(from, to catalog.NodeName) bool {
	f, t := d.vertex(from), d.vertex(to)
	key := [2]int32{f, t}
	if _, dup := d.edgeSet[key]; dup {
		d.dupEdges = append(d.dupEdges, Edge{From: from, To: to})
		return false
	}
	d.edgeSet[key] = struct{}{}
	d.edges = append(d.edges, Edge{From: from, To: to})
	d.out[f] = append(d.out[f], t)
	d.in[t] = append(d.in[t], f)
	return true
}

// Nodes returns the declared nodes in insertion order (a copy).
func (d *PipelineDAG) Nodes() []catalog.NodeName { return append([]catalog.NodeName{}, d.nodes...) }

// Edges returns the edges in insertion order (a copy).
func (d *PipelineDAG) Edges() []Edge { return append([]Edge{}, d.edges...) }

// EdgePairs returns the edges as [src, dst] pairs, the JSON shape.
func (d *PipelineDAG) EdgePairs() [][]catalog.NodeName {
	out := make([][]catalog.NodeName, len(d.edges))
	for i, e := range d.edges {
		out[i] = []catalog.NodeName{e.From, e.To}
	}
	return out
}

// NodeCount is the number of declared nodes.
func (d *PipelineDAG) NodeCount() int { return len(d.nodes) }

// EdgeCount is the number of distinct edges.
func (d *PipelineDAG) EdgeCount() int { return len(d.edges) }

// HasNode reports whether name is a declared node.
func (d *PipelineDAG) HasNode(name catalog.NodeName) bool {
	id, ok := d.ids[name]
	return ok && d.pos[id] >= 0
}

// Duplicates returns the node declarations and edges that were ignored
// because they repeated an earlier one, in the order they were given.
func (d *PipelineDAG) Duplicates() (nodes []catalog.NodeName, edges []Edge) {
	return append([]catalog.NodeName{}, d.dupNodes...), append([]Edge{}, d.dupEdges...)
}

func (d *PipelineDAG) namesOf(ids []int32) []catalog.NodeName {
	out := make([]catalog.NodeName, len(ids))
	for i, id := range ids {
		out[i] = d.names[id]
	}
	return out
}

// Parents returns the immediate predecessors of name in edge insertion
// order, including undeclared edge endpoints; nil when name has none or is
// unknown.
func (d *PipelineDAG) Parents(name catalog.NodeName) []catalog.NodeName {
	id, ok := d.ids[name]
	if !ok {
		return nil
	}
	return d.namesOf(d.in[id])
}

// Children returns the immediate successors of name in edge insertion
// order, including undeclared edge endpoints.
func (d *PipelineDAG) Children(name catalog.NodeName) []catalog.NodeName {
	id, ok := d.ids[name]
	if !ok {
		return nil
	}
	return d.namesOf(d.out[id])
}

// DeclaredParents is Parents without the undeclared endpoints: the
// predecessors that are nodes of the DAG.
func (d *PipelineDAG) DeclaredParents(name catalog.NodeName) []catalog.NodeName {
	id, ok := d.ids[name]
	if !ok {
		return nil
	}
	var out []catalog.NodeName
	for _, p := range d.in[id] {
		if d.pos[p] >= 0 {
			out = append(out, d.names[p])
		}
	}
	return out
}

// EntryNodes returns the declared nodes without predecessors, in node order.
func (d *PipelineDAG) EntryNodes() []catalog.NodeName {
	out := []catalog.NodeName{}
	for _, n := range d.nodes {
		if len(d.in[d.ids[n]]) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// ExitNodes returns the declared nodes without successors, in node order.
func (d *PipelineDAG) ExitNodes() []catalog.NodeName {
	out := []catalog.NodeName{}
	for _, n := range d.nodes {
		if len(d.out[d.ids[n]]) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// IsolatedNodes returns the declared nodes that no edge touches.
func (d *PipelineDAG) IsolatedNodes() []catalog.NodeName {
	out := []catalog.NodeName{}
	for _, n := range d.nodes {
		id := d.ids[n]
		if len(d.in[id]) == 0 && len(d.out[id]) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// UndeclaredEndpoints returns the edge endpoints that are not declared
// nodes, each once, in the order the edges name them.
func (d *PipelineDAG) UndeclaredEndpoints() []catalog.NodeName {
	var out []catalog.NodeName
	seen := make(map[catalog.NodeName]bool)
	for _, e := range d.edges {
		for _, n := range [2]catalog.NodeName{e.From, e.To} {
			if !d.HasNode(n) && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// topo runs Kahn's algorithm over the declared nodes and returns vertex ids
// in order; ok is false when not every node could be placed.
func (d *PipelineDAG) topo() (order []int32, ok bool) {
	indeg := make([]int32, len(d.names))
	for id := range d.names {
		if d.pos[id] < 0 {
			continue
		}
		indeg[id] = int32(len(d.in[id])) // edges from undeclared nodes count: they never release
	}
	queue := make([]int32, 0, len(d.nodes))
	for _, n := range d.nodes {
		if id := d.ids[n]; indeg[id] == 0 {
			queue = append(queue, id)
		}
	}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, c := range d.out[v] {
			if d.pos[c] < 0 {
				continue
			}
			indeg[c]--
			if indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	return queue, len(queue) == len(d.nodes)
}

// TopologicalSort returns the declared nodes in execution order: Kahn's
// algorithm with a FIFO queue in node insertion order, children in edge
// order. On a cycle, or a node waiting on an undeclared node, it returns a
// *SortError (errors.Is(err, ErrNotSortable)).
func (d *PipelineDAG) TopologicalSort() ([]catalog.NodeName, error) {
	order, ok := d.topo()
	if !ok {
		placed := make([]bool, len(d.names))
		for _, v := range order {
			placed[v] = true
		}
		var left []catalog.NodeName
		for _, n := range d.nodes {
			if !placed[d.ids[n]] {
				left = append(left, n)
			}
		}
		return nil, &SortError{Unplaced: left}
	}
	return d.namesOf(order), nil
}

// MaxDepth is the number of edges on the longest path between declared
// nodes, or 0 when the graph does not sort.
func (d *PipelineDAG) MaxDepth() int {
	order, ok := d.topo()
	return d.maxDepth(order, ok)
}

func (d *PipelineDAG) maxDepth(order []int32, ok bool) int {
	if !ok {
		return 0
	}
	depth := make([]int32, len(d.names))
	var best int32
	for _, v := range order {
		for _, p := range d.in[v] {
			if depth[p]+1 > depth[v] {
				depth[v] = depth[p] + 1
			}
		}
		if depth[v] > best {
			best = depth[v]
		}
	}
	return int(best)
}

// Statistics summarises the graph as the serialized file does.
type Statistics struct {
	NodeCount     int                `json:"node_count"`
	EdgeCount     int                `json:"edge_count"`
	HasCycles     bool               `json:"has_cycles"`
	EntryNodes    []catalog.NodeName `json:"entry_nodes"`
	ExitNodes     []catalog.NodeName `json:"exit_nodes"`
	MaxDepth      int                `json:"max_depth"`
	IsolatedNodes []catalog.NodeName `json:"isolated_nodes"`
}

// Statistics computes the file statistics. HasCycles is true whenever the
// graph does not sort, which includes a node waiting on an undeclared
// node.
func (d *PipelineDAG) Statistics() Statistics {
	order, ok := d.topo()
	return Statistics{
		NodeCount:     len(d.nodes),
		EdgeCount:     len(d.edges),
		HasCycles:     !ok,
		EntryNodes:    d.EntryNodes(),
		ExitNodes:     d.ExitNodes(),
		MaxDepth:      d.maxDepth(order, ok),
		IsolatedNodes: d.IsolatedNodes(),
	}
}

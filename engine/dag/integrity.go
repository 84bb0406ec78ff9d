package dag

import (
	"fmt"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/strlist"
)

// Integrity issue categories, the keys of Issues.
const (
	CategoryCycles     = "cycles"
	CategoryDangling   = "dangling_dependencies"
	CategoryUndeclared = "undeclared_edge_nodes"
	CategoryIsolated   = "isolated_nodes"
	CategoryMissing    = "missing_steps"
)

// DefaultMaxCycles bounds the number of cycles Validate lists when
// ValidateOptions.MaxCycles is zero.
const DefaultMaxCycles = 100

// Issues maps an issue category to its messages; a category with no issue
// is absent, so a valid graph has empty Issues.
type Issues map[string][]string

// Valid reports whether there is no issue.
func (is Issues) Valid() bool { return len(is) == 0 }

// Categories returns the categories present, sorted.
func (is Issues) Categories() []string { return mapkeys.Sorted(is) }

func (is Issues) add(cat, msg string) { is[cat] = append(is[cat], msg) }

// ValidateOptions tunes Validate.
type ValidateOptions struct {
	// StepKnown, when set, is asked about every declared node; nodes it
	// rejects are reported under missing_steps. Leave nil to skip the check
	// (no catalog at hand).
	StepKnown func(node catalog.NodeName) bool
	// MaxCycles bounds the cycles listed (0 means DefaultMaxCycles); when
	// more exist a final message says the list was cut.
	MaxCycles int
}

// Validate checks the graph's integrity and returns the issues by category:
//
//   - cycles: "Cycle detected: a -> b -> c", one per elementary cycle (edges
//     through undeclared endpoints included), each starting at its earliest
//     node;
//   - dangling_dependencies: "Edge references non-existent source node: x"
//     or "... destination node: x", per edge;
//   - undeclared_edge_nodes: each edge endpoint that is not a declared node;
//   - isolated_nodes: "Node has no connections: x" for declared nodes no
//     edge touches;
//   - missing_steps: declared nodes opts.StepKnown rejects.
func (d *PipelineDAG) Validate(opts ValidateOptions) Issues {
	is := Issues{}
	max := opts.MaxCycles
	if max <= 0 {
		max = DefaultMaxCycles
	}
	cycles, cut := d.cycles(max)
	for _, c := range cycles {
		is.add(CategoryCycles, "Cycle detected: "+strlist.Join(d.namesOf(c), " -> "))
	}
	if cut {
		is.add(CategoryCycles, fmt.Sprintf("more cycles exist; only the first %d are listed", max))
	}
	for _, e := range d.edges {
		if !d.HasNode(e.From) {
			is.add(CategoryDangling, fmt.Sprintf("Edge references non-existent source node: %s", e.From))
		}
		if !d.HasNode(e.To) {
			is.add(CategoryDangling, fmt.Sprintf("Edge references non-existent destination node: %s", e.To))
		}
	}
	for _, n := range d.UndeclaredEndpoints() {
		is.add(CategoryUndeclared, fmt.Sprintf("Edge endpoint '%s' is not a declared node (likely a typo, or a node missing from the node list); it has no step and no config", n))
	}
	for _, n := range d.IsolatedNodes() {
		is.add(CategoryIsolated, fmt.Sprintf("Node has no connections: %s", n))
	}
	if opts.StepKnown != nil {
		for _, n := range d.nodes {
			if !opts.StepKnown(n) {
				is.add(CategoryMissing, fmt.Sprintf("Step '%s' not found in catalog", n))
			}
		}
	}
	return is
}

// Cycles returns up to max elementary cycles (0 means DefaultMaxCycles),
// each as node names starting at its earliest node, and whether more exist.
func (d *PipelineDAG) Cycles(max int) (cycles [][]catalog.NodeName, truncated bool) {
	if max <= 0 {
		max = DefaultMaxCycles
	}
	ids, cut := d.cycles(max)
	for _, c := range ids {
		cycles = append(cycles, d.namesOf(c))
	}
	return cycles, cut
}

// cycles enumerates elementary cycles with Johnson's algorithm. Vertices are
// ranked declared nodes first (node order) then undeclared endpoints; each
// cycle is reported from its lowest-ranked vertex. It stops once it has
// found max+1 cycles, returns the first max and reports that more exist. Each round costs one
// strongly-connected-components pass, and every round finds a cycle, so an
// acyclic graph costs a single linear pass.
func (d *PipelineDAG) cycles(max int) (out [][]int32, truncated bool) {
	n := len(d.names)
	if n == 0 {
		return nil, false
	}
	byRank := make([]int32, 0, n)
	for _, name := range d.nodes {
		byRank = append(byRank, d.ids[name])
	}
	for id := range d.names {
		if d.pos[id] < 0 {
			byRank = append(byRank, int32(id))
		}
	}
	rank := make([]int32, n)
	for r, v := range byRank {
		rank[v] = int32(r)
	}

	comp := make([]int32, n) // component label of the current round
	blocked := make([]bool, n)
	bsets := make([][]int32, n)
	var stack []int32

	for start := int32(0); int(start) < n; {
		// Strongly connected components of the subgraph of rank >= start.
		label := d.sccs(rank, start, comp)
		// The non-trivial component holding the lowest-ranked vertex.
		best := int32(-1)
		for r := start; int(r) < n; r++ {
			v := byRank[r]
			if label[comp[v]] {
				best = v
				break
			}
		}
		if best < 0 {
			return out, false
		}
		s, sc := best, comp[best]
		in := func(w int32) bool { return rank[w] >= rank[s] && comp[w] == sc }
		for v := range d.names {
			if in(int32(v)) {
				blocked[v] = false
				bsets[v] = bsets[v][:0]
			}
		}
		var unblock func(u int32)
		unblock = func(u int32) {
			blocked[u] = false
			for len(bsets[u]) > 0 {
				w := bsets[u][len(bsets[u])-1]
				bsets[u] = bsets[u][:len(bsets[u])-1]
				if blocked[w] {
					unblock(w)
				}
			}
		}
		stop := false
		var circuit func(v int32) bool
		circuit = func(v int32) bool {
			found := false
			stack = append(stack, v)
			blocked[v] = true
			for _, w := range d.out[v] {
				if stop {
					break
				}
				if !in(w) {
					continue
				}
				if w == s {
					out = append(out, append([]int32{}, stack...))
					found = true
					if len(out) > max {
						stop = true
					}
				} else if !blocked[w] && circuit(w) {
					found = true
				}
			}
			if found {
				unblock(v)
			} else {
				for _, w := range d.out[v] {
					if in(w) && !containsID(bsets[w], v) {
						bsets[w] = append(bsets[w], v)
					}
				}
			}
			stack = stack[:len(stack)-1]
			return found
		}
		circuit(s)
		if stop { // one more than asked for: there are more
			return out[:max], true
		}
		start = rank[s] + 1
	}
	return out, false
}

func containsID(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sccs labels the strongly connected components of the subgraph of vertices
// ranked >= start (Tarjan, iterative) into comp and returns, per component
// label, whether it holds a cycle (more than one vertex, or a self-loop).
func (d *PipelineDAG) sccs(rank []int32, start int32, comp []int32) []bool {
	n := len(d.names)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
		comp[i] = -1
	}
	var stack []int32
	var cyclic []bool
	next := int32(0)
	type frame struct {
		v int32
		i int
	}
	var call []frame
	for root := 0; root < n; root++ {
		if rank[root] < start || index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{v: int32(root)})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.i < len(d.out[v]) {
				w := d.out[v][f.i]
				f.i++
				if rank[w] < start {
					continue
				}
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				label := int32(len(cyclic))
				size := 0
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = label
					size++
					if w == v {
						break
					}
				}
				hasCycle := size > 1
				if !hasCycle {
					for _, w := range d.out[v] {
						if w == v {
							hasCycle = true
							break
						}
					}
				}
				cyclic = append(cyclic, hasCycle)
			}
		}
	}
	return cyclic
}

package pipelines

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/deps"
)

// AdaptedDAG is a catalog DAG with the mechanical changes that make it
// serve more of a need applied: its loading steps swapped for the source
// the data lives in, its training replaced by an existing model, steps of
// another catalog DAG inserted where that DAG has them. The changes are
// named; the caller should check the result (dag.validate_integrity,
// validate.deps_resolve) before using it.
type AdaptedDAG struct {
	// From is the catalog DAG it starts from.
	From string `json:"from"`
	// Changes are the changes applied, in order.
	Changes []string `json:"changes"`
	Nodes   []string `json:"nodes"`
	// Edges are [from, to] pairs.
	Edges [][]string `json:"edges"`
}

// graph is a DAG being changed.
type graph struct {
	nodes []string
	edges [][]string
}

func (g *graph) clone() *graph {
	c := &graph{nodes: slices.Clone(g.nodes)}
	for _, p := range g.edges {
		c.edges = append(c.edges, slices.Clone(p))
	}
	return c
}

// unwired lists the nodes of g whose required inputs find no upstream
// output along its edges (dependency resolution, as the compiler does it),
// and the nodes no catalog step type serves; nil when every node wires.
func (g *graph) unwired(steps *catalog.Catalog, res *deps.Resolver) []string {
	nodes := make([]catalog.NodeName, len(g.nodes))
	for i, n := range g.nodes {
		nodes[i] = catalog.NodeName(n)
	}
	edges := make([]dag.Edge, len(g.edges))
	for i, p := range g.edges {
		edges[i] = dag.Edge{From: catalog.NodeName(p[0]), To: catalog.NodeName(p[1])}
	}
	d := dag.New(nodes, edges)
	m := deps.DAGMembers(steps, d)
	var out []string
	for _, n := range m.Missing {
		out = append(out, string(n))
	}
	rep, err := res.ReportSet(context.Background(), m.Found, d.DeclaredParents)
	if err != nil {
		return append(out, err.Error())
	}
	for _, n := range rep.WithErrors {
		out = append(out, string(n))
	}
	return out
}

// wiring checks graphs against a step catalog and remembers each answer:
// a catalog is read-only once loaded, so the answers hold for every
// Recommend call on it (the same few dozen DAGs and their adaptations are
// checked again and again). It is safe for concurrent use.
type wiring struct {
	steps *catalog.Catalog
	mu    sync.Mutex
	res   *deps.Resolver
	memo  map[string][]string
}

// wirings holds one wiring per step catalog; maxWirings bounds it (a
// caller building catalogs of its own gets a fresh one past the bound).
var (
	wiringsMu sync.Mutex
	wirings   = map[*catalog.Catalog]*wiring{}
)

const maxWirings = 8

func newWiring(steps *catalog.Catalog) *wiring {
	wiringsMu.Lock()
	defer wiringsMu.Unlock()
	if w, ok := wirings[steps]; ok {
		return w
	}
	w := &wiring{steps: steps, res: deps.NewResolver(), memo: map[string][]string{}}
	if len(wirings) < maxWirings {
		wirings[steps] = w
	}
	return w
}

// maxMemo bounds the answers a wiring keeps.
const maxMemo = 4096

func (w *wiring) unwired(g *graph) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, n := range g.nodes {
		b.WriteString(n)
		b.WriteByte(',')
	}
	for _, e := range g.edges {
		b.WriteString(e[0] + ">" + e[1] + ",")
	}
	key := b.String()
	if out, ok := w.memo[key]; ok {
		return out
	}
	out := g.unwired(w.steps, w.res)
	if len(w.memo) < maxMemo {
		w.memo[key] = out
	}
	return out
}

// wiresAsBefore reports whether a change from before to after leaves no
// node unwired that was not unwired before.
func wiresAsBefore(before, after *graph, w *wiring) bool {
	if w.steps == nil {
		return false
	}
	was := w.unwired(before)
	for _, n := range w.unwired(after) {
		if !slices.Contains(was, n) {
			return false
		}
	}
	return true
}

func entryGraph(e *Entry) *graph {
	g := &graph{nodes: slices.Clone(e.Nodes)}
	for _, p := range e.Edges {
		g.edges = append(g.edges, slices.Clone(p))
	}
	return g
}

func (g *graph) has(n string) bool { return slices.Contains(g.nodes, n) }

func (g *graph) hasEdge(a, b string) bool {
	return slices.ContainsFunc(g.edges, func(p []string) bool { return p[0] == a && p[1] == b })
}

func (g *graph) addEdge(a, b string) {
	if !g.hasEdge(a, b) {
		g.edges = append(g.edges, []string{a, b})
	}
}

func (g *graph) rename(from, to string) {
	for i, n := range g.nodes {
		if n == from {
			g.nodes[i] = to
		}
	}
	for _, p := range g.edges {
		for j := range p {
			if p[j] == from {
				p[j] = to
			}
		}
	}
}

func (g *graph) remove(n string) {
	g.nodes = slices.DeleteFunc(g.nodes, func(x string) bool { return x == n })
	g.edges = slices.DeleteFunc(g.edges, func(p []string) bool { return p[0] == n || p[1] == n })
}

func (g *graph) parents(n string) []string {
	var out []string
	for _, p := range g.edges {
		if p[1] == n {
			out = append(out, p[0])
		}
	}
	return out
}

func (g *graph) children(n string) []string {
	var out []string
	for _, p := range g.edges {
		if p[0] == n {
			out = append(out, p[1])
		}
	}
	return out
}

// jobSuffix is the job-type part of a node name ("" for none).
func jobSuffix(n string) string { _, j, _ := strings.Cut(n, "_"); return j }

// stepTypeOf is the step type part of a node name.
func stepTypeOf(n string) string { t, _, _ := strings.Cut(n, "_"); return t }

// loaderOf is the loading step type that reads a source ("" for none).
func loaderOf(src string) string {
	for t, s := range LoadingSteps {
		if s == src {
			return t
		}
	}
	return ""
}

// swapSource renames g's loading nodes to the loading step of src; the
// change says which, or ok is false when there is nothing to swap.
func swapSource(g *graph, src string) (string, bool) {
	to := loaderOf(src)
	if to == "" {
		return "", false
	}
	var from, into []string
	for _, n := range slices.Clone(g.nodes) {
		t := stepTypeOf(n)
		if _, loads := LoadingSteps[t]; !loads || t == to {
			continue
		}
		renamed := to + strings.TrimPrefix(n, t)
		g.rename(n, renamed)
		from, into = append(from, n), append(into, renamed)
	}
	if len(from) == 0 {
		return "", false
	}
	return fmt.Sprintf("replace %s with %s (%s reads %s)", strings.Join(from, ", "), strings.Join(into, ", "), to, src), true
}

// spliceFeature inserts into g the nodes of n that give it feature: each
// between its nearest ancestors and descendants in n that g has (or that
// are inserted), replacing g's direct edges between them. ok is false when
// n has no such node g lacks, or one would hang loose.
func spliceFeature(g *graph, n *Entry, feature string, steps *catalog.Catalog) (string, bool) {
	return spliceNodes(g, n, featureNodes(n, feature, steps))
}

// spliceStep inserts into g the nodes of n of one step type, as
// spliceFeature does.
func spliceStep(g *graph, n *Entry, stepType string) (string, bool) {
	var nodes []string
	for _, x := range n.Nodes {
		if stepTypeOf(x) == stepType {
			nodes = append(nodes, x)
		}
	}
	return spliceNodes(g, n, nodes)
}

// spliceNodes inserts the nodes of n among candidates whose step type g
// lacks, each where n has it (see spliceFeature).
func spliceNodes(g *graph, n *Entry, candidates []string) (string, bool) {
	have := map[string]bool{}
	for _, x := range g.nodes {
		have[stepTypeOf(x)] = true
	}
	var add []string
	for _, x := range candidates {
		if !have[stepTypeOf(x)] && !g.has(x) {
			add = append(add, x)
		}
	}
	if len(add) == 0 {
		return "", false
	}
	src := entryGraph(n)
	kept := func(x string) bool { return g.has(x) || slices.Contains(add, x) }
	// nearest kept neighbours of x in n, walking through nodes that are not kept
	lost := false
	var near func(x string, up bool, seen map[string]bool) []string
	near = func(x string, up bool, seen map[string]bool) []string {
		var out []string
		next := src.children(x)
		if up {
			next = src.parents(x)
			if len(next) == 0 && !kept(x) {
				lost = true // a parent branch of an inserted step that g does not have
			}
		}
		if !kept(x) {
			// through a step left out, follow its own branch: its parents
			// (children) of the same job type when it has any
			var same []string
			for _, y := range next {
				if jobSuffix(y) == jobSuffix(x) {
					same = append(same, y)
				}
			}
			if len(same) > 0 {
				next = same
			}
		}
		for _, y := range next {
			if seen[y] {
				continue
			}
			seen[y] = true
			if kept(y) {
				out = append(out, y)
			} else {
				out = append(out, near(y, up, seen)...)
			}
		}
		return out
	}
	type place struct{ ps, cs []string }
	places := map[string]place{}
	for _, x := range add {
		ps, cs := near(x, true, map[string]bool{}), near(x, false, map[string]bool{})
		if len(ps) == 0 || lost {
			return "", false
		}
		places[x] = place{ps, cs}
	}
	var parts []string
	for _, x := range add {
		g.nodes = append(g.nodes, x)
	}
	for _, x := range add {
		pl := places[x]
		for _, p := range pl.ps {
			for _, c := range pl.cs {
				g.edges = slices.DeleteFunc(g.edges, func(e []string) bool { return e[0] == p && e[1] == c })
			}
		}
		for _, p := range pl.ps {
			g.addEdge(p, x)
		}
		for _, c := range pl.cs {
			g.addEdge(x, c)
		}
		where := "after " + strings.Join(pl.ps, ", ")
		if len(pl.cs) > 0 {
			where += ", before " + strings.Join(pl.cs, ", ")
		}
		parts = append(parts, x+" "+where)
	}
	return fmt.Sprintf("insert %s (as %s has them)", strings.Join(parts, "; "), n.ID), true
}

// standInModel replaces g's training nodes with the catalog's stand-in for
// an existing model (a step whose keywords say pretrained) and drops the
// nodes that only fed the training. ok is false when g trains nothing or
// the catalog has no stand-in.
func standInModel(g *graph, steps *catalog.Catalog) (string, bool) {
	if steps == nil {
		return "", false
	}
	var stand *catalog.Step
	for _, st := range steps.Steps() {
		if slices.Contains(st.Keywords, "pretrained") && (stand == nil || st.Framework == "generic") {
			stand = st
		}
	}
	var trainers []string
	for _, n := range g.nodes {
		if st, _, err := steps.Lookup(n); err == nil && (st.Verb == catalog.VerbTraining || st.Verb == catalog.VerbTuning) {
			trainers = append(trainers, n)
		}
	}
	if stand == nil || len(trainers) != 1 {
		return "", false
	}
	trainer, name := trainers[0], string(stand.Type)
	if g.has(name) {
		return "", false
	}
	ancestors := map[string]bool{}
	var up func(string)
	up = func(x string) {
		for _, p := range g.parents(x) {
			if !ancestors[p] {
				ancestors[p] = true
				up(p)
			}
		}
	}
	up(trainer)
	g.edges = slices.DeleteFunc(g.edges, func(e []string) bool { return e[1] == trainer })
	g.rename(trainer, name)
	// an ancestor of the training that no longer reaches any node is dropped
	var dropped []string
	for changed := true; changed; {
		changed = false
		for _, x := range slices.Clone(g.nodes) {
			if ancestors[x] && len(g.children(x)) == 0 {
				g.remove(x)
				dropped = append(dropped, x)
				changed = true
			}
		}
	}
	how := ""
	for _, in := range stand.Inputs {
		if in.ConfigSource != "" {
			how = fmt.Sprintf(" (its %s is the existing model's S3 URI)", in.ConfigSource)
			break
		}
	}
	change := fmt.Sprintf("replace %s with %s%s", trainer, name, how)
	if len(dropped) > 0 {
		slices.Sort(dropped)
		change += " and drop " + strings.Join(dropped, ", ") + ", which only fed the training"
	}
	return change, true
}

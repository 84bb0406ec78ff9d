package deps

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Drawing is a DAG drawn as a Mermaid flowchart, with what the drawing
// shows as data: each edge with the ports it binds and the required inputs
// left unbound (<node>.<input>).
type Drawing struct {
	Mermaid    string      `json:"mermaid"`
	Edges      []DrawnEdge `json:"edges"`
	Unresolved []string    `json:"unresolved_inputs"`
}

// DrawnEdge is one edge of a Drawing with the ports it binds.
type DrawnEdge struct {
	From  catalog.NodeName `json:"from"`
	To    catalog.NodeName `json:"to"`
	Ports []BoundPort      `json:"ports"`
}

// BoundPort is a provider output bound to a consumer input, with its score.
type BoundPort struct {
	Output string  `json:"output"`
	Input  string  `json:"input"`
	Score  float64 `json:"score"`
}

// mermaidEscaper escapes a label for a quoted Mermaid string; a Replacer
// is safe for concurrent use, so every label shares one.
var mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "\n", " ")

// mermaidText escapes a label for a quoted Mermaid string.
func mermaidText[S ~string](s S) string { return mermaidEscaper.Replace(string(s)) }

// Mermaid draws d as a flowchart in a direction (TD when ""). With a
// resolution (p, from ResolveKnown; nil: topology only) each edge is
// labelled with the ports it binds, a node with a required input left
// unbound is marked, and so are the nodes p does not know. Undeclared edge
// endpoints are drawn dashed. A gate (a node named in gates, as Branches
// finds them) is drawn as a decision: its edges are labelled pass, and a
// fail edge leads to its Fail step, which ends the run. Node ids are n<i>
// in node order (u<i> for undeclared endpoints, f<i> for Fail steps), so
// any node name is safe; names are quoted labels.
func Mermaid(d *dag.PipelineDAG, direction string, p *Partial, gates []catalog.NodeName) Drawing {
	if direction == "" {
		direction = "TD"
	}
	var consumers map[catalog.NodeName]*Consumer
	unknownSet := map[catalog.NodeName]bool{}
	if p != nil {
		consumers = p.Consumers
		for _, u := range p.Unknown {
			unknownSet[u] = true
		}
	}
	ids := map[catalog.NodeName]string{}
	var b strings.Builder
	fmt.Fprintf(&b, "flowchart %s\n", direction)
	unresolved := []string{}
	var warnNodes, unknownNodes, undeclaredNodes []string
	gate := make(map[catalog.NodeName]bool, len(gates))
	for _, g := range gates {
		gate[g] = true
	}
	var gateNodes []string
	for i, n := range d.Nodes() {
		id := fmt.Sprintf("n%d", i)
		ids[n] = id
		if gate[n] {
			fmt.Fprintf(&b, "    %s{\"%s\"}\n", id, mermaidText(n))
			gateNodes = append(gateNodes, id)
		} else {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id, mermaidText(n))
		}
		if c, ok := consumers[n]; ok {
			for _, u := range c.Unbound {
				if u.Missing() {
					unresolved = append(unresolved, string(n)+"."+u.Input)
					if len(warnNodes) == 0 || warnNodes[len(warnNodes)-1] != id {
						warnNodes = append(warnNodes, id)
					}
				}
			}
		}
		if unknownSet[n] {
			unknownNodes = append(unknownNodes, id)
		}
	}
	for i, n := range d.UndeclaredEndpoints() {
		id := fmt.Sprintf("u%d", i)
		ids[n] = id
		fmt.Fprintf(&b, "    %s[\"%s (not declared)\"]\n", id, mermaidText(n))
		undeclaredNodes = append(undeclaredNodes, id)
	}
	edges := make([]DrawnEdge, 0, d.EdgeCount())
	for _, e := range d.Edges() {
		re := DrawnEdge{From: e.From, To: e.To, Ports: []BoundPort{}}
		if c, ok := consumers[e.To]; ok {
			for _, bd := range c.Bindings {
				if bd.Provider == e.From {
					re.Ports = append(re.Ports, BoundPort{Output: bd.Output, Input: bd.Input, Score: bd.Score})
				}
			}
		}
		edges = append(edges, re)
		label := ""
		if gate[e.From] {
			label = "pass"
		} else if len(re.Ports) > 0 {
			parts := make([]string, len(re.Ports))
			for i, p := range re.Ports {
				if p.Output == p.Input {
					parts[i] = p.Output
				} else {
					parts[i] = p.Output + " → " + p.Input
				}
			}
			label = strings.Join(parts, "; ")
		} else if consumers[e.To] != nil && consumers[e.From] != nil {
			label = "(no port bound)"
		}
		if label != "" {
			fmt.Fprintf(&b, "    %s -->|\"%s\"| %s\n", ids[e.From], mermaidText(label), ids[e.To])
		} else {
			fmt.Fprintf(&b, "    %s --> %s\n", ids[e.From], ids[e.To])
		}
	}
	for i, g := range gates {
		id := fmt.Sprintf("f%d", i)
		fmt.Fprintf(&b, "    %s([\"%s: Fail, the run ends\"])\n", id, mermaidText(g))
		fmt.Fprintf(&b, "    %s -->|\"fail\"| %s\n", ids[g], id)
		gateNodes = append(gateNodes, id)
	}
	classes := []struct {
		name, style string
		ids         []string
	}{
		{"gate", "fill:#e7f1ff,stroke:#0b5ed7", gateNodes},
		{"unresolved", "fill:#fff3cd,stroke:#d39e00", warnNodes},
		{"unknown", "fill:#f8d7da,stroke:#c82333", unknownNodes},
		{"undeclared", "fill:#eeeeee,stroke:#888888,stroke-dasharray: 5 5", undeclaredNodes},
	}
	for _, c := range classes {
		if len(c.ids) == 0 {
			continue
		}
		fmt.Fprintf(&b, "    classDef %s %s\n", c.name, c.style)
		fmt.Fprintf(&b, "    class %s %s\n", strings.Join(c.ids, ","), c.name)
	}
	return Drawing{Mermaid: b.String(), Edges: edges, Unresolved: unresolved}
}

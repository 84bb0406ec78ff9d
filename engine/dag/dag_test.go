package dag

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// e2eNodes and e2eEdges are the pipeline catalog's xgboost complete_e2e DAG,
// in the file's order.
var e2eNodes = []catalog.NodeName{
	"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
	"ModelCalibration_calibration", "Package", "Registration", "Payload",
	"CradleDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration",
}

var e2eEdges = []Edge{
	{"CradleDataLoading_training", "TabularPreprocessing_training"},
	{"TabularPreprocessing_training", "XGBoostTraining"},
	{"CradleDataLoading_calibration", "TabularPreprocessing_calibration"},
	{"XGBoostTraining", "XGBoostModelEval_calibration"},
	{"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"},
	{"XGBoostModelEval_calibration", "ModelCalibration_calibration"},
	{"ModelCalibration_calibration", "Package"},
	{"XGBoostTraining", "Package"},
	{"XGBoostTraining", "Payload"},
	{"Package", "Registration"},
	{"Payload", "Registration"},
}

func TestTopologicalSortCase4(t *testing.T) {
	got, err := New(e2eNodes, e2eEdges).TopologicalSort()
	if err != nil {
		t.Fatal(err)
	}
	// Reference case 4: the compiled pipeline's step order (by node).
	want := []catalog.NodeName{
		"CradleDataLoading_training", "CradleDataLoading_calibration",
		"TabularPreprocessing_training", "TabularPreprocessing_calibration",
		"XGBoostTraining", "XGBoostModelEval_calibration", "Payload",
		"ModelCalibration_calibration", "Package", "Registration",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order\n got %v\nwant %v", got, want)
	}
}

func TestTopologicalSortFIFO(t *testing.T) {
	// n5 becomes ready (after n1) before n3 does (after n2), so FIFO Kahn
	// places it first (networkx's topological sort agrees).
	d := New([]catalog.NodeName{"n1", "n2", "n3", "n4", "n5"},
		[]Edge{{"n1", "n3"}, {"n2", "n3"}, {"n3", "n4"}, {"n1", "n5"}})
	got, err := d.TopologicalSort()
	if err != nil {
		t.Fatal(err)
	}
	if want := []catalog.NodeName{"n1", "n2", "n5", "n3", "n4"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestTopologicalSortErrors(t *testing.T) {
	cases := []struct {
		name     string
		nodes    []catalog.NodeName
		edges    []Edge
		unplaced []catalog.NodeName
	}{
		{"cycle", []catalog.NodeName{"a", "b", "c"}, []Edge{{"a", "b"}, {"b", "c"}, {"c", "b"}}, []catalog.NodeName{"b", "c"}},
		{"self loop", []catalog.NodeName{"a", "b"}, []Edge{{"a", "a"}, {"a", "b"}}, []catalog.NodeName{"a", "b"}},
		// An edge from an undeclared node keeps its destination waiting.
		{"undeclared source", []catalog.NodeName{"a", "b"}, []Edge{{"x", "a"}, {"a", "b"}}, []catalog.NodeName{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.nodes, c.edges).TopologicalSort()
			var se *SortError
			if !errors.As(err, &se) || !errors.Is(err, ErrNotSortable) {
				t.Fatalf("err = %v, want *SortError", err)
			}
			if err.Error() != "DAG has cycles or disconnected nodes" {
				t.Errorf("message %q", err.Error())
			}
			if !reflect.DeepEqual(se.Unplaced, c.unplaced) {
				t.Errorf("unplaced %v want %v", se.Unplaced, c.unplaced)
			}
		})
	}
	// An edge to an undeclared node is ignored by the sort.
	got, err := New([]catalog.NodeName{"a", "b"}, []Edge{{"a", "x"}, {"a", "b"}}).TopologicalSort()
	if err != nil || !reflect.DeepEqual(got, []catalog.NodeName{"a", "b"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestModel(t *testing.T) {
	d := New([]catalog.NodeName{"a", "b", "c", "a"}, []Edge{{"a", "b"}, {"a", "c"}, {"b", "c"}, {"a", "b"}, {"q", "c"}})
	if got := d.Nodes(); !reflect.DeepEqual(got, []catalog.NodeName{"a", "b", "c"}) {
		t.Errorf("nodes %v", got)
	}
	if d.EdgeCount() != 4 {
		t.Errorf("edge count %d", d.EdgeCount())
	}
	dn, de := d.Duplicates()
	if !reflect.DeepEqual(dn, []catalog.NodeName{"a"}) || !reflect.DeepEqual(de, []Edge{{"a", "b"}}) {
		t.Errorf("duplicates %v %v", dn, de)
	}
	if d.HasNode("q") {
		t.Error("edge endpoint q must not be declared")
	}
	if got := d.Parents("c"); !reflect.DeepEqual(got, []catalog.NodeName{"a", "b", "q"}) {
		t.Errorf("parents %v", got)
	}
	if got := d.DeclaredParents("c"); !reflect.DeepEqual(got, []catalog.NodeName{"a", "b"}) {
		t.Errorf("declared parents %v", got)
	}
	if got := d.Children("a"); !reflect.DeepEqual(got, []catalog.NodeName{"b", "c"}) {
		t.Errorf("children %v", got)
	}
	if d.Parents("zz") != nil || d.Children("zz") != nil {
		t.Error("unknown node has neighbours")
	}
	if got := d.UndeclaredEndpoints(); !reflect.DeepEqual(got, []catalog.NodeName{"q"}) {
		t.Errorf("undeclared %v", got)
	}
	// Declaring q later makes it a node, appended last.
	if !d.AddNode("q") || d.AddNode("q") {
		t.Error("AddNode result")
	}
	if got := d.Nodes(); !reflect.DeepEqual(got, []catalog.NodeName{"a", "b", "c", "q"}) {
		t.Errorf("nodes %v", got)
	}
	order, err := d.TopologicalSort()
	if err != nil || !reflect.DeepEqual(order, []catalog.NodeName{"a", "q", "b", "c"}) {
		t.Errorf("order %v %v", order, err)
	}
	if _, err := FromPairs([]catalog.NodeName{"a"}, [][]catalog.NodeName{{"a", "b"}, {"a"}}); err == nil || !strings.Contains(err.Error(), "edges[1]") {
		t.Errorf("FromPairs err %v", err)
	}
}

func TestStatistics(t *testing.T) {
	s := New(e2eNodes, e2eEdges).Statistics()
	want := Statistics{
		NodeCount: 10, EdgeCount: 11, HasCycles: false,
		EntryNodes:    []catalog.NodeName{"CradleDataLoading_training", "CradleDataLoading_calibration"},
		ExitNodes:     []catalog.NodeName{"Registration"},
		MaxDepth:      6,
		IsolatedNodes: []catalog.NodeName{},
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
	c := New([]catalog.NodeName{"a", "b", "z"}, []Edge{{"a", "b"}, {"b", "a"}}).Statistics()
	if !c.HasCycles || c.MaxDepth != 0 || !reflect.DeepEqual(c.IsolatedNodes, []catalog.NodeName{"z"}) || len(c.EntryNodes) != 1 {
		t.Fatalf("cyclic stats %+v", c)
	}
}

func TestValidateTable(t *testing.T) {
	known := func(n catalog.NodeName) bool { return strings.HasPrefix(string(n), "Step") }
	cases := []struct {
		name  string
		nodes []catalog.NodeName
		edges []Edge
		known func(catalog.NodeName) bool
		want  Issues
	}{
		{
			name:  "case 9c",
			nodes: []catalog.NodeName{"a", "b", "c", "d"},
			edges: []Edge{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "x"}},
			known: func(catalog.NodeName) bool { return false },
			want: Issues{
				CategoryCycles:     {"Cycle detected: a -> b -> c"},
				CategoryDangling:   {"Edge references non-existent destination node: x"},
				CategoryUndeclared: {"Edge endpoint 'x' is not a declared node (likely a typo, or a node missing from the node list); it has no step and no config"},
				CategoryIsolated:   {"Node has no connections: d"},
				CategoryMissing: {
					"Step 'a' not found in catalog", "Step 'b' not found in catalog",
					"Step 'c' not found in catalog", "Step 'd' not found in catalog",
				},
			},
		},
		{
			name:  "valid",
			nodes: []catalog.NodeName{"StepA", "StepB"},
			edges: []Edge{{"StepA", "StepB"}},
			known: known,
			want:  Issues{},
		},
		{
			name:  "no catalog check without lookup",
			nodes: []catalog.NodeName{"a", "b"},
			edges: []Edge{{"a", "b"}},
			want:  Issues{},
		},
		{
			name:  "self loop and dangling source",
			nodes: []catalog.NodeName{"StepA", "StepB"},
			edges: []Edge{{"StepA", "StepA"}, {"ghost", "StepB"}},
			known: known,
			want: Issues{
				CategoryCycles:     {"Cycle detected: StepA"},
				CategoryDangling:   {"Edge references non-existent source node: ghost"},
				CategoryUndeclared: {"Edge endpoint 'ghost' is not a declared node (likely a typo, or a node missing from the node list); it has no step and no config"},
			},
		},
		{
			name:  "cycle through an undeclared node",
			nodes: []catalog.NodeName{"a"},
			edges: []Edge{{"a", "u"}, {"u", "a"}},
			want: Issues{
				CategoryCycles: {"Cycle detected: a -> u"},
				CategoryDangling: {
					"Edge references non-existent destination node: u",
					"Edge references non-existent source node: u",
				},
				CategoryUndeclared: {"Edge endpoint 'u' is not a declared node (likely a typo, or a node missing from the node list); it has no step and no config"},
			},
		},
		{
			name:  "empty",
			want:  Issues{},
			known: known,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := New(c.nodes, c.edges).Validate(ValidateOptions{StepKnown: c.known})
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %#v\nwant %#v", got, c.want)
			}
			if got.Valid() != (len(c.want) == 0) {
				t.Fatal("Valid disagrees")
			}
		})
	}
	cats := New([]catalog.NodeName{"a", "b", "c", "d"}, []Edge{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "x"}}).
		Validate(ValidateOptions{StepKnown: func(catalog.NodeName) bool { return false }}).Categories()
	want := []string{"cycles", "dangling_dependencies", "isolated_nodes", "missing_steps", "undeclared_edge_nodes"}
	if !reflect.DeepEqual(cats, want) {
		t.Fatalf("categories %v", cats)
	}
}

func TestCyclesEnumeration(t *testing.T) {
	// The complete digraph on 3 nodes has 5 elementary cycles (networkx's
	// simple_cycles agrees): three 2-cycles and two 3-cycles.
	d := New([]catalog.NodeName{"a", "b", "c"}, []Edge{{"a", "b"}, {"b", "a"}, {"b", "c"}, {"c", "b"}, {"a", "c"}, {"c", "a"}})
	got, more := d.Cycles(0)
	want := [][]catalog.NodeName{{"a", "b"}, {"a", "b", "c"}, {"a", "c", "b"}, {"a", "c"}, {"b", "c"}}
	if more || !reflect.DeepEqual(got, want) {
		t.Fatalf("cycles %v more=%v", got, more)
	}
	got, more = d.Cycles(2)
	if !more || len(got) != 2 {
		t.Fatalf("truncated cycles %v more=%v", got, more)
	}
	issues := d.Validate(ValidateOptions{MaxCycles: 2})
	if n := len(issues[CategoryCycles]); n != 3 || !strings.Contains(issues[CategoryCycles][2], "only the first 2") {
		t.Fatalf("truncated messages %v", issues[CategoryCycles])
	}
	// Two disjoint rings and a DAG tail.
	r := New([]catalog.NodeName{"p", "q", "r", "s", "t"}, []Edge{{"p", "q"}, {"q", "p"}, {"q", "r"}, {"s", "t"}, {"t", "s"}})
	got, _ = r.Cycles(0)
	if want := [][]catalog.NodeName{{"p", "q"}, {"s", "t"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rings %v", got)
	}
	if got, _ := New(e2eNodes, e2eEdges).Cycles(0); got != nil {
		t.Fatalf("acyclic graph has cycles %v", got)
	}
}

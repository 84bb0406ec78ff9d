package dag

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func gatesNamed(names ...catalog.NodeName) func(catalog.NodeName) bool {
	return func(n catalog.NodeName) bool { return slices.Contains(names, n) }
}

func TestBranches(t *testing.T) {
	// train -> eval -> gate -> {model, package -> register}; train feeds
	// model and package directly; a second gate inside the first guards
	// the transform.
	d := New([]catalog.NodeName{"train", "eval", "gate", "model", "package", "register", "gate2", "transform", "report"},
		[]Edge{{"train", "eval"}, {"eval", "gate"}, {"gate", "model"}, {"train", "model"}, {"gate", "package"}, {"train", "package"},
			{"package", "register"}, {"model", "gate2"}, {"gate2", "transform"}, {"eval", "report"}})
	got, err := d.Branches(gatesNamed("gate", "gate2"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Branch{
		{Gate: "gate", Nodes: []catalog.NodeName{"model", "package", "gate2", "register"}},
		{Gate: "gate2", Parent: "gate", Nodes: []catalog.NodeName{"transform"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Branches = %+v\nwant %+v", got, want)
	}
	in := InBranch(got)
	if in["transform"] != "gate2" || in["register"] != "gate" || in["report"] != "" || in["gate"] != "" {
		t.Errorf("InBranch = %v", in)
	}

	if b, err := d.Branches(gatesNamed()); err != nil || b != nil {
		t.Errorf("no gates: %v %v", b, err)
	}
	if b, err := New([]catalog.NodeName{"g"}, nil).Branches(gatesNamed("g")); err != nil || len(b) != 1 || len(b[0].Nodes) != 0 {
		t.Errorf("a gate with nothing after it: %+v %v", b, err)
	}
}

func TestBranchesRefuseANodeInTwoBranches(t *testing.T) {
	d := New([]catalog.NodeName{"a", "g1", "g2", "join"}, []Edge{{"a", "g1"}, {"a", "g2"}, {"g1", "join"}, {"g2", "join"}})
	_, err := d.Branches(gatesNamed("g1", "g2"))
	var bc *BranchConflictError
	if !errors.As(err, &bc) || bc.Node != "join" || !strings.Contains(err.Error(), "g1 and g2") {
		t.Fatalf("err = %v", err)
	}
	cyc := New([]catalog.NodeName{"a", "b"}, []Edge{{"a", "b"}, {"b", "a"}})
	if _, err := cyc.Branches(gatesNamed("a")); !errors.Is(err, ErrNotSortable) {
		t.Fatalf("cycle: %v", err)
	}
}

package tools

import (
	"testing"

	"github.com/cursus-go/cursus/registry"
)

// The first non-empty description of a namespace wins, a repeat of it or
// an empty one is fine, and a different one is a conflict (Build reports it).
func TestDescribeNamespace(t *testing.T) {
	ns := &registry.Namespace{Name: "demo"}
	if err := describeNamespace(ns, ""); err != nil || ns.Description != "" {
		t.Fatalf("empty description: %v %q", err, ns.Description)
	}
	if err := describeNamespace(ns, "Demo tools."); err != nil || ns.Description != "Demo tools." {
		t.Fatalf("first description: %v %q", err, ns.Description)
	}
	for _, same := range []string{"", "Demo tools."} {
		if err := describeNamespace(ns, same); err != nil {
			t.Errorf("%q after the description: %v", same, err)
		}
	}
	if err := describeNamespace(ns, "Other tools."); err == nil {
		t.Error("a conflicting description was accepted")
	}
	if ns.Description != "Demo tools." {
		t.Errorf("a conflict changed the description to %q", ns.Description)
	}
}

// Every file's namespaces agree: the registry builds.
func TestNamespacesDescribedOnce(t *testing.T) {
	if _, err := Build(); err != nil {
		t.Fatal(err)
	}
	for _, ns := range Namespaces() {
		if ns.Description == "" {
			t.Errorf("namespace %s has no description", ns.Name)
		}
	}
}

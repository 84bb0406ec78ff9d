package compiler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

// Every DAG of the pipeline catalog, with a config made the way a user
// makes one (pipelinestest: the template of its nodes, every essential
// field filled) and no code of the project's own, compiles deployable: the
// catalog ships every script it runs, and no placeholder or missing-code
// URI reaches the definition. A failure lists each blocker by node.
func TestPipelineCatalogDAGsDeployable(t *testing.T) {
	cat, err := pipelines.Default()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cat.Entries() {
		t.Run(e.ID, func(t *testing.T) {
			set, err := pipelinestest.Configs(schema, e.Nodes)
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			res, err := compiler.Compile(context.Background(), compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			for _, b := range res.Blockers {
				t.Errorf("%s %s: %s", b.Kind, b.Node, b.Problem)
			}
			def, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(def), "/code/missing/") {
				t.Error("the definition names missing code")
			}
			if ph := definitionPlaceholders(t, def); len(ph) > 0 {
				t.Errorf("placeholders in the definition: %v", ph)
			}
		})
	}
}

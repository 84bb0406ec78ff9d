package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
	"github.com/cursus-go/cursus/tools"
)

// call calls a tool through the registry and measures its wire answer
// (the compact JSON envelope a client receives). A failed call fails the
// test: the walk is over inputs the tools must take.
func (b *budgetCheck) call(t *testing.T, ctx context.Context, label, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, wire := cursus.Registry().CallJSON(ctx, tool, args)
	if !res.OK {
		t.Errorf("%s: %s: %s", label, res.Code, res.Error)
		return nil
	}
	b.measure(t, tool, label, wire)
	var env map[string]any
	if err := json.Unmarshal(wire, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestAnswersFitOnEveryCatalogDAG walks what an agent reads on realistic
// inputs, not only the tools' examples: for every DAG of the pipeline
// catalog and every example DAG, config.template, config.requirements
// (the DAG inline, as pipeline_catalog.load_dag gives it, and by dag_id)
// and pipeline_catalog.config_guidance; for every step type,
// catalog.config_fields, catalog.step_info, config.field_info and the
// step's resource read through the MCP server (and each DAG's resource).
// Every answer must be within answerBudget (16 KB of compact JSON).
func TestAnswersFitOnEveryCatalogDAG(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole catalog")
	}
	root, ctx := exampleProject(t)
	var sizes budgetCheck

	list := s(t, &sizes, ctx, "pipeline_catalog.list", map[string]any{})
	var ids []string
	for _, d := range list["data"].(map[string]any)["dags"].([]any) {
		ids = append(ids, d.(map[string]any)["dag_id"].(string))
	}
	if len(ids) < 50 {
		t.Fatalf("the pipeline catalog lists %d DAGs", len(ids))
	}
	type dagCase struct {
		label string
		arg   map[string]any
	}
	var dags []dagCase
	for _, id := range ids {
		env := sizes.call(t, ctx, "load_dag "+id, "pipeline_catalog.load_dag", map[string]any{"dag_id": id})
		if env == nil {
			continue
		}
		d := env["data"].(map[string]any)
		dags = append(dags, dagCase{id, map[string]any{"dag": map[string]any{"nodes": d["nodes"], "edges": d["edges"]}}},
			dagCase{id + " (dag_id)", map[string]any{"dag_id": id}})
		sizes.call(t, ctx, "config_guidance "+id, "pipeline_catalog.config_guidance", map[string]any{"dag_id": id})
		sizes.call(t, ctx, "get_dag "+id, "pipeline_catalog.get_dag", map[string]any{"dag_id": id})
	}
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*", "dag.json"))
	if len(examples) < 3 {
		t.Fatalf("examples: %v", examples)
	}
	for _, f := range examples {
		rel, _ := filepath.Rel(root, f)
		args := map[string]any{"dag_file": rel}
		if ws := filepath.Join(filepath.Dir(f), "steps"); isDir(ws) {
			args["workspace_dirs"] = []string{filepath.Join(filepath.Dir(rel), "steps")}
		}
		dags = append(dags, dagCase{rel, args})
	}
	for _, d := range dags {
		for _, tool := range []string{"config.template", "config.requirements"} {
			sizes.call(t, ctx, tool+" "+d.label, tool, d.arg)
		}
	}

	steps := sizes.call(t, ctx, "list_steps", "catalog.list_steps", map[string]any{})
	var names []string
	for _, n := range steps["data"].(map[string]any)["steps"].([]any) {
		names = append(names, n.(string))
	}
	for _, n := range names {
		for _, tool := range []string{"catalog.config_fields", "catalog.step_info", "catalog.step_spec", "config.field_info"} {
			sizes.call(t, ctx, tool+" "+n, tool, map[string]any{"step_name": n})
		}
	}

	// The resources, read through the MCP server as a host reads them.
	srv, err := server.New(cursus.Registry(), server.Options{Policy: registry.Policy{ProjectRoot: root}, Version: "0"})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(cctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "answers-fit", Version: "0"}, nil).Connect(cctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	var uris []string
	for _, n := range names {
		uris = append(uris, tools.StepURIPrefix+n)
	}
	for _, id := range ids {
		uris = append(uris, tools.PipelineURIPrefix+id)
	}
	for i := 0; i < len(uris); i++ {
		uri := uris[i]
		res, err := cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		kind := "resource " + strings.SplitN(strings.TrimPrefix(uri, "cursus://"), "/", 2)[0]
		if strings.Contains(uri, "part=script") {
			kind += " (script pages)"
		}
		sizes.measure(t, kind, uri, b)
		// A script too long for the step's resource is named, and read in
		// pages each naming the next: every page is measured too.
		text := res.Contents[0].Text
		for _, marker := range []string{"read them as ", "The rest: "} {
			if _, rest, ok := strings.Cut(text, marker); ok {
				uris = append(uris, strings.Fields(rest)[0])
			}
		}
	}
	sizes.done(t)
}

// s is budgetCheck.call for the walk's first calls, whose answer must be there.
func s(t *testing.T, sizes *budgetCheck, ctx context.Context, tool string, args map[string]any) map[string]any {
	t.Helper()
	env := sizes.call(t, ctx, tool, tool, args)
	if env == nil {
		t.FailNow()
	}
	return env
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

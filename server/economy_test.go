package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/xeipuuv/gojsonschema"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/testfs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
	"github.com/cursus-go/cursus/tools"
	"github.com/cursus-go/cursus/workflow"
)

// frontDoor is what the default tools/list (the core toolset) may weigh
// with every gate open, in bytes of compact JSON. fullCeiling is what the
// full list (--toolsets all, gates closed) weighs at most today: it only
// comes down, as descriptions and schemas shrink.
const (
	frontDoor   = 20_000
	fullCeiling = 67_000
)

// TestToolsListBudget measures tools/list of the real registry through the
// go-sdk client: every tool has an object outputSchema, no generated
// <ns>.help is listed, the default list (the core toolset, gates open)
// stays within the front door and the full list under its ceiling.
func TestToolsListBudget(t *testing.T) {
	t.Parallel()
	measure := func(opts server.Options) (int, int) {
		cs := connect(t, newServer(t, cursus.Registry(), opts), "2025-06-18")
		res, err := cs.ListTools(testCtx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res.Tools)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			o, _ := json.Marshal(tl.OutputSchema)
			var m map[string]any
			if json.Unmarshal(o, &m) != nil || m["type"] != "object" {
				t.Errorf("%s: outputSchema %s", tl.Name, o)
			}
			if strings.HasSuffix(tl.Name, "__help") && tl.Name != "tools__help" {
				t.Errorf("%s is listed: tools__help {\"namespace\": ...} answers the same", tl.Name)
			}
		}
		return len(b), len(res.Tools)
	}
	size, n := measure(server.Options{Policy: registry.Policy{AllowDestructive: true, AllowScriptExec: true}})
	t.Logf("default tools/list, gates open: %d tools, %d bytes compact (front door %d)", n, size, frontDoor)
	if size > frontDoor {
		t.Errorf("the default tools/list is %d bytes, over the %d-byte front door: the core toolset must stay small", size, frontDoor)
	}
	size, n = measure(server.Options{Toolsets: []string{registry.AllToolsets}})
	t.Logf("full tools/list: %d tools, %d bytes compact (ceiling %d)", n, size, fullCeiling)
	if size > fullCeiling {
		t.Errorf("the full tools/list is %d bytes, over the %d-byte ceiling: remove repetition from descriptions and schemas", size, fullCeiling)
	}
	if size+4000 < fullCeiling {
		t.Errorf("the full tools/list is %d bytes now: lower fullCeiling", size)
	}
}

// TestStructuredContentMatchesOutputSchema runs every example of every
// listed tool through the go-sdk client (in a scratch project root with a
// copy of the repository's examples, writes open, no deployment): each
// answer's structuredContent is the text block's envelope, and it is valid
// against the outputSchema tools/list published for the tool.
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every example")
	}
	root := t.TempDir()
	testfs.CopyTree(t, "../examples", filepath.Join(root, "examples"))
	cs := connect(t, newServer(t, cursus.Registry(), server.Options{Policy: registry.Policy{AllowDestructive: true, ProjectRoot: root}, Toolsets: []string{registry.AllToolsets}}), "2025-06-18")
	listed := listTools(t, cs)
	ran, ok, aws := 0, 0, 0
	for _, def := range cursus.Registry().List("") {
		tl := listed[def.WireName()]
		if tl == nil {
			continue
		}
		ob, _ := json.Marshal(tl.OutputSchema)
		schema, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(ob))
		if err != nil {
			t.Fatalf("%s: outputSchema: %v", tl.Name, err)
		}
		for _, e := range def.Examples {
			if strings.Contains(e, `"upsert": true`) {
				continue // would deploy
			}
			_, args, _, err := registry.ParseExample(e)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := callEnv(t, cs, tl.Name, args)
			ran++
			if !res.IsError {
				ok++
			} else if def.Network {
				aws++ // no AWS here: its failure is checked against the schema, not counted
			}
			sc, _ := json.Marshal(res.StructuredContent)
			v, err := schema.Validate(gojsonschema.NewBytesLoader(sc))
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			for _, p := range v.Errors() {
				t.Errorf("%s: structuredContent breaks the outputSchema: %s", e, p)
			}
		}
	}
	if ran < 60 || ok*4 < (ran-aws)*3 {
		t.Errorf("%d examples ran (%d of tools that need AWS, which is absent), %d answered ok", ran, aws, ok)
	}
}

// TestResourcesAndPrompts: resources/list, resources/templates/list,
// resources/read, prompts/list and prompts/get through the go-sdk client;
// a project file reads under the root only.
func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.md"), []byte("# notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(root), "secret-"+filepath.Base(root)), []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, cursus.Registry(), server.Options{Policy: registry.Policy{AllowDestructive: true, ProjectRoot: root}}), "2025-06-18")
	ctx := testCtx(t)
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil {
		t.Fatalf("capabilities %+v", caps)
	}
	var steps, dags int
	var ref bool
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(r.URI, tools.StepURIPrefix):
			steps++
		case strings.HasPrefix(r.URI, tools.PipelineURIPrefix):
			dags++
		case r.URI == tools.ToolReferenceURI:
			ref = true
		}
	}
	if steps < 20 || dags < 5 || !ref {
		t.Errorf("resources: %d steps, %d pipelines, tool reference %v", steps, dags, ref)
	}
	read := func(uri string) (string, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("%s: contents %+v", uri, res.Contents)
		}
		return res.Contents[0].Text, nil
	}
	text, err := read(tools.StepURIPrefix + "XGBoostTraining")
	if err != nil || !strings.Contains(text, "## Config fields") || !strings.Contains(text, "## Script (") {
		t.Errorf("XGBoostTraining: %v\n%.300s", err, text)
	}
	if text, err := read(tools.ToolReferenceURI); err != nil || !strings.Contains(text, "catalog.search") {
		t.Errorf("tool reference: %v", err)
	}
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if len(templates) < 3 {
		t.Errorf("templates %v", templates)
	}
	if text, err := read(tools.StepURIPrefix + "RiskTableMapping?job_type=validation"); err != nil || !strings.Contains(text, "validation") {
		t.Errorf("a template's step variant: %v", err)
	}
	if text, err := read(tools.ProjectURIPrefix + "notes.md"); err != nil || text != "# notes" {
		t.Errorf("project file: %q %v", text, err)
	}
	if _, err := read(tools.ProjectURIPrefix + "../secret-" + filepath.Base(root)); err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("a file outside the root: %v", err)
	}
	if _, err := read(tools.StepURIPrefix + "NoSuchStep"); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("unknown step: %v", err)
	}
	if _, err := read("cursus://nothing/here"); err == nil {
		t.Error("an unknown resource read")
	}

	var prompts []*mcp.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p)
	}
	if len(prompts) < 4 {
		t.Fatalf("%d prompts", len(prompts))
	}
	for _, p := range prompts {
		if len(p.Arguments) == 0 || p.Arguments[0].Name != "run_id" || p.Arguments[0].Required {
			t.Errorf("%s: arguments %+v", p.Name, p.Arguments)
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name})
		if err != nil || len(res.Messages) != 1 {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
	if _, env := callEnv(t, cs, "workflow__new_run", map[string]any{"run_id": "demo"}); env["ok"] != true {
		t.Fatalf("new_run: %v", env)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: workflow.StagePromptPrefix + "plan", Arguments: map[string]string{"run_id": "demo", "host": "claude-code"}})
	if err != nil {
		t.Fatal(err)
	}
	text = res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, filepath.Join("runs", "demo", "dag.json")) || !strings.Contains(text, "On claude-code") {
		t.Errorf("plan prompt for run demo on claude-code:\n%s", text)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: workflow.StagePromptPrefix + "plan", Arguments: map[string]string{"run_id": "nope"}}); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "stage_nope"}); err == nil {
		t.Error("an unknown prompt answered")
	}
}

// TestOneServerPath: a guided server is the static one scoped to a stage:
// every tool both list has the same descriptor, and a tool outside the
// stage answers tool_not_in_stage where the static server runs it.
func TestOneServerPath(t *testing.T) {
	t.Parallel()
	reg := cursus.Registry()
	static := listTools(t, connect(t, newServer(t, reg, server.Options{Toolsets: []string{registry.AllToolsets}}), ""))
	gcs := connect(t, newServer(t, reg, server.Options{Stage: "plan"}), "")
	guided := listTools(t, gcs)
	if len(guided) == 0 || len(guided) >= len(static) {
		t.Fatalf("guided lists %d tools, static %d", len(guided), len(static))
	}
	for name, g := range guided {
		s := static[name]
		if s == nil {
			t.Errorf("%s: listed guided, not static", name)
			continue
		}
		gb, _ := json.Marshal(g)
		sb, _ := json.Marshal(s)
		if string(gb) != string(sb) {
			t.Errorf("%s: guided descriptor differs from the static one:\n%s\n%s", name, gb, sb)
		}
	}
	for name := range static {
		if guided[name] == nil {
			_, env := callEnv(t, gcs, name, map[string]any{})
			wantCode(t, env, "tool_not_in_stage")
			break
		}
	}
}

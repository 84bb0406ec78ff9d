package cursus_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/tools"
	"github.com/cursus-go/cursus/workflow"
)

// FuzzCallTool calls random tool names with random argument bytes: the
// invoker must never panic and must always answer with an envelope whose
// JSON round-trips to the same wire form.
//
// Gated tools are closed (read-only policy) so fuzzing never writes files,
// deploys or runs scripts.
func FuzzCallTool(f *testing.F) {
	for _, t := range cursus.ListTools("") {
		for _, ex := range t.Examples {
			f.Add(t.Name, ex[len(t.Name):])
		}
	}
	f.Add("no.such_tool", `{}`)
	f.Add("tools__help", `{"namespace": null}`)
	f.Add("tools.help", `[]`)
	f.Add("", `{"a":`)
	ctx := cursus.WithPolicy(context.Background(), cursus.PolicyFromEnv(f.TempDir()))
	f.Fuzz(func(t *testing.T, name, args string) {
		res := cursus.CallTool(ctx, name, []byte(args))
		if res == nil {
			t.Fatal("nil result")
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("envelope does not marshal: %v", err)
		}
		var back envelope.ToolResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("envelope does not unmarshal: %v", err)
		}
		b2, err := json.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		var v1, v2 any
		_ = json.Unmarshal(b, &v1)
		_ = json.Unmarshal(b2, &v2)
		if !reflect.DeepEqual(v1, v2) {
			t.Fatalf("round trip changed the envelope:\n%s\n%s", b, b2)
		}
		if back.OK == (back.Code != "") {
			t.Fatalf("ok and code disagree: %s", b)
		}
	})
}

func TestEnvelopeWireForm(t *testing.T) {
	b, _ := json.Marshal(envelope.OK(map[string]int{"a": 1}))
	if string(b) != `{"ok":true,"data":{"a":1}}` {
		t.Errorf("minimal success: %s", b)
	}
	b, _ = json.Marshal(envelope.OK(nil))
	if string(b) != `{"ok":true,"data":null}` {
		t.Errorf("null data must stay: %s", b)
	}
	b, _ = json.Marshal(envelope.Fail("boom", ""))
	if string(b) != `{"ok":false,"error":"boom","code":"tool_error"}` {
		t.Errorf("minimal failure: %s", b)
	}
	r := envelope.FromError(envelope.NotFound("x").WithDetails("k", 1).WithRemedy("do y", "a.b"))
	r.WithNextSteps(envelope.NextStep{Tool: "a.b"}).WithWarnings("w")
	b, _ = json.Marshal(r)
	if string(b) != `{"ok":false,"error":"x","code":"not_found","remedy":{"suggested_tools":["a.b"],"fix_action":"do y"},"warnings":["w"],"meta":{"details":{"k":1}}}` {
		t.Errorf("failure drops next_steps, keeps details under meta: %s", b)
	}
	s := envelope.OK(1).WithRemedy("never on success").WithNextSteps(envelope.NextStep{Tool: "t", When: "w", Why: "y"})
	b, _ = json.Marshal(s)
	if string(b) != `{"ok":true,"data":1,"next_steps":[{"tool":"t","when":"w","why":"y"}]}` {
		t.Errorf("success drops remedy: %s", b)
	}
	empty := envelope.FromError(envelope.Errorf("", "plain"))
	if empty.Code != envelope.CodeToolError || empty.Meta != nil {
		t.Errorf("empty details must not create meta: %+v", empty)
	}
}

// Call gives the data as the tool's Go type, and says so when asked for
// another; an untyped tool's data decodes through JSON.
func TestCallTyped(t *testing.T) {
	ctx := context.Background()
	help, res, err := cursus.Call[tools.ToolsHelpData](ctx, "tools.help", nil)
	if err != nil || !res.OK || help.TotalTools == 0 || len(help.Namespaces) == 0 {
		t.Fatalf("typed call: %v %+v", err, help)
	}
	if p, _, err := cursus.Call[*tools.ToolsHelpData](ctx, "catalog.help", nil); err == nil || p != nil {
		t.Errorf("a pointer Out of a value data: %v", err)
	}
	if _, _, err := cursus.Call[tools.ToolInfo](ctx, "tools.help", nil); err == nil || !strings.Contains(err.Error(), "tools.ToolsHelpData") {
		t.Errorf("another type: %v", err)
	}
	if _, _, err := cursus.Call[tools.ToolsHelpData](ctx, "tools.help", map[string]any{"format": "markdown"}); err == nil || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("the markdown view: %v", err)
	}
	if s, _, err := cursus.Call[string](ctx, "tools.help", map[string]any{"format": "markdown"}); err != nil || !strings.HasPrefix(s, "# Cursus tools") {
		t.Errorf("the markdown view as a string: %v", err)
	}
	// The workflow namespace, above package tools, answers its own types.
	if d, _, err := cursus.Call[workflow.DescribeData](ctx, "workflow.describe", nil); err != nil || d.List == nil || d.List.Count != len(d.List.Workflows) || d.List.Count == 0 {
		t.Errorf("workflow.describe typed: %+v %v", d, err)
	}
	_, res, err = cursus.Call[tools.ToolsByPhaseData](ctx, "tools.by_phase", map[string]any{"phase": "nope"})
	var te *envelope.ToolError
	if !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput || te.Details["errors"] == nil || res.OK {
		t.Errorf("a failure: %v", err)
	}
	// dag.construct is typed: its data is a dag.File, not any struct its
	// JSON would decode into.
	dag, _, err := cursus.Call[tools.DagConstructData](ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}}})
	if err != nil || dag.Statistics.NodeCount != 2 {
		t.Errorf("a typed tool: %v %+v", err, dag)
	}
	if _, _, err := cursus.Call[struct {
		Statistics struct {
			NodeCount int `json:"node_count"`
		} `json:"statistics"`
	}](ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []string{"a"}, "edges": [][]string{}}}); err == nil || !strings.Contains(err.Error(), "dag.File") {
		t.Errorf("a typed tool read as another type: %v", err)
	}
	// compile.name is typed: its data reads as tools.CompileNameData.
	name, _, err := cursus.Call[tools.CompileNameData](ctx, "compile.name", map[string]any{"sanitize": "my_pipe.v2__x-"})
	if err != nil || name.Sanitized != "my-pipe-v2-x" || name.SanitizedIsValid == nil || !*name.SanitizedIsValid || name.GeneratedIsValid != nil {
		t.Errorf("compile.name typed: %v %+v", err, name)
	}
}

func TestListToolsAndLookup(t *testing.T) {
	all := cursus.ListTools("")
	if len(all) == 0 {
		t.Fatal("no tools")
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Fatal("ListTools not sorted")
		}
	}
	a, ok1 := cursus.LookupTool("tools.help")
	b, ok2 := cursus.LookupTool("tools__help")
	if !ok1 || !ok2 || a.Name != b.Name {
		t.Error("both name forms must resolve")
	}
	if len(cursus.ListTools("tools")) != 4 {
		t.Error("namespace filter")
	}
	if _, ok := cursus.Namespaces()["tools"]; !ok {
		t.Error("tools namespace missing")
	}
}

// The default registry is the one list DefaultNamespaces: each namespace
// once, the workflow namespace (above package tools) included, and every
// namespace of the built registry comes from it.
func TestDefaultNamespacesAreTheRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, ns := range cursus.DefaultNamespaces() {
		if seen[ns.Name] {
			t.Errorf("namespace %s listed twice", ns.Name)
		}
		seen[ns.Name] = true
	}
	if !seen["workflow"] {
		t.Error("the default namespaces lack the workflow namespace")
	}
	for ns := range cursus.Namespaces() {
		if !seen[ns] {
			t.Errorf("the registry has namespace %s, which DefaultNamespaces does not list", ns)
		}
	}
	if len(cursus.Namespaces()) != len(seen) {
		t.Errorf("the registry has %d namespaces, DefaultNamespaces %d", len(cursus.Namespaces()), len(seen))
	}
}

func BenchmarkRegistryBuild(b *testing.B) {
	ns := cursus.DefaultNamespaces()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := buildRegistry(ns); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallDescribeTool(b *testing.B) {
	ctx := context.Background()
	args := []byte(`{"name":"compile.dag"}`)
	cursus.CallTool(ctx, "tools.describe_tool", args)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := cursus.CallTool(ctx, "tools.describe_tool", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

func BenchmarkCallUnknownTool(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if res := cursus.CallTool(ctx, "no.such_tool", nil); res.OK {
			b.Fatal("ok")
		}
	}
}

func BenchmarkCallHelp(b *testing.B) {
	ctx := context.Background()
	cursus.CallTool(ctx, "tools.help", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := cursus.CallTool(ctx, "tools.help", nil); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

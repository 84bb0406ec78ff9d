package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// fakeList is a session tool list that goes by toolsets: the core tools
// and the enabled namespaces are listed, every tool is callable.
type fakeList struct{ enabled map[string]bool }

func (f *fakeList) Listed(t *registry.ToolDef) bool   { return t.Core || f.enabled[t.Namespace()] }
func (f *fakeList) Callable(t *registry.ToolDef) bool { return true }
func (f *fakeList) EnableToolsets(names []string) *envelope.ToolError {
	for _, n := range names {
		f.enabled[n] = true
	}
	return nil
}

// TestHelpCountsTheSessionList: with a session tool list, tools.help's
// total_tools is what the list holds, callable_tools what may be called,
// other_toolsets the namespaces not listed; tools.toolsets enables one
// and both follow.
func TestHelpCountsTheSessionList(t *testing.T) {
	t.Parallel()
	l := &fakeList{enabled: map[string]bool{}}
	ctx := registry.WithToolList(context.Background(), l)
	r := testRegistry()
	listed := 0
	for _, d := range r.List("") {
		if d.Core {
			listed++
		}
	}
	d := wantOK(t, callTool(t, ctx, "tools.help", nil))
	if int(d["total_tools"].(float64)) != listed || int(d["callable_tools"].(float64)) <= listed {
		t.Fatalf("total_tools %v callable_tools %v, want %d listed and more callable", d["total_tools"], d["callable_tools"], listed)
	}
	if !strings.Contains(fmt.Sprint(d["other_toolsets"]), "name:dag") {
		t.Errorf("other_toolsets %v lacks dag", d["other_toolsets"])
	}
	ns := wantOK(t, callTool(t, ctx, "tools.help", map[string]any{"namespace": "dag"}))
	if ns["unlisted"] == nil || int(ns["shown"].(float64)) == 0 {
		t.Errorf("tools.help of a namespace not listed: shown %v unlisted %v", ns["shown"], ns["unlisted"])
	}

	env := callTool(t, ctx, "tools.toolsets", map[string]any{"enable": []string{"dag"}})
	ts := wantOK(t, env)
	if fmt.Sprint(ts["enabled"]) != "[dag]" || !l.enabled["dag"] {
		t.Fatalf("enable dag: %v", ts)
	}
	after := wantOK(t, callTool(t, ctx, "tools.help", nil))
	if int(after["total_tools"].(float64)) != listed+len(r.List("dag")) {
		t.Errorf("after enabling dag: total_tools %v, want %d", after["total_tools"], listed+len(r.List("dag")))
	}
	var names []string
	for _, s := range ts["toolsets"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if names[0] != registry.CoreToolset || !slices.Contains(names, "compile") {
		t.Errorf("toolsets %v: core first, then the namespaces", names)
	}

	wantFail(t, callTool(t, ctx, "tools.toolsets", map[string]any{"enable": []string{"compiel"}}), envelope.CodeInvalidInput, "tools.toolsets")
}

// TestToolsetsWithoutASession: the CLI and the Go API have no session
// list: everything is listed, and enabling says so.
func TestToolsetsWithoutASession(t *testing.T) {
	t.Parallel()
	env := callTool(t, context.Background(), "tools.toolsets", map[string]any{"enable": []string{"all"}})
	d := wantOK(t, env)
	if d["listed_tools"] != d["callable_tools"] || d["enabled"] != nil || !strings.Contains(fmt.Sprint(env["warnings"]), "every tool is listed") {
		t.Errorf("without a session: %v", env)
	}
	for _, s := range d["toolsets"].([]any) {
		if s.(map[string]any)["listed"] != true {
			t.Errorf("toolset not listed without a session: %v", s)
		}
	}
}

package server_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// coreNames are the wire names of the real registry's core toolset the
// policy allows, sorted.
func coreNames(p registry.Policy) []string {
	var out []string
	for _, t := range cursus.Registry().Core() {
		if ok, _ := p.Allows(t); ok {
			out = append(out, t.WireName())
		}
	}
	return out
}

// TestToolsetsFrontDoor: a default server lists the core toolset only,
// within its 20 KB budget; tools.help counts what the session lists and
// names the other toolsets; a tool of another toolset is callable by name;
// tools.toolsets enables a toolset, the client gets
// notifications/tools/list_changed and the next tools/list holds it.
func TestToolsetsFrontDoor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		policy registry.Policy
	}{{"closed", registry.Policy{ProjectRoot: t.TempDir()}}, {"open", openPolicy(t.TempDir())}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := inMemory(t, server.Options{Policy: c.policy}, "")
			got, size := g.list(t)
			want := coreNames(c.policy)
			if !slices.Equal(got, want) {
				t.Fatalf("default tools/list %v, want the core toolset %v", got, want)
			}
			if size > 20_000 {
				t.Errorf("the default tools/list is %d bytes, over the 20 KB front door", size)
			}
			if !slices.Contains(got, "tools__toolsets") {
				t.Fatalf("the toolset switch is not listed: %v", got)
			}
			inst := g.cs.InitializeResult().Instructions
			if !strings.Contains(inst, "tools__toolsets {\"enable\"") || !strings.Contains(inst, "callable by name") {
				t.Errorf("instructions do not describe the toolsets: %s", inst)
			}
			if caps := g.cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
				t.Errorf("a server whose list grows must announce listChanged: %+v", caps.Tools)
			}

			help := g.mustCall(t, "tools__help", map[string]any{})["data"].(map[string]any)
			if int(help["total_tools"].(float64)) != len(got) {
				t.Errorf("tools.help total_tools %v, the session lists %d", help["total_tools"], len(got))
			}
			if n, _ := help["callable_tools"].(float64); int(n) <= len(got) {
				t.Errorf("tools.help callable_tools %v: the other toolsets' tools are callable", help["callable_tools"])
			}
			if !strings.Contains(fmt.Sprint(help["other_toolsets"]), "name:compile") {
				t.Errorf("tools.help does not name the compile toolset: %v", help["other_toolsets"])
			}

			// Callable by name before it is listed.
			if env := g.call(t, "dag__validate_integrity", map[string]any{"dag": map[string]any{"nodes": []string{"Package"}}}); env["ok"] != true {
				t.Fatalf("a tool of a toolset not enabled, called by name: %v", env)
			}
			// tools.help of that namespace describes its tools, as not listed.
			ns := g.mustCall(t, "tools__help", map[string]any{"namespace": "dag"})["data"].(map[string]any)
			if !strings.Contains(fmt.Sprint(ns["unlisted"]), "dag.validate_integrity") {
				t.Errorf("tools.help {namespace: dag} does not say its tools are unlisted: %v", ns["unlisted"])
			}

			g.noChange(t, 20*time.Millisecond)
			env := g.mustCall(t, "tools__toolsets", map[string]any{"enable": []string{"dag", "compile"}})
			g.waitChanged(t)
			if d := env["data"].(map[string]any); fmt.Sprint(d["enabled"]) != "[compile dag]" {
				t.Errorf("enabled %v, want [compile dag]", d["enabled"])
			}
			after, _ := g.list(t)
			for _, w := range []string{"dag__validate_integrity", "compile__preview", "tools__help"} {
				if !slices.Contains(after, w) {
					t.Errorf("after enabling dag and compile, %s is not listed: %v", w, after)
				}
			}
			if slices.Contains(after, "execution__describe") {
				t.Errorf("a toolset not enabled is listed: %v", after)
			}
			help = g.mustCall(t, "tools__help", map[string]any{})["data"].(map[string]any)
			if int(help["total_tools"].(float64)) != len(after) {
				t.Errorf("after enabling, tools.help total_tools %v, the session lists %d", help["total_tools"], len(after))
			}
			// Enabling again changes nothing.
			if d := g.mustCall(t, "tools__toolsets", map[string]any{"enable": []string{"dag"}})["data"].(map[string]any); d["enabled"] != nil {
				t.Errorf("enabling an enabled toolset: %v", d)
			}
			g.noChange(t, 50*time.Millisecond)

			// A misspelt toolset is refused with the closest names.
			bad := g.call(t, "tools__toolsets", map[string]any{"enable": []string{"compil"}})
			if bad["code"] != "invalid_input" || !strings.Contains(fmt.Sprint(bad["error"]), "compile") {
				t.Errorf("unknown toolset: %v", bad)
			}

			g.mustCall(t, "tools__toolsets", map[string]any{"enable": []string{"all"}})
			g.waitChanged(t)
			all, _ := g.list(t)
			full := listNames(t, connect(t, newServer(t, cursus.Registry(), server.Options{Policy: c.policy, Toolsets: []string{"all"}}), ""))
			if !slices.Equal(all, full) {
				t.Errorf("enable all lists %d tools, --toolsets all %d", len(all), len(full))
			}
		})
	}
}

// TestToolsetsOptions: Options.Toolsets picks what a session lists at
// first; "all" is the full list (static: no list change announced); a
// selection lists what it names; unknown toolsets are a SelectionError;
// a guided server takes none.
func TestToolsetsOptions(t *testing.T) {
	t.Parallel()
	reg := cursus.Registry()
	p := registry.Policy{}
	core := coreNames(p)

	cs := connect(t, newServer(t, reg, server.Options{Toolsets: []string{"all"}}), "")
	all := listNames(t, cs)
	if len(all) < 50 || cs.InitializeResult().Capabilities.Tools.ListChanged {
		t.Errorf("--toolsets all: %d tools, listChanged %v", len(all), cs.InitializeResult().Capabilities.Tools.ListChanged)
	}
	for _, n := range []string{"pipeline__list", "execution__logs", "model_package__list"} {
		if !slices.Contains(all, n) {
			t.Errorf("--toolsets all leaves out %s", n)
		}
	}
	help, _ := callEnv(t, cs, "tools__help", map[string]any{})
	if s := fmt.Sprint(help.StructuredContent); !strings.Contains(s, fmt.Sprintf("total_tools:%d", len(all))) {
		t.Errorf("--toolsets all: tools.help does not count %d tools: %.300s", len(all), s)
	}

	got := listNames(t, connect(t, newServer(t, reg, server.Options{Toolsets: []string{"core", "pipeline"}}), ""))
	for _, n := range append(slices.Clone(core), "pipeline__list", "pipeline__describe") {
		if !slices.Contains(got, n) {
			t.Errorf("--toolsets core,pipeline leaves out %s: %v", n, got)
		}
	}
	if slices.Contains(got, "dag__construct") {
		t.Errorf("--toolsets core,pipeline lists dag__construct")
	}

	got = listNames(t, connect(t, newServer(t, reg, server.Options{Namespaces: []string{"execution"}}), ""))
	if !slices.Contains(got, "execution__logs") || slices.Contains(got, "tools__help") {
		t.Errorf("--namespaces execution lists %v", got)
	}
	got = listNames(t, connect(t, newServer(t, reg, server.Options{Tools: []string{"pipeline.list"}}), ""))
	if !slices.Equal(got, []string{"pipeline__list"}) {
		t.Errorf("--tools pipeline.list lists %v", got)
	}

	_, err := server.New(reg, server.Options{Toolsets: []string{"core", "nope"}})
	var se *server.SelectionError
	if !errors.As(err, &se) || !slices.Equal(se.UnknownToolsets, []string{"nope"}) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown toolset: %v", err)
	}
	if _, err := server.New(reg, server.Options{Guided: true, Toolsets: []string{"all"}}); err == nil {
		t.Error("a guided server took toolsets")
	}
	// A guided session's stage decides: no stage offers the switch.
	g := inMemory(t, server.Options{Guided: true, Policy: registry.Policy{ProjectRoot: t.TempDir()}}, "")
	if env := g.call(t, "tools__toolsets", map[string]any{"enable": []string{"compile"}}); env["code"] != "tool_not_in_stage" || !strings.Contains(fmt.Sprint(env["remedy"]), "without --guided") {
		t.Errorf("guided enable: %v", env)
	}
	gl, _ := g.list(t)
	if slices.Contains(gl, "tools__toolsets") {
		t.Errorf("a guided session lists the toolset switch: %v", gl)
	}
	help2 := g.mustCall(t, "tools__help", map[string]any{})["data"].(map[string]any)
	if int(help2["total_tools"].(float64)) != len(gl) {
		t.Errorf("guided: tools.help total_tools %v, the session lists %d", help2["total_tools"], len(gl))
	}
}

// TestToolsetsWithoutCore: a registry that marks no core tool lists every
// toolset by default (the test registry of this package).
func TestToolsetsWithoutCore(t *testing.T) {
	t.Parallel()
	cs := connect(t, newServer(t, testRegistry(t), server.Options{}), "")
	if got := listNames(t, cs); !slices.Equal(got, defaultNames) {
		t.Errorf("tools = %v, want %v", got, defaultNames)
	}
	if cs.InitializeResult().Capabilities.Tools.ListChanged {
		t.Error("a list that never changes announces listChanged")
	}
}

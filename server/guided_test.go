package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
	"github.com/cursus-go/cursus/stages"
)

// The guided tests run over the real registry: stages name real tools.

// gClient is one go-sdk client session with a channel of the
// tools/list_changed notifications it received.
type gClient struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

func guidedClient(t *testing.T, connect func(c *mcp.Client) (*mcp.ClientSession, error)) *gClient {
	t.Helper()
	g := &gClient{changed: make(chan struct{}, 16)}
	c := mcp.NewClient(&mcp.Implementation{Name: "guided-test", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { g.changed <- struct{}{} },
	})
	cs, err := connect(c)
	if err != nil {
		t.Fatal(err)
	}
	g.cs = cs
	t.Cleanup(func() { cs.Close() })
	return g
}

// inMemory connects a new client to a new guided server built with opts.
func inMemory(t *testing.T, opts server.Options, protocol string) *gClient {
	t.Helper()
	s, err := server.New(cursus.Registry(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return guidedClient(t, func(c *mcp.Client) (*mcp.ClientSession, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(testCtx(t), st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return c.Connect(testCtx(t), ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	})
}

func (g *gClient) list(t *testing.T) ([]string, int) {
	t.Helper()
	res, err := g.cs.ListTools(testCtx(t), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatal("tools/list paged")
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names, len(b)
}

// call calls a tool and returns the envelope (isError must match !ok).
func (g *gClient) call(t *testing.T, name string, args any) map[string]any {
	t.Helper()
	res, err := g.cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: JSON-RPC error %v", name, err)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &env); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError == (env["ok"] == true) {
		t.Fatalf("%s: isError %v but ok %v", name, res.IsError, env["ok"])
	}
	return env
}

func (g *gClient) mustCall(t *testing.T, name string, args any) map[string]any {
	t.Helper()
	env := g.call(t, name, args)
	if env["ok"] != true {
		t.Fatalf("%s: %v %v (remedy %v)", name, env["code"], env["error"], env["remedy"])
	}
	return env
}

// waitChanged waits for one change of the tool list: a
// tools/list_changed notification, and any that follow it within a quiet
// window. The SDK batches the removals and additions of one stage switch
// into one notification only when they come within its 10 ms delay of each
// other; on a loaded machine one switch may send two, and both announce the
// same change.
func (g *gClient) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-g.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	for {
		select {
		case <-g.changed:
		case <-time.After(500 * time.Millisecond):
			return
		}
	}
}

// noChange checks that no notification arrives for a while.
func (g *gClient) noChange(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-g.changed:
		t.Fatal("unexpected notifications/tools/list_changed")
	case <-time.After(d):
	}
}

// wantTools is what a session in a stage should list under a policy.
func wantTools(t *testing.T, stage string, p registry.Policy) []string {
	t.Helper()
	s, err := cursus.NewSession(cursus.SessionOptions{Stage: stage, Policy: &p})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range s.Tools() {
		out = append(out, tl.WireName())
	}
	sort.Strings(out)
	return out
}

func openPolicy(root string) registry.Policy {
	return registry.Policy{AllowDestructive: true, ProjectRoot: root}
}

// TestGuidedListPerStage lists every stage (pinned) under closed and open
// gates, checks the list is the stage's, and reports its size against the
// full list.
func TestGuidedListPerStage(t *testing.T) {
	t.Parallel()
	set, err := stages.Default()
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string][]string{} // row -> cells, gates closed then open
	for _, gates := range []string{"closed", "open"} {
		p := registry.Policy{ProjectRoot: t.TempDir()}
		if gates == "open" {
			p = openPolicy(p.ProjectRoot)
		}
		front := inMemory(t, server.Options{Policy: p}, "2025-11-25")
		frontNames, frontBytes := front.list(t)
		cells["front door, no `--guided` (core toolset)"] = append(cells["front door, no `--guided` (core toolset)"], fmt.Sprintf("%d tools, %s B", len(frontNames), thousands(frontBytes)))
		full := inMemory(t, server.Options{Policy: p, Toolsets: []string{registry.AllToolsets}}, "2025-11-25")
		fullNames, fullBytes := full.list(t)
		cells["full list, `--toolsets all`"] = append(cells["full list, `--toolsets all`"], fmt.Sprintf("%d tools, %s B", len(fullNames), thousands(fullBytes)))
		var lines []string
		for _, name := range set.Names() {
			g := inMemory(t, server.Options{Stage: name, Policy: p}, "2025-11-25")
			if caps := g.cs.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged {
				t.Errorf("pinned %s: tools capability %+v, want listChanged false", name, caps.Tools)
			}
			if inst := g.cs.InitializeResult().Instructions; !strings.Contains(inst, fmt.Sprintf("pinned to stage %q", name)) {
				t.Errorf("pinned %s: the instructions do not name the stage: %q", name, inst)
			}
			got, n := g.list(t)
			if want := wantTools(t, name, p); !slices.Equal(got, want) {
				t.Errorf("stage %s lists\n%v\nwant\n%v", name, got, want)
			}
			if n >= fullBytes || len(got) >= len(fullNames) {
				t.Errorf("stage %s: %d tools / %d bytes, not fewer than the full %d / %d", name, len(got), n, len(fullNames), fullBytes)
			}
			lines = append(lines, fmt.Sprintf("%-12s %2d tools %6d bytes (%4.1f%%)", name, len(got), n, 100*float64(n)/float64(fullBytes)))
			row := "`" + name + "`"
			cells[row] = append(cells[row], fmt.Sprintf("%d tools, %s B (%.1f%%)", len(got), thousands(n), 100*float64(n)/float64(fullBytes)))
		}
		// The unpinned guided server starts in the orchestrator stage.
		g := inMemory(t, server.Options{Guided: true, Policy: p}, "2025-11-25")
		got, _ := g.list(t)
		if !slices.Equal(got, wantTools(t, "orchestrator", p)) || len(got) > 20 {
			t.Errorf("guided start lists %v", got)
		}
		if caps := g.cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
			t.Errorf("guided: tools capability %+v, want listChanged true", caps.Tools)
		}
		if inst := g.cs.InitializeResult().Instructions; !strings.Contains(inst, "Start in the orchestrator stage") || strings.Contains(inst, "pinned") {
			t.Errorf("guided: the instructions do not send the session to the orchestrator stage: %q", inst)
		}
		if inst := full.cs.InitializeResult().Instructions; strings.Contains(inst, "Guided mode") {
			t.Errorf("static: the instructions speak of guided mode: %q", inst)
		}
		t.Logf("tools/list with gates %s: full %d tools %d bytes\n%s", gates, len(fullNames), fullBytes, strings.Join(lines, "\n"))
	}
	table := "| stage | gates closed (default) | gates open (writes) |\n|---|---|---|\n"
	for _, row := range append([]string{"front door, no `--guided` (core toolset)", "full list, `--toolsets all`"}, func() (rows []string) {
		for _, name := range set.Names() {
			rows = append(rows, "`"+name+"`")
		}
		return rows
	}()...) {
		table += "| " + row + " | " + strings.Join(cells[row], " | ") + " |\n"
	}
	checkDoc(t, "docs/guided-mode.md", func(t *testing.T, doc string) string {
		return replaceBlock(t, doc, "stage-sizes", table)
	})
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestGuidedListChanged: a stage change sends the session
// notifications/tools/list_changed and its next tools/list is the new
// stage's, with the classic protocol and with the SDK's latest
// (subscriptions/listen).
func TestGuidedListChanged(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"2025-11-25", ""} {
		t.Run("protocol="+proto, func(t *testing.T) {
			root := t.TempDir()
			p := openPolicy(root)
			g := inMemory(t, server.Options{Guided: true, Policy: p}, proto)
			g.mustCall(t, "workflow__new_run", map[string]any{"run_id": "r1"})
			g.noChange(t, 50*time.Millisecond)
			env := g.mustCall(t, "workflow__start_stage", map[string]any{"run_id": "r1"})
			if env["data"].(map[string]any)["stage"] != "plan" {
				t.Fatalf("start_stage: %v", env["data"])
			}
			g.waitChanged(t)
			got, _ := g.list(t)
			if !slices.Equal(got, wantTools(t, "plan", p)) {
				t.Errorf("after start_stage: %v", got)
			}
			// Starting the same stage again changes nothing.
			g.mustCall(t, "workflow__start_stage", map[string]any{"run_id": "r1"})
			g.noChange(t, 100*time.Millisecond)
			g.mustCall(t, "workflow__complete_stage", map[string]any{"run_id": "r1"})
			g.waitChanged(t)
			got, _ = g.list(t)
			if !slices.Equal(got, wantTools(t, "orchestrator", p)) {
				t.Errorf("after complete_stage: %v", got)
			}
		})
	}
}

// TestGuidedToolNotInStage: calls outside the active stage answer
// tool_not_in_stage with the stages that offer the tool; the gates still
// come first.
func TestGuidedToolNotInStage(t *testing.T) {
	t.Parallel()
	g := inMemory(t, server.Options{Guided: true, Policy: registry.Policy{ProjectRoot: t.TempDir()}}, "")
	env := g.call(t, "compile__with_report", map[string]any{})
	details := env["meta"].(map[string]any)["details"].(map[string]any)
	remedy, _ := env["remedy"].(map[string]any)
	if env["code"] != "tool_not_in_stage" || remedy == nil || fmt.Sprint(details["offered_in"]) != "[compile]" || details["active_stage"] != "orchestrator" {
		t.Fatalf("out-of-stage call: %v", env)
	}
	if !strings.Contains(fmt.Sprint(remedy["suggested_tools"]), "workflow.start_stage") {
		t.Errorf("remedy %v", remedy)
	}
	// Dotted names are answered the same way.
	if env := g.call(t, "compile.preview", map[string]any{}); env["code"] != "tool_not_in_stage" {
		t.Errorf("dotted name: %v", env)
	}
	if env := g.call(t, "no__such", nil); env["code"] != "unknown_tool" {
		t.Errorf("unknown: %v", env)
	}
	pinned := inMemory(t, server.Options{Stage: "compile", Policy: registry.Policy{ProjectRoot: t.TempDir()}}, "")
	if env := pinned.call(t, "author__rules", map[string]any{"topic": "naming"}); env["code"] != "tool_not_in_stage" || !strings.Contains(fmt.Sprint(env["remedy"]), "--stage author_step") {
		t.Errorf("pinned: %v", env)
	}
	if env := pinned.call(t, "compile__dag", map[string]any{}); env["code"] != "tool_disabled" {
		t.Errorf("gated tool in its stage with the gate closed: %v", env)
	}
	// Starting a stage in a pinned session does not move it.
	root := t.TempDir()
	p := inMemory(t, server.Options{Stage: "validate", Policy: openPolicy(root)}, "")
	p.mustCall(t, "workflow__new_run", map[string]any{"run_id": "r"})
	env = p.mustCall(t, "workflow__start_stage", map[string]any{"run_id": "r"})
	if d := env["data"].(map[string]any); d["stage"] != "plan" || d["active_stage"] != "validate" || len(env["warnings"].([]any)) == 0 {
		t.Errorf("pinned start_stage: %v", env)
	}
	p.noChange(t, 50*time.Millisecond)
}

// TestGuidedTwoHTTPSessions: two Streamable HTTP sessions of one server in
// different stages at once; each gets only its own notifications.
func TestGuidedTwoHTTPSessions(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := openPolicy(root)
	h, err := server.NewHTTPHandler(cursus.Registry(), server.Options{Guided: true, Policy: p, Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the clients' cleanups: an open session keeps a request in flight
	dial := func(c *mcp.Client) (*mcp.ClientSession, error) {
		return c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	a, b := guidedClient(t, dial), guidedClient(t, dial)
	if a.cs.ID() == b.cs.ID() || a.cs.ID() == "" {
		t.Fatalf("session ids %q %q", a.cs.ID(), b.cs.ID())
	}
	a.mustCall(t, "workflow__new_run", map[string]any{"run_id": "a"})
	b.mustCall(t, "workflow__new_run", map[string]any{"run_id": "b"})
	// Run b already has its DAG: it goes to configure.
	copyExample(t, "dag.json", filepath.Join(root, "runs", "b", "dag.json"))

	a.mustCall(t, "workflow__start_stage", map[string]any{"run_id": "a"})
	a.waitChanged(t)
	b.noChange(t, 100*time.Millisecond)
	b.mustCall(t, "workflow__start_stage", map[string]any{"run_id": "b"})
	b.waitChanged(t)
	a.noChange(t, 100*time.Millisecond)

	la, _ := a.list(t)
	lb, _ := b.list(t)
	if !slices.Equal(la, wantTools(t, "plan", p)) || !slices.Equal(lb, wantTools(t, "configure", p)) {
		t.Fatalf("a lists %v\nb lists %v", la, lb)
	}
	if env := a.call(t, "config__template", map[string]any{"dag": map[string]any{"nodes": []string{"Package"}}}); env["code"] != "tool_not_in_stage" {
		t.Errorf("a (plan) called config__template: %v", env)
	}
	if env := b.call(t, "config__template", map[string]any{"dag": map[string]any{"nodes": []string{"Package"}}}); env["ok"] != true {
		t.Errorf("b (configure) refused config__template: %v", env)
	}
	if env := b.call(t, "dag__construct", map[string]any{"dag": map[string]any{"nodes": []string{"Package"}}}); env["code"] != "tool_not_in_stage" {
		t.Errorf("b (configure) called dag__construct: %v", env)
	}
	if env := a.call(t, "dag__construct", map[string]any{"dag": map[string]any{"nodes": []string{"Package"}}}); env["ok"] != true {
		t.Errorf("a (plan) refused dag__construct: %v", env)
	}
}

func copyExample(t *testing.T, name, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "xgboost-end-to-end", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

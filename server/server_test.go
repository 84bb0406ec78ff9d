package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// defaultNames are the tools the closed policy lists; the generated
// demo__help and other__help are callable but not listed (tools__help
// {"namespace": ...} answers the same).
var defaultNames = []string{"demo__count", "demo__echo", "demo__fail", "demo__noisy", "other__ping"}

func TestInitializeServerInfo(t *testing.T) {
	t.Parallel()
	s := newServer(t, testRegistry(t), server.Options{})
	for _, proto := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run("protocol="+proto, func(t *testing.T) {
			cs := connect(t, s, proto)
			init := cs.InitializeResult()
			if init == nil {
				t.Fatal("no initialize result")
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "cursus" || init.ServerInfo.Version != testVersion {
				t.Fatalf("serverInfo = %+v, want cursus %s", init.ServerInfo, testVersion)
			}
			if proto != "" && init.ProtocolVersion != proto {
				t.Fatalf("negotiated %s, want %s", init.ProtocolVersion, proto)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged {
				t.Fatalf("capabilities = %+v, want tools without listChanged", init.Capabilities)
			}
			if !strings.Contains(init.Instructions, "tools__help") || !strings.Contains(init.Instructions, registry.EnvEnableDestructive) {
				t.Fatalf("instructions do not point at tools__help and the closed gates: %q", init.Instructions)
			}
			if got := listNames(t, cs); !slices.Equal(got, defaultNames) {
				t.Fatalf("tools = %v, want %v", got, defaultNames)
			}
		})
	}
}

func TestVersionDefault(t *testing.T) {
	t.Parallel()
	s, err := server.New(testRegistry(t), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := connect(t, s, "").InitializeResult().ServerInfo.Version; v != "0" {
		t.Fatalf("version without Options.Version = %q, want 0", v)
	}
}

func TestListPerGate(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	cases := []struct {
		name   string
		policy registry.Policy
		extra  []string
	}{
		{"closed", registry.Policy{}, nil},
		{"destructive", registry.Policy{AllowDestructive: true}, []string{"demo__deploy", "demo__save"}},
		{"script-exec", registry.Policy{AllowScriptExec: true}, []string{"demo__run"}},
		{"both", registry.Policy{AllowDestructive: true, AllowScriptExec: true}, []string{"demo__deploy", "demo__run", "demo__run_and_save", "demo__save"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := connect(t, newServer(t, reg, server.Options{Policy: c.policy}), "")
			want := append(slices.Clone(defaultNames), c.extra...)
			slices.Sort(want)
			if got := listNames(t, cs); !slices.Equal(got, want) {
				t.Fatalf("tools = %v, want %v", got, want)
			}
		})
	}
}

func TestToolDescriptors(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	cs := connect(t, newServer(t, reg, server.Options{Policy: registry.Policy{AllowDestructive: true, AllowScriptExec: true}}), "")
	tools := listTools(t, cs)
	listing, err := registry.NewListing(reg.List(""))
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ ro, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"demo__echo":   {ro: true, idempotent: true},         // read-only
		"demo__save":   {},                                   // writes files
		"demo__deploy": {destructive: true, openWorld: true}, // destructive + network
		"demo__run":    {openWorld: true},                    // executes code
	}
	for name, w := range want {
		tool := tools[name]
		if tool == nil {
			t.Fatalf("%s not listed", name)
		}
		def, _ := reg.Get(name)
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations not all set: %+v", name, a)
		}
		got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", name, got, w)
		}
		ex := exporters.Annotations(def)
		if got != (hints{ex.ReadOnlyHint, ex.DestructiveHint, ex.IdempotentHint, ex.OpenWorldHint}) {
			t.Errorf("%s: hints %+v disagree with exporters.Annotations %+v", name, got, ex)
		}
		if tool.Title != def.Title || a.Title != "" {
			t.Errorf("%s: title %q / annotations.title %q, want %q once (the name stands for a tool without a title)", name, tool.Title, a.Title, def.Title)
		}
		if tool.Description != def.RenderDescription() {
			t.Errorf("%s: description is not the rendered description", name)
		}
		var schema map[string]any
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		wantSchema := listing.InputSchema(def)
		var ws map[string]any
		_ = json.Unmarshal(wantSchema, &ws)
		if !reflect.DeepEqual(schema, ws) {
			t.Errorf("%s: inputSchema %s, want the listed schema %s", name, b, wantSchema)
		}
		ob, _ := json.Marshal(tool.OutputSchema)
		if string(ob) != string(def.ListedOutputSchema()) {
			t.Errorf("%s: outputSchema %s, want %s", name, ob, def.ListedOutputSchema())
		}
	}
}

// TestAnnotationsOnTheWire reads the raw tools/list JSON: every hint is
// present, false included (the MCP defaults of destructiveHint and
// openWorldHint are true, so leaving them out would claim the opposite),
// and no title is repeated in the annotations.
func TestAnnotationsOnTheWire(t *testing.T) {
	t.Parallel()
	cs := connect(t, newServer(t, testRegistry(t), server.Options{}), "2025-11-25")
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Tools []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	for _, tool := range wire.Tools {
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := tool.Annotations[k]; !ok {
				t.Errorf("%s: annotation %s missing: %v", tool.Name, k, tool.Annotations)
			}
		}
		if _, ok := tool.Annotations["title"]; ok {
			t.Errorf("%s: the annotations repeat a title: %v", tool.Name, tool.Annotations)
		}
	}
}

// scenario runs the call checks every transport must pass, against a
// server over the fake registry with the destructive gate open (so the
// confinement can be seen) and the script gate closed, confined to root.
func scenario(t *testing.T, cs *mcp.ClientSession, root string) {
	t.Run("success", func(t *testing.T) {
		res, env := callEnv(t, cs, "demo__echo", map[string]any{"msg": "hi", "n": 2})
		if res.IsError {
			t.Fatalf("isError on success: %v", env)
		}
		data, _ := env["data"].(map[string]any)
		if data["msg"] != "hi" || data["n"] != float64(2) {
			t.Fatalf("data = %v", env["data"])
		}
		if meta, _ := env["meta"].(map[string]any); meta["tool"] != "demo.echo" {
			t.Fatalf("meta.tool = %v", env["meta"])
		}
	})
	t.Run("failure", func(t *testing.T) {
		res, env := callEnv(t, cs, "demo__fail", nil)
		if !res.IsError {
			t.Fatal("isError false on failure")
		}
		wantCode(t, env, "not_found")
		remedy, _ := env["remedy"].(map[string]any)
		if remedy["fix_action"] != "look elsewhere" || details(env)["what"] != "thing" {
			t.Fatalf("envelope lost remedy or details: %v", env)
		}
	})
	t.Run("internal-error", func(t *testing.T) {
		_, env := callEnv(t, cs, "demo__noisy", map[string]any{})
		wantCode(t, env, "internal_error")
	})
	t.Run("unknown-tool", func(t *testing.T) {
		res, env := callEnv(t, cs, "no__such", map[string]any{})
		if !res.IsError {
			t.Fatal("unknown tool: isError false")
		}
		wantCode(t, env, "unknown_tool")
	})
	t.Run("invalid-arguments", func(t *testing.T) {
		for _, args := range []any{
			map[string]any{"n": "three"},
			map[string]any{"n": 0},
			map[string]any{},
			map[string]any{"n": 1, "bogus": true},
		} {
			res, env := callEnv(t, cs, "demo__count", args)
			if !res.IsError {
				t.Fatalf("args %v accepted", args)
			}
			wantCode(t, env, "invalid_input")
			if errs, _ := details(env)["errors"].([]any); len(errs) == 0 {
				t.Fatalf("args %v: no meta.details.errors: %v", args, env)
			}
		}
	})
	t.Run("gated-by-name", func(t *testing.T) {
		res, env := callEnv(t, cs, "demo__run", map[string]any{})
		if !res.IsError {
			t.Fatal("gated tool ran")
		}
		wantCode(t, env, "tool_disabled")
		if details(env)["env_var"] != registry.EnvAllowScriptExec || !strings.Contains(env["error"].(string), registry.EnvAllowScriptExec) {
			t.Fatalf("tool_disabled does not name %s: %v", registry.EnvAllowScriptExec, env)
		}
	})
	t.Run("confined-write", func(t *testing.T) {
		outside := filepath.Join(filepath.Dir(root), "escaped-"+filepath.Base(root)+".txt")
		for _, p := range []string{"../" + filepath.Base(outside), outside} {
			_, env := callEnv(t, cs, "demo__save", map[string]any{"path": p, "content": "x"})
			wantCode(t, env, "invalid_input")
			if !strings.Contains(env["error"].(string), "outside") {
				t.Fatalf("refusal does not say why: %v", env)
			}
			if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s was written (stat err %v)", outside, err)
			}
		}
		res, env := callEnv(t, cs, "demo__save", map[string]any{"path": "sub/ok.txt", "content": "inside"})
		if res.IsError {
			t.Fatalf("write inside the root refused: %v", env)
		}
		if b, err := os.ReadFile(filepath.Join(root, "sub", "ok.txt")); err != nil || string(b) != "inside" {
			t.Fatalf("inside write: %q, %v", b, err)
		}
	})
}

func TestCallsInMemory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := newServer(t, testRegistry(t), server.Options{Policy: registry.Policy{AllowDestructive: true, ProjectRoot: root}})
	for _, proto := range []string{"", "2025-06-18"} {
		t.Run("protocol="+proto, func(t *testing.T) { scenario(t, connect(t, s, proto), root) })
	}
}

func TestGatedToolsRefusedByDefault(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cs := connect(t, newServer(t, testRegistry(t), server.Options{Policy: registry.Policy{ProjectRoot: root}}), "")
	for name, env := range map[string]string{
		"demo__save":         registry.EnvEnableDestructive,
		"demo.save":          registry.EnvEnableDestructive, // dotted names reach the registry too
		"demo__deploy":       registry.EnvEnableDestructive,
		"demo__run":          registry.EnvAllowScriptExec,
		"demo__run_and_save": registry.EnvAllowScriptExec,
	} {
		_, got := callEnv(t, cs, name, map[string]any{"path": "f.txt"})
		wantCode(t, got, "tool_disabled")
		if details(got)["env_var"] != env {
			t.Errorf("%s: env_var %v, want %s", name, details(got)["env_var"], env)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "f.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a gated tool wrote its file")
	}
	// One gate open is not enough for a tool that needs both.
	cs = connect(t, newServer(t, testRegistry(t), server.Options{Policy: registry.Policy{AllowScriptExec: true, ProjectRoot: root}}), "")
	_, got := callEnv(t, cs, "demo__run_and_save", nil)
	wantCode(t, got, "tool_disabled")
	if details(got)["env_var"] != registry.EnvEnableDestructive {
		t.Fatalf("run_and_save with only script exec: %v", got)
	}
}

func TestUnlistedButCallableNames(t *testing.T) {
	t.Parallel()
	cs := connect(t, newServer(t, testRegistry(t), server.Options{}), "")
	res, env := callEnv(t, cs, "demo.echo", map[string]any{"msg": "dotted"})
	if res.IsError {
		t.Fatalf("dotted name: %v", env)
	}
	res, env = callEnv(t, cs, "demo__old", map[string]any{"msg": "old"})
	if res.IsError {
		t.Fatalf("deprecated tool: %v", env)
	}
	if w, _ := env["warnings"].([]any); len(w) == 0 || !strings.Contains(w[0].(string), "demo.echo") {
		t.Fatalf("deprecated tool without a warning naming its replacement: %v", env)
	}
	// Missing and null arguments count as {}.
	if res, env := callEnv(t, cs, "other__ping", nil); res.IsError {
		t.Fatalf("no arguments: %v", env)
	}
	// Arguments that are not an object are a tool failure, not a protocol error.
	res, env = callEnv(t, cs, "demo__echo", []any{1, 2})
	if !res.IsError {
		t.Fatalf("array arguments accepted: %v", env)
	}
	wantCode(t, env, "invalid_input")
}

func TestSelection(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	open := registry.Policy{AllowDestructive: true, AllowScriptExec: true}
	cases := []struct {
		name string
		opts server.Options
		want []string
	}{
		{"namespaces", server.Options{Namespaces: []string{"other"}}, []string{"other__ping"}},
		{"help-by-name", server.Options{Tools: []string{"other.help"}}, []string{"other__help"}},
		{"tools-alone", server.Options{Tools: []string{"demo.echo", "demo__fail"}}, []string{"demo__echo", "demo__fail"}},
		{"union", server.Options{Namespaces: []string{"other"}, Tools: []string{"demo__echo"}}, []string{"demo__echo", "other__ping"}},
		{"comma-separated", server.Options{Namespaces: []string{" other , demo"}, ExcludeTools: []string{"demo.noisy,demo__help"}},
			[]string{"demo__count", "demo__echo", "demo__fail", "other__ping"}},
		{"exclude", server.Options{ExcludeTools: []string{"demo.fail"}}, []string{"demo__count", "demo__echo", "demo__noisy", "other__ping"}},
		{"gating-wins", server.Options{Tools: []string{"demo.save", "demo.echo"}}, []string{"demo__echo"}},
		{"gate-open", server.Options{Policy: open, Tools: []string{"demo.save"}}, []string{"demo__save"}},
		{"exclude-wins", server.Options{Policy: open, Tools: []string{"demo.save"}, ExcludeTools: []string{"demo.save"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := listNames(t, connect(t, newServer(t, reg, c.opts), ""))
			if !slices.Equal(got, c.want) {
				t.Fatalf("tools = %v, want %v", got, c.want)
			}
		})
	}

	t.Run("deselected-call", func(t *testing.T) {
		cs := connect(t, newServer(t, reg, server.Options{Namespaces: []string{"other"}, ExcludeTools: []string{"other.help"}}), "")
		for _, name := range []string{"demo__echo", "demo.echo", "other__help"} {
			res, env := callEnv(t, cs, name, map[string]any{"msg": "x"})
			if !res.IsError {
				t.Fatalf("%s ran though the selection leaves it out", name)
			}
			wantCode(t, env, "tool_disabled")
			if details(env)["reason"] != "not_selected" {
				t.Fatalf("%s: %v", name, env)
			}
		}
		// A closed gate still answers with its variable, selection or not.
		_, env := callEnv(t, cs, "demo__save", map[string]any{"path": "x"})
		if details(env)["env_var"] != registry.EnvEnableDestructive {
			t.Fatalf("gated and deselected: %v", env)
		}
		_, env = callEnv(t, cs, "other__ping", nil)
		if env["ok"] != true {
			t.Fatalf("selected tool: %v", env)
		}
	})

	t.Run("unknown-names", func(t *testing.T) {
		_, err := server.New(reg, server.Options{Namespaces: []string{"other", "nope"}, Tools: []string{"demo.echo", "demo.zzz", "x"}, ExcludeTools: []string{"gone"}})
		var se *server.SelectionError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want *SelectionError", err)
		}
		if !slices.Equal(se.UnknownNamespaces, []string{"nope"}) || !slices.Equal(se.UnknownTools, []string{"demo.zzz", "x"}) || !slices.Equal(se.UnknownExcluded, []string{"gone"}) {
			t.Fatalf("SelectionError = %+v", se)
		}
		for _, n := range []string{"nope", "demo.zzz", "x", "gone"} {
			if !strings.Contains(se.Error(), n) {
				t.Fatalf("message %q does not name %s", se.Error(), n)
			}
		}
	})
}

func TestNilRegistry(t *testing.T) {
	t.Parallel()
	if _, err := server.New(nil, server.Options{}); err == nil {
		t.Fatal("New(nil) succeeded")
	}
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"8080":           "127.0.0.1:8080",
		":8080":          "127.0.0.1:8080",
		" :0 ":           "127.0.0.1:0",
		"localhost:9000": "localhost:9000",
		"0.0.0.0:80":     "0.0.0.0:80",
		"[::1]:7000":     "[::1]:7000",
	} {
		got, err := server.ListenAddr(in)
		if err != nil || got != want {
			t.Errorf("ListenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "host:", "a:b:c"} {
		if got, err := server.ListenAddr(bad); err == nil {
			t.Errorf("ListenAddr(%q) = %q, want an error", bad, got)
		}
	}
}

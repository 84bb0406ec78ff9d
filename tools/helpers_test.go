package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/workflow"
)

// The call and assert helpers of the tools tests. The tests of package
// tools_test reach the first three through the exported names at the end.

var (
	testRegOnce sync.Once
	testReg     *registry.Registry
)

// testRegistry is the default registry, built once: this package's
// namespaces and the workflow namespace above them, as the facade lists
// them (cursus.DefaultNamespaces, which a test of this package cannot
// import), so that a tool's next steps and the stages' tool lists resolve.
func testRegistry() *registry.Registry {
	testRegOnce.Do(func() {
		r, err := Build(append(DefaultNamespaces(), workflow.Namespace()))
		if err != nil {
			panic(err)
		}
		testReg = r
	})
	return testReg
}

// callTool runs a tool through the real registry and returns the envelope
// decoded from its wire JSON, so tests see exactly what clients see.
func callTool(t testing.TB, ctx context.Context, name string, args any) map[string]any {
	t.Helper()
	res := testRegistry().Call(ctx, name, args)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s: envelope does not encode: %v", name, err)
	}
	var env map[string]any
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// wantOK checks the envelope succeeded and returns its data object.
func wantOK(t testing.TB, env map[string]any) map[string]any {
	t.Helper()
	if env["ok"] != true {
		t.Fatalf("want ok, got %v", env)
	}
	d, ok := env["data"].(map[string]any)
	if !ok {
		t.Fatalf("data is not an object: %v", env)
	}
	return d
}

// wantFail checks the envelope failed with code, with a message and
// without data, and, when remedyTools are given, that its remedy suggests
// each of them. It returns meta.details.
func wantFail(t testing.TB, env map[string]any, code envelope.Code, remedyTools ...string) map[string]any {
	t.Helper()
	if env["ok"] != false || env["code"] != string(code) {
		t.Fatalf("want %s, got %v", code, env)
	}
	if msg, _ := env["error"].(string); msg == "" {
		t.Errorf("failure without a message: %v", env)
	}
	if _, has := env["data"]; has {
		t.Errorf("failure carries data: %v", env)
	}
	if len(remedyTools) > 0 {
		got := remedyToolsOf(t, env)
		for _, want := range remedyTools {
			if !slices.Contains(got, want) {
				t.Fatalf("remedy %v lacks %s", env["remedy"], want)
			}
		}
	}
	return details(env)
}

// details returns the envelope's meta.details.
func details(env map[string]any) map[string]any {
	m, _ := env["meta"].(map[string]any)
	d, _ := m["details"].(map[string]any)
	return d
}

// remedyToolsOf returns the tools a failure's remedy suggests; a failure
// without a remedy, or a remedy without a fix_action, fails the test.
func remedyToolsOf(t testing.TB, env map[string]any) []string {
	t.Helper()
	r, ok := env["remedy"].(map[string]any)
	if !ok {
		t.Fatalf("no remedy: %v", env)
	}
	if fix, _ := r["fix_action"].(string); fix == "" {
		t.Errorf("remedy without fix_action: %v", r)
	}
	return strs(t, r["suggested_tools"])
}

// nextTools returns the tools the envelope's next_steps name, in order.
func nextTools(env map[string]any) []string {
	var out []string
	ns, _ := env["next_steps"].([]any)
	for _, n := range ns {
		out = append(out, n.(map[string]any)["tool"].(string))
	}
	return out
}

// strs returns a decoded JSON list of strings; anything else fails the
// test.
func strs(t testing.TB, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("want a list of strings, got %#v", v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			t.Fatalf("want a list of strings, got %#v", v)
		}
		out[i] = s
	}
	return out
}

// toJSON renders v as compact JSON, for searching a value's text.
func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// writeFile writes content to the slash-separated path rel under dir,
// creating its directories, and returns the file's path.
func writeFile(t testing.TB, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFiles writes files (relative path -> content) into a fresh
// temporary directory and returns the directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		writeFile(t, dir, rel, content)
	}
	return dir
}

// The helpers the tests of package tools_test share with these.
var (
	// CallTool is callTool.
	CallTool = callTool
	// WantOK is wantOK.
	WantOK = wantOK
	// WantFail is wantFail.
	WantFail = wantFail
	// Blank is blank.
	Blank = blank
	// ToJSON is toJSON.
	ToJSON = toJSON
	// WriteFile is writeFile.
	WriteFile = writeFile
)

// blank reports whether a decoded JSON value is not a non-empty string
// (missing keys decode to nil, which `== ""` would let through).
func blank(v any) bool {
	s, ok := v.(string)
	return !ok || s == ""
}

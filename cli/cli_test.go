package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/cli"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(append([]string{"cursus"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func envelopeOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("stdout is not one JSON envelope: %v\n%s", err, s)
	}
	return m
}

func TestCallExitCodesAndArgForms(t *testing.T) {
	code, out, _ := run(t, "", "mcp", "call", "tools.by_phase", `{"phase":"planner"}`)
	if code != 0 || envelopeOf(t, out)["ok"] != true {
		t.Fatalf("ok call: %d %s", code, out)
	}
	code, out, _ = run(t, "", "mcp", "call", "no.such_tool")
	if code != 1 || envelopeOf(t, out)["code"] != "unknown_tool" {
		t.Fatalf("failing call: %d %s", code, out)
	}
	code, out, _ = run(t, `{"phase":"validator"}`, "mcp", "call", "tools__by_phase", "-")
	if code != 0 || envelopeOf(t, out)["ok"] != true {
		t.Fatalf("stdin args: %d %s", code, out)
	}
	f := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(f, []byte(`{"name":"tools.help"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "mcp", "call", "tools.describe_tool", "@"+f)
	if code != 0 || envelopeOf(t, out)["ok"] != true {
		t.Fatalf("@file args: %d %s", code, out)
	}
	// bad JSON arguments are named by position
	if code, _, errs := run(t, "", "mcp", "call", "tools.help", "{\"namespace\": \"compile\",\n \"phase\" \"x\"}"); code != 2 || !strings.Contains(errs, "line 2, column 10 (byte 34)") {
		t.Errorf("bad JSON: %d %s", code, errs)
	}
	for _, c := range [][]string{
		{"mcp", "call"},
		{"mcp", "call", "tools.help", "{not json"},
		{"mcp", "call", "tools.help", "{}", "extra"},
		{"mcp", "call", "tools.help", "@/nonexistent/args.json"},
		{"mcp", "help", "--format", "yaml"},
		{"mcp", "export", "--format", "nope"},
		{"mcp", "list-tools", "--bogus-flag"},
		{"no-such-command"},
	} {
		code, out, errs := run(t, "", c...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%v: want usage error (exit 2, nothing on stdout, a message on stderr), got %d %q %q", c, code, out, errs)
		}
	}
}

func TestHelpAndListTools(t *testing.T) {
	code, out, _ := run(t, "", "mcp", "help", "--format", "json")
	var data map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &data) != nil || data["total_tools"] == nil {
		t.Fatalf("help json: %d %s", code, out)
	}
	code, out, _ = run(t, "", "mcp", "help", "--namespace", "tools")
	if code != 0 || !strings.Contains(out, "tools.describe_tool") || !strings.Contains(out, "Examples:") || !strings.Contains(out, "Phases:") {
		t.Fatalf("help text: %d %s", code, out)
	}
	code, _, errs := run(t, "", "mcp", "help", "--namespace", "nope")
	if code != 1 || !strings.Contains(errs, "unknown namespace") {
		t.Fatalf("help unknown namespace: %d %s", code, errs)
	}
	code, out, _ = run(t, "", "mcp", "list-tools", "--format", "json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) == 0 {
		t.Fatalf("list-tools json: %d %s", code, out)
	}
	for _, k := range []string{"name", "description", "destructive", "writes", "exec_code", "network"} {
		if _, ok := list[0][k]; !ok {
			t.Errorf("list-tools json lacks %q", k)
		}
	}
	code, out, _ = run(t, "", "mcp", "list-tools")
	if code != 0 || !strings.Contains(out, "MCP tool(s):") {
		t.Fatalf("list-tools text: %d %s", code, out)
	}
}

func TestExport(t *testing.T) {
	for _, f := range []string{"openai", "openai-responses", "anthropic", "bedrock", "gemini", "mcp"} {
		code, out, _ := run(t, "", "mcp", "export", "--format", f, "--namespace", "tools")
		var arr []any
		if code != 0 || json.Unmarshal([]byte(out), &arr) != nil || len(arr) != 4 {
			t.Errorf("export %s: %d %s", f, code, out)
		}
	}
	p := filepath.Join(t.TempDir(), "sub", "tools.json")
	code, out, _ := run(t, "", "mcp", "export", "--format", "mcp", "-o", p)
	b, err := os.ReadFile(p)
	if code != 0 || out != "" || err != nil || !json.Valid(b) {
		t.Fatalf("export -o: %d %q %v", code, out, err)
	}
	// Deferred loading: the tool search tool first, tools.help, describe_tool and toolsets (core) loaded,
	// tools.by_phase deferred; a format without it is a usage error.
	for f, search := range map[string]string{"anthropic": "tool_search_tool_bm25_20251119", "openai-responses": "tool_search"} {
		code, out, _ = run(t, "", "mcp", "export", "--format", f, "--namespace", "tools", "--defer-loading")
		var arr []map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &arr) != nil || len(arr) != 5 || arr[0]["type"] != search {
			t.Fatalf("export %s --defer-loading: %d %s", f, code, out)
		}
		for _, tool := range arr[1:] {
			if core := tool["name"] == "tools__help" || tool["name"] == "tools__toolsets" || tool["name"] == "tools__describe_tool"; (tool["defer_loading"] == true) == core {
				t.Errorf("export %s --defer-loading: %s defer_loading %v", f, tool["name"], tool["defer_loading"])
			}
		}
	}
	code, _, stderr := run(t, "", "mcp", "export", "--format", "gemini", "--defer-loading")
	if code != cli.ExitUsage || !strings.Contains(stderr, "openai-responses") {
		t.Errorf("gemini --defer-loading: %d %s", code, stderr)
	}
	code, out, _ = run(t, "", "mcp", "export", "--help")
	if code != 0 || !strings.Contains(out, "--defer-loading") || !strings.Contains(out, "deferred loading") {
		t.Errorf("mcp export --help does not offer deferred loading: %s", out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "cursus ") {
		t.Fatalf("%d %q", code, out)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func buildBinary(b testing.TB) string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cursus-bench-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cursus")
		out, err := exec.Command("go", "build", "-o", binPath, "./cursus").CombinedOutput()
		if err != nil {
			binErr = err
			b.Logf("%s", out)
		}
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

// BenchmarkColdListTools measures a whole process: start, build the
// registry, print every tool as JSON, exit.
func BenchmarkColdListTools(b *testing.B) {
	bin := buildBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "mcp", "list-tools", "--format", "json")
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// A check that answers ok with a failed verdict exits 1: compile.validate
// of a pipeline that is not deployable (a placeholder author), while the
// same pipeline with real values exits 0; dag.validate_integrity of a
// cyclic DAG exits 1 too.
func TestCallExitsOneOnAFailedCheck(t *testing.T) {
	ex := filepath.Join("..", "examples", "simple-training")
	args := func(cfg string) string {
		b, _ := json.Marshal(map[string]any{"dag_file": filepath.Join(ex, "dag.json"), "config_file": cfg})
		return string(b)
	}
	code, out, _ := run(t, "", "mcp", "call", "compile.validate", args(filepath.Join(ex, "config.json")))
	if env := envelopeOf(t, out); code != 0 || env["data"].(map[string]any)["deployable"] != true {
		t.Fatalf("deployable example: exit %d %s", code, out)
	}

	raw, err := os.ReadFile(filepath.Join(ex, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["configuration"].(map[string]any)["shared"].(map[string]any)["author"] = "replace-me"
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(ex)); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "mcp", "call", "compile.validate", args(cfg))
	env := envelopeOf(t, out)
	d, _ := env["data"].(map[string]any)
	if code != 1 || env["ok"] != true || d["deployable"] != false || !strings.Contains(out, `"author"`) {
		t.Fatalf("placeholder author: want exit 1 with ok true, deployable false and a blocker naming author; got %d %s", code, out)
	}
	if env["meta"].(map[string]any)["verdict"] != "fail" {
		t.Errorf("meta %v", env["meta"])
	}

	code, out, _ = run(t, "", "mcp", "call", "dag.validate_integrity", `{"nodes":["a","b"],"edges":[["a","b"],["b","a"]]}`)
	if env := envelopeOf(t, out); code != 1 || env["ok"] != true || env["data"].(map[string]any)["is_valid"] != false {
		t.Errorf("cyclic DAG: want exit 1 with ok true and is_valid false, got %d %s", code, out)
	}
	code, _, _ = run(t, "", "mcp", "call", "dag.validate_integrity", `{"nodes":["DummyDataLoading_training","TabularPreprocessing_training"],"edges":[["DummyDataLoading_training","TabularPreprocessing_training"]]}`)
	if code != 0 {
		t.Errorf("valid DAG: exit %d", code)
	}
}

// `cursus help` shows what --help shows, for the app and for a command;
// an unknown command is a usage error naming it.
// The CLI's tests do not run in parallel: urfave/cli/v2 applies its package-level
// HelpFlag on every App.Run, a write the race detector sees between parallel runs.
func TestHelpCommand(t *testing.T) {
	for _, c := range [][]string{{}, {"mcp"}, {"mcp", "call"}, {"run", "local"}} {
		code, out, errs := run(t, "", append([]string{"help"}, c...)...)
		_, want, _ := run(t, "", append(c, "--help")...)
		if code != 0 || errs != "" || out == "" || out != want {
			t.Errorf("help %v: %d %q %q, want the output of --help:\n%s", c, code, out, errs, want)
		}
	}
	if code, out, errs := run(t, "", "help", "mcp", "nope"); code != 2 || out != "" || !strings.Contains(errs, `"mcp nope"`) {
		t.Errorf("help mcp nope: %d %q %q", code, out, errs)
	}
}

// An option written after the operands is refused with a hint to put it
// first, instead of being read as an operand; workflow run reads its
// options after NAME itself.
func TestOptionAfterOperandsHasAHint(t *testing.T) {
	code, out, errs := run(t, "", "mcp", "call", "tools.help", "{}", "--compact")
	if code != 2 || out != "" || !strings.Contains(errs, "--compact is an option of cursus mcp call") || !strings.Contains(errs, "put options before the operands (cursus mcp call [OPTIONS] TOOL [ARGS])") {
		t.Errorf("mcp call ... --compact: %d %q %q", code, out, errs)
	}
	if code, _, errs := run(t, "", "mcp", "call", "tools.help", "--bogus"); code != 2 || !strings.Contains(errs, "--bogus looks like an option") {
		t.Errorf("mcp call tools.help --bogus: %d %q", code, errs)
	}
	if code, out, _ := run(t, `{}`, "mcp", "call", "--compact", "tools.help", "-"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("options first and - for stdin: %d %q", code, out)
	}
	if code, _, errs := run(t, "", "workflow", "run", "new-project", "--args", "{}", "-q"); strings.Contains(errs, "comes after the operands") {
		t.Errorf("workflow run NAME --args: %d %q", code, errs)
	}
}

// --step-timeout shows one default, the local run's.
func TestStepTimeoutShowsOneDefault(t *testing.T) {
	_, out, _ := run(t, "", "run", "local", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "--step-timeout") {
			if n := strings.Count(line, "default"); n != 1 || !strings.Contains(line, "(default: 3600)") {
				t.Errorf("want one default, 3600: %q", line)
			}
			return
		}
	}
	t.Errorf("no --step-timeout in:\n%s", out)
}

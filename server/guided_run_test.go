package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cursus-go/cursus/engine/compiler/compilertest"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// agent drives a guided server the way an MCP host's agent would: it only
// calls tools the active stage lists, and records a transcript.
type agent struct {
	t     *testing.T
	g     *gClient
	root  string
	stage string
	tools []string // wire names listed by the server now
	log   strings.Builder
	// calls is the short transcript the README shows: one line a call
	// and one a list change.
	calls strings.Builder
}

func (a *agent) logf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	a.log.WriteString(strings.ReplaceAll(s, a.root, "/project") + "\n")
}

// call calls a tool the current tools/list offers and fails otherwise.
func (a *agent) call(name string, args map[string]any) map[string]any {
	a.t.Helper()
	if !slices.Contains(a.tools, name) {
		a.t.Fatalf("stage %s: the agent wants %s, which tools/list does not offer: %v", a.stage, name, a.tools)
	}
	a.logf("-> tools/call %s %s", name, brief(args, 0))
	a.callf("-> %s %s", name, cut(strings.ReplaceAll(brief(args, 1), a.root, "/project"), 96))
	env := a.g.mustCall(a.t, name, args)
	a.logf("<- %s", brief(env, 0))
	return env
}

// relist waits for the list-changed notification and reads the new list.
func (a *agent) relist() {
	a.t.Helper()
	a.g.waitChanged(a.t)
	var n int
	a.tools, n = a.g.list(a.t)
	a.logf("<~ notifications/tools/list_changed; tools/list: %d tools, %d bytes", len(a.tools), n)
	a.callf("<~ notifications/tools/list_changed; tools/list: %d tools (%s)", len(a.tools), a.stage)
}

func (a *agent) callf(format string, args ...any) {
	fmt.Fprintf(&a.calls, format+"\n", args...)
}

// cut shortens s to at most n bytes (at a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - 4
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + " ..."
}

// transcriptBlock is the transcript as the docs show it: in a text fence,
// every line cut to width.
func transcriptBlock(log string, width int) string {
	var b strings.Builder
	b.WriteString("```text\n")
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		b.WriteString(cut(line, width) + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// TestGuidedWholeRun: from an empty project to a compiled definition,
// driven only by workflow__start_stage, the tools each stage lists and
// workflow__complete_stage. The agent supplies the xgboost-end-to-end
// example's DAG and values, as a user would. Set CURSUS_GUIDED_TRANSCRIPT
// to a file to keep the transcript (docs/guided-mode.md shows one).
func TestGuidedWholeRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	g := inMemory(t, server.Options{Guided: true, Policy: registry.Policy{AllowDestructive: true, ProjectRoot: root}}, "2025-11-25")
	a := &agent{t: t, g: g, root: root, stage: "orchestrator"}
	var n int
	a.tools, n = g.list(t)
	a.logf("<- tools/list: %d tools, %d bytes: %s", len(a.tools), n, strings.Join(a.tools, ", "))
	a.callf("<- tools/list: %d tools (%s)", len(a.tools), a.stage)

	dagArgs, base, steps := exampleInputs(t)
	env := a.call("workflow__new_run", map[string]any{"run_id": "xgb-demo"})
	arts := env["data"].(map[string]any)["artifacts"].(map[string]any)
	dagFile, configFile := arts["dag_file"].(string), arts["config_file"].(string)

	var visited []string
	for i := 0; ; i++ {
		if i == 8 {
			t.Fatalf("no end after %d stages: %v", i, visited)
		}
		env = a.call("workflow__start_stage", map[string]any{"run_id": "xgb-demo"})
		d := env["data"].(map[string]any)
		if d["done"] == true {
			break
		}
		a.stage = d["stage"].(string)
		visited = append(visited, a.stage)
		a.relist()
		var want []string
		for _, n := range d["tools"].([]any) {
			want = append(want, registry.WireName(n.(string)))
		}
		sort.Strings(want)
		if !slices.Equal(a.tools, want) {
			t.Fatalf("stage %s: tools/list %v, start_stage said %v", a.stage, a.tools, want)
		}
		switch a.stage {
		case "plan":
			rec := a.call("pipeline_catalog__recommend", map[string]any{"framework": "xgboost", "need": "calibration and registration", "format": "markdown"})
			if !strings.Contains(rec["data"].(string), "xgboost_complete_e2e") {
				t.Errorf("recommend: %v", rec["data"])
			}
			a.call("dag__validate_integrity", map[string]any{"dag": dagArgs})
			a.call("dag__serialize", map[string]any{"dag": dagArgs, "output_file": dagFile})
		case "configure":
			a.call("config__template", map[string]any{"dag": dagArgs})
			a.call("config__merge_save", map[string]any{"dag": dagArgs, "base": base, "steps": steps, "output_file": configFile})
		case "validate":
			a.call("dag__validate_integrity", map[string]any{"dag": dagArgs})
			a.call("compile__validate", map[string]any{"dag_file": dagFile, "config_file": configFile})
			a.call("compile__preview", map[string]any{"dag_file": dagFile, "config_file": configFile, "format": "markdown"})
		case "compile":
			a.call("compile__definition", map[string]any{"dag_file": dagFile, "config_file": configFile})
			a.call("compile__with_report", map[string]any{"dag_file": dagFile, "config_file": configFile, "format": "markdown"})
		default:
			t.Fatalf("unexpected stage %s", a.stage)
		}
		env = a.call("workflow__complete_stage", map[string]any{"run_id": "xgb-demo"})
		if env["data"].(map[string]any)["completed"] != true {
			t.Fatalf("stage %s not complete: %v", a.stage, env["warnings"])
		}
		a.stage = "orchestrator"
		a.relist()
	}
	if strings.Join(visited, ",") != "plan,configure,validate,compile" {
		t.Errorf("stages visited: %v", visited)
	}
	a.call("workflow__status", map[string]any{"run_id": "xgb-demo", "format": "markdown"})

	def, err := os.ReadFile(filepath.Join(root, "runs", "xgb-demo", "pipeline.definition.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Version string
		Steps   []struct{ Name string }
	}
	if err := json.Unmarshal(def, &d); err != nil || len(d.Steps) != 10 {
		t.Fatalf("definition: %v, %d steps", err, len(d.Steps))
	}
	compilertest.CheckSchemas(t, def, compilertest.Strict)
	for _, rep := range []string{"dag.validate_integrity", "compile.validate", "compile.preview", "compile.definition", "compile.with_report"} {
		if _, err := os.Stat(filepath.Join(root, "runs", "xgb-demo", "reports", rep+".json")); err != nil {
			t.Errorf("report %s: %v", rep, err)
		}
	}
	checkDoc(t, "docs/guided-mode.md", func(t *testing.T, doc string) string {
		return replaceBlock(t, doc, "guided-transcript", transcriptBlock(a.log.String(), 200))
	})
	checkDoc(t, "README.md", func(t *testing.T, doc string) string {
		return replaceBlock(t, doc, "guided-calls", transcriptBlock(a.calls.String(), 120))
	})
	if p := os.Getenv("CURSUS_GUIDED_TRANSCRIPT"); p != "" {
		if err := os.WriteFile(p, []byte(a.log.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// exampleInputs reads the xgboost-end-to-end example as the agent's inputs:
// the DAG, and the config as config.merge_save's base and per-node values.
func exampleInputs(t *testing.T) (map[string]any, map[string]any, map[string]any) {
	t.Helper()
	dir := filepath.Join("..", "examples", "xgboost-end-to-end")
	var df struct {
		DAG struct {
			Nodes []string   `json:"nodes"`
			Edges [][]string `json:"edges"`
		} `json:"dag"`
	}
	var cf struct {
		Configuration struct {
			Shared   map[string]any            `json:"shared"`
			Specific map[string]map[string]any `json:"specific"`
		} `json:"configuration"`
	}
	for name, v := range map[string]any{"dag.json": &df, "config.json": &cf} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	steps := map[string]any{}
	for k, v := range cf.Configuration.Specific {
		delete(v, "__model_type__")
		steps[k] = v
	}
	return map[string]any{"nodes": df.DAG.Nodes, "edges": df.DAG.Edges}, cf.Configuration.Shared, steps
}

// brief renders a JSON value for the transcript: long strings, lists and
// deep objects are cut, and meta is reduced to the keys a reader needs.
func brief(v any, depth int) string {
	b, _ := json.Marshal(trim(v, depth, ""))
	return string(b)
}

func trim(v any, depth int, key string) any {
	switch x := v.(type) {
	case string:
		if len(x) > 240 {
			return x[:237] + "..."
		}
		return x
	case []any:
		if depth >= 3 {
			return fmt.Sprintf("[%d items]", len(x))
		}
		out := []any{}
		for i, e := range x {
			if i == 6 && len(x) > 7 {
				out = append(out, fmt.Sprintf("... %d more", len(x)-6))
				break
			}
			out = append(out, trim(e, depth+1, ""))
		}
		return out
	case []string:
		anys := make([]any, len(x))
		for i, s := range x {
			anys[i] = s
		}
		return trim(anys, depth, key)
	case [][]string:
		return fmt.Sprintf("[%d edges]", len(x))
	case map[string]any:
		if depth >= 2 {
			return fmt.Sprintf("{%d keys}", len(x))
		}
		out := map[string]any{}
		for k, e := range x {
			switch {
			case key == "" && depth == 0 && k == "meta":
				m, _ := e.(map[string]any)
				kept := map[string]any{}
				for _, mk := range []string{"recorded", "saved", "stage", "format"} {
					if mv, ok := m[mk]; ok {
						kept[mk] = mv
					}
				}
				if len(kept) > 0 {
					out[k] = trim(kept, depth+1, k)
				}
			case k == "next_steps" || k == "definition" || k == "upload_manifest" || k == "schema":
				out[k] = "(trimmed)"
			default:
				out[k] = trim(e, depth+1, k)
			}
		}
		return out
	}
	return v
}

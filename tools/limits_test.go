package tools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// memoryBudget is the peak resident memory any call may reach, whatever
// input its schema accepts (the process's own start-up included).
const memoryBudget = 256 << 20

// worstCase is the largest input of a tool whose cost grows with its input.
type worstCase struct {
	name, tool string
	// args builds the arguments in dir (the call's project root).
	args func(t testing.TB, dir string) map[string]any
}

// bigDAG is an inline DAG at dag.MaxNodes nodes (a chain, names of real
// step types so every node gets a config class).
func bigDAG(n int) map[string]any {
	types := []string{"XGBoostTraining", "TabularPreprocessing", "DummyDataLoading", "XGBoostModelEval", "Package", "Registration"}
	nodes := make([]string, n)
	edges := make([][]string, 0, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("%s_%05d", types[i%len(types)], i)
		if i > 0 {
			edges = append(edges, []string{nodes[i-1], nodes[i]})
		}
	}
	return map[string]any{"nodes": nodes, "edges": edges}
}

func dagArgs(tool string) worstCase {
	return worstCase{name: tool + "/max-dag", tool: tool, args: func(testing.TB, string) map[string]any {
		return map[string]any{"dag": bigDAG(dag.MaxNodes)}
	}}
}

// synthetic writes the largest compilable project: dag.MaxNodes nodes.
func synthetic(t testing.TB, dir string) (string, string) {
	tt, ok := t.(*testing.T)
	if !ok {
		t.Fatal("synthetic needs a *testing.T")
	}
	n := dag.MaxNodes
	if v, err := strconv.Atoi(os.Getenv("CURSUS_WORST_NODES")); err == nil && v > 0 {
		n = v // to measure how a cost grows
	}
	d, c := writeSyntheticProject(tt, n)
	for _, p := range []string{d, c} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "dag.json"), filepath.Join(dir, "config.json")
}

// densify adds edges to the DAG file, each from a node to a later one, up
// to dag.MaxEdges.
func densify(t testing.TB, dagFile string) {
	b, err := os.ReadFile(dagFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string `json:"version"`
		DAG     struct {
			Nodes []string    `json:"nodes"`
			Edges [][2]string `json:"edges"`
		} `json:"dag"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	have := map[[2]string]bool{}
	for _, e := range doc.DAG.Edges {
		have[e] = true
	}
	n := doc.DAG.Nodes
	for gap := 1; len(doc.DAG.Edges) < dag.MaxEdges && gap < len(n); gap++ {
		for i := 0; i+gap < len(n) && len(doc.DAG.Edges) < dag.MaxEdges; i++ {
			if e := [2]string{n[i], n[i+gap]}; !have[e] {
				have[e] = true
				doc.DAG.Edges = append(doc.DAG.Edges, e)
			}
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dagFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compileArgs(tool string) worstCase {
	return worstCase{name: tool + "/max-project", tool: tool, args: func(t testing.TB, dir string) map[string]any {
		d, c := synthetic(t, dir)
		return map[string]any{"dag_file": d, "config_file": c}
	}}
}

// worstScript is a script at the script size cap, every line something the
// analyzer reports (a container path, an environment read, a flag).
func worstScript(t testing.TB, dir string) string {
	var b strings.Builder
	b.WriteString("import os, argparse\np = argparse.ArgumentParser()\n")
	for i := 0; b.Len() < 1<<20-200; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "a%d = \"/opt/ml/processing/input/d%d\"\n", i, i)
		case 1:
			fmt.Fprintf(&b, "e%d = os.environ[\"V%d\"]\n", i, i)
		default:
			fmt.Fprintf(&b, "p.add_argument(\"--f%d\")\n", i)
		}
	}
	p := filepath.Join(dir, "worst.py")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var worstCases = []worstCase{
	{name: "catalog.search/max-query", tool: "catalog.search", args: func(testing.TB, string) map[string]any {
		return map[string]any{"query": strings.Repeat("xgb train ", 100)}
	}},
	{name: "pipeline_catalog.recommend/max-need", tool: "pipeline_catalog.recommend", args: func(testing.TB, string) map[string]any {
		return map[string]any{"need": strings.Repeat("calibration registration ", 80)}
	}},
	{name: "validate.deps_explain/max-names", tool: "validate.deps_explain", args: func(testing.TB, string) map[string]any {
		w := strings.Repeat("model data ", 23)
		return map[string]any{"name1": w, "name2": w + "x"}
	}},
	dagArgs("config.requirements"),
	dagArgs("config.template"),
	dagArgs("dag.validate_integrity"),
	dagArgs("dag.render"),
	dagArgs("dag.resolve_plan"),
	dagArgs("execdoc.template"),
	dagArgs("validate.deps_resolve"),
	{name: "config.merge_save/max-dag", tool: "config.merge_save", args: func(testing.TB, string) map[string]any {
		return map[string]any{"dag": bigDAG(dag.MaxNodes), "base": map[string]any{}, "output_file": "config.json"}
	}},
	{name: "dag.serialize/max-dag", tool: "dag.serialize", args: func(testing.TB, string) map[string]any {
		return map[string]any{"dag": bigDAG(dag.MaxNodes), "output_file": "dag.json"}
	}},
	compileArgs("compile.validate"),
	compileArgs("compile.definition"),
	compileArgs("compile.preview"),
	compileArgs("compile.with_report"),
	{name: "compile.validate/max-project-max-edges", tool: "compile.validate", args: func(t testing.TB, dir string) map[string]any {
		d, c := synthetic(t, dir)
		densify(t, d)
		return map[string]any{"dag_file": d, "config_file": c}
	}},
	{name: "validate.deps_resolve/max-edges", tool: "validate.deps_resolve", args: func(t testing.TB, dir string) map[string]any {
		d, _ := synthetic(t, dir)
		densify(t, d)
		return map[string]any{"dag_file": d}
	}},
	{name: "config.load/max-project", tool: "config.load", args: func(t testing.TB, dir string) map[string]any {
		_, c := synthetic(t, dir)
		return map[string]any{"config_file": c}
	}},
	{name: "dag.deserialize/max-dag", tool: "dag.deserialize", args: func(t testing.TB, dir string) map[string]any {
		d, _ := synthetic(t, dir)
		return map[string]any{"dag_file": d}
	}},
	{name: "author.check_script/max-script", tool: "author.check_script", args: func(t testing.TB, dir string) map[string]any {
		return map[string]any{"step_name": "TabularPreprocessing", "script_path": worstScript(t, dir)}
	}},
}

// TestWorstCaseChild runs one worst case (named by CURSUS_WORST_CASE) and
// prints the process's peak resident memory; TestWorstCasesStayUnderBudget
// runs it in a fresh process per case.
func TestWorstCaseChild(t *testing.T) {
	name := os.Getenv("CURSUS_WORST_CASE")
	if name == "" {
		t.Skip("run by TestWorstCasesStayUnderBudget")
	}
	for _, c := range worstCases {
		if c.name != name {
			continue
		}
		dir := t.TempDir()
		ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: dir, AllowDestructive: true})
		args, err := json.Marshal(c.args(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res := cursus.Registry().Call(ctx, c.tool, json.RawMessage(args))
		elapsed := time.Since(start)
		out, _ := json.Marshal(res)
		fmt.Printf("WORST %s peak_kib=%d args=%d answer=%d ok=%v code=%s seconds=%.2f\n", c.name, peakKiB(), len(args), len(out), res.OK, res.Code, elapsed.Seconds())
		if !res.OK && res.Code == envelope.CodeInternalError {
			t.Errorf("%s: %s", c.name, res.Error)
		}
		return
	}
	t.Fatalf("no worst case %q", name)
}

// TestWorstCasesStayUnderBudget: the largest input each growing tool
// accepts keeps the process under memoryBudget (measured as the peak
// resident set of a fresh process running only that call).
func TestWorstCasesStayUnderBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every worst case in its own process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the peak resident set is read from /proc/self/status (Linux)")
	}
	if raceEnabled {
		// The race detector multiplies memory (5-10x) and time, so the
		// budget is not what it measures; BenchmarkWorstCasePeakRSS and a
		// plain go test measure it.
		t.Skip("the race detector inflates the peak resident set: run go test without -race (or BenchmarkWorstCasePeakRSS) to check the memory budget")
	}
	for _, c := range worstCases {
		t.Run(c.name, func(t *testing.T) {
			peak, line := runWorstCase(t, c.name)
			t.Log(line)
			if peak > memoryBudget {
				t.Errorf("%s peaked at %d MiB, over the %d MiB budget", c.name, peak>>20, memoryBudget>>20)
			}
		})
	}
}

// BenchmarkWorstCasePeakRSS reports, per growing tool, the peak resident
// memory of its largest accepted input (peak-MiB, from a fresh process).
func BenchmarkWorstCasePeakRSS(b *testing.B) {
	for _, c := range worstCases {
		b.Run(c.name, func(b *testing.B) {
			var peak int64
			for b.Loop() {
				peak, _ = runWorstCase(b, c.name)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

func runWorstCase(t testing.TB, name string) (int64, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorstCaseChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CURSUS_WORST_CASE="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "WORST ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "peak_kib="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if n <= 0 {
					// peakKiB found no VmHWM: a budget check of it would pass whatever the peak.
					t.Fatalf("%s measured no peak resident set:\n%s", name, line)
				}
				return n << 10, line
			}
		}
	}
	t.Fatalf("%s printed no measurement:\n%s", name, out)
	return 0, ""
}

// peakKiB is the process's peak resident set (VmHWM), in KiB.
func peakKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

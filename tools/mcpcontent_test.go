package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// TestResources: every listed resource reads; a step resource carries
// the interface, the config fields and the script; a template URI reads a
// variant; a project file reads under the root only.
func TestResources(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := cursus.Registry()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	fsys, err := safefs.New(safefs.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx = safefs.WithFS(ctx, fsys)
	list, err := tools.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps, dags := 0, 0
	for _, r := range list {
		text, mime, err := tools.ReadResource(ctx, reg, r.URI)
		if err != nil || text == "" || mime != r.MIMEType {
			t.Errorf("%s: %q %v", r.URI, mime, err)
		}
		switch {
		case strings.HasPrefix(r.URI, tools.StepURIPrefix):
			steps++
		case strings.HasPrefix(r.URI, tools.PipelineURIPrefix):
			dags++
		}
	}
	if steps < 20 || dags < 5 {
		t.Errorf("%d step and %d pipeline resources", steps, dags)
	}
	text, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"XGBoostTraining")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Interface", "## Config fields", "## Script (", tools.StepURIPrefix + "XGBoostTraining?part=script"} {
		if !strings.Contains(text, want) {
			t.Errorf("XGBoostTraining resource lacks %q", want)
		}
	}
	// Its script is too long to give inline: its pages, each naming the
	// next, give it whole.
	script := readScriptPages(t, ctx, reg, tools.StepURIPrefix+"XGBoostTraining?part=script")
	if !strings.Contains(script, "import ") || strings.Count(script, "\n") < 300 {
		t.Errorf("the script pages give %d lines", strings.Count(script, "\n"))
	}
	// A short one is inline.
	if text, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"Package"); err != nil || !strings.Contains(text, "```python") {
		t.Errorf("Package's script inline: %v", err)
	}
	var bad *envelope.ToolError
	if _, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"XGBoostTraining?part=scripts"); !errors.As(err, &bad) || bad.Code != envelope.CodeInvalidInput {
		t.Errorf("an unknown part: %v", err)
	}
	if _, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"XGBoostTraining?part=script&line=99999"); !errors.As(err, &bad) || bad.Code != envelope.CodeInvalidInput {
		t.Errorf("a line past the end: %v", err)
	}
	if text, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"RiskTableMapping?job_type=validation"); err != nil || !strings.Contains(text, "validation") {
		t.Errorf("job-type variant: %v", err)
	}
	var te *envelope.ToolError
	if _, _, err := tools.ReadResource(ctx, reg, tools.StepURIPrefix+"NoSuchStep"); !errors.As(err, &te) || te.Code != envelope.CodeNotFound {
		t.Errorf("unknown step: %v", err)
	}
	if text, _, err := tools.ReadResource(ctx, reg, tools.ProjectURIPrefix+"notes.txt"); err != nil || text != "hello" {
		t.Errorf("project file: %q %v", text, err)
	}
	if _, _, err := tools.ReadResource(ctx, reg, tools.ProjectURIPrefix+"../outside.txt"); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput {
		t.Errorf("a path out of the root: %v", err)
	}
	if _, _, err := tools.ReadResource(ctx, reg, "cursus://nothing/here"); !cursus.IsNotFound(err) {
		t.Errorf("unknown resource: %v", err)
	}
}

// TestResourceReadHeldToTheAnswerCap: resources/read answered a 16 MiB
// project file as a 100 MB JSON string (each byte an escape); a resource
// is now held to the answer cap of a tool call, measured as the JSON it
// becomes, and a project file that is not text is refused.
func TestResourceReadHeldToTheAnswerCap(t *testing.T) {
	root := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("big.txt", []byte(strings.Repeat("x", 2<<20)))           // 2 MiB of plain text
	write("escapes.txt", []byte(strings.Repeat("<\x01", 300<<10))) // 600 KiB, 3.6 MiB of JSON
	write("fits.txt", []byte(strings.Repeat("<", 100<<10)))        // 100 KiB, 600 KiB of JSON
	write("binary.bin", []byte{0xff, 0xfe, 0x00, 0x80})
	fsys, err := safefs.New(safefs.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	reg := cursus.Registry()
	ctx := safefs.WithFS(registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, MaxResultBytes: 1 << 20}), fsys)
	for _, name := range []string{"big.txt", "escapes.txt"} {
		var te *envelope.ToolError
		_, _, err := tools.ReadResource(ctx, reg, tools.ProjectURIPrefix+name)
		if !errors.As(err, &te) || te.Code != envelope.CodeTooLarge || !strings.Contains(te.Message, "1MiB") {
			t.Errorf("%s over a 1 MiB answer cap: %v", name, err)
		}
	}
	if text, _, err := tools.ReadResource(ctx, reg, tools.ProjectURIPrefix+"fits.txt"); err != nil || len(text) != 100<<10 {
		t.Errorf("fits.txt under the cap: %d bytes, %v", len(text), err)
	}
	var te *envelope.ToolError
	if _, _, err := tools.ReadResource(ctx, reg, tools.ProjectURIPrefix+"binary.bin"); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput || !strings.Contains(te.Message, "not a text file") {
		t.Errorf("a binary file: %v", err)
	}
	// The tool reference is a resource too, held to the same cap.
	small := safefs.WithFS(registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, MaxResultBytes: 4 << 10}), fsys)
	if _, _, err := tools.ReadResource(small, reg, tools.ToolReferenceURI); !errors.As(err, &te) || te.Code != envelope.CodeTooLarge {
		t.Errorf("the tool reference over a 4 KiB cap: %v", err)
	}
}

// TestErrorTextsNameFilesRelativeToTheRoot: a confined caller's error
// showed the absolute project root (workflow.status: "no run "x" under
// /home/me/project/runs"); it names the run directory as the caller
// would, relative to the root.
func TestErrorTextsNameFilesRelativeToTheRoot(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	res := cursus.Registry().Call(ctx, "workflow.status", map[string]any{"run_id": "nope"})
	if res.OK || strings.Contains(res.Error, root) || !strings.Contains(res.Error, "under runs") {
		t.Errorf("workflow.status of an unknown run: %q", res.Error)
	}
}

// readScriptPages reads a step's script resource page by page (each page
// names the next as "The rest: <uri>"), checks each is within 16 KB as
// JSON and that the pages follow on line for line, and returns the script.
func readScriptPages(t *testing.T, ctx context.Context, reg *registry.Registry, uri string) string {
	t.Helper()
	var out []string
	for pages := 0; uri != ""; pages++ {
		if pages > 20 {
			t.Fatal("more than 20 pages")
		}
		text, _, err := tools.ReadResource(ctx, reg, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if b, _ := json.Marshal(text); len(b) > 16<<10 {
			t.Errorf("%s: %d bytes", uri, len(b))
		}
		head, body, ok := strings.Cut(text, "```python\n")
		if !ok {
			t.Fatalf("%s: no code block:\n%.200s", uri, text)
		}
		var from, to, total int
		if _, err := fmt.Sscanf(head[strings.Index(head, "lines "):], "lines %d-%d of %d", &from, &to, &total); err != nil || from != len(out)+1 {
			t.Fatalf("%s: %q (%v), want lines from %d", uri, head, err, len(out)+1)
		}
		code, rest, _ := strings.Cut(body, "\n```\n")
		out = append(out, strings.Split(code, "\n")...)
		if len(out) != to {
			t.Fatalf("%s: %d lines so far, the page says to %d", uri, len(out), to)
		}
		uri = ""
		if _, next, ok := strings.Cut(rest, "The rest: "); ok {
			uri = strings.TrimSpace(next)
		} else if to != total {
			t.Fatalf("page to line %d of %d names no next page", to, total)
		}
	}
	return strings.Join(out, "\n")
}

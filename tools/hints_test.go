package tools_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/testfs"
	"github.com/cursus-go/cursus/registry"
	"github.com/xeipuuv/gojsonschema"
)

// TestExampleAnswers runs every tool's examples (in a scratch project root
// with a copy of the repository's examples/, writes open, code execution
// closed, no deployment) and checks every answer: its next_steps and
// remedy with registry.CheckHints (each names a registered tool and hints
// only its current argument names), and its wire form, as the MCP server
// sends it in structuredContent, against the tool's output schema, and
// its size against answerBudget.
func TestExampleAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	_, ctx := exampleProject(t)
	r := cursus.Registry()
	ran, answered, typed := 0, 0, 0
	var budget budgetCheck
	for _, tl := range r.List("") {
		schema, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(tl.OutputSchemaJSON()))
		if err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		for _, e := range tl.Examples {
			if strings.Contains(e, `"upsert": true`) {
				continue // would deploy
			}
			name, args, _, err := registry.ParseExample(e)
			if err != nil {
				t.Fatal(err)
			}
			res, wire := r.CallJSON(ctx, name, args)
			ran++
			if res.OK {
				answered++
				if tl.Typed() {
					typed++
				}
			}
			for _, p := range r.CheckHints(res) {
				t.Errorf("%s: %s", e, p)
			}
			v, err := schema.Validate(gojsonschema.NewBytesLoader(wire))
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			for _, p := range v.Errors() {
				t.Errorf("%s: the answer breaks the output schema: %s", e, p)
			}
			budget.measure(t, name, e, wire)
		}
	}
	budget.done(t)
	if ran < 60 || answered*4 < ran*3 {
		t.Errorf("%d examples ran, only %d answered ok: the hints of the rest are not checked", ran, answered)
	}
	if typed == 0 {
		t.Error("no typed tool answered an example")
	}
}

// exampleProject is where the tests run the tools' examples: a scratch
// project root holding a copy of the repository's examples/, and the
// context of a call in it (writes and overwrites open, code execution
// closed, no deployment).
func exampleProject(t *testing.T) (root string, ctx context.Context) {
	t.Helper()
	root = t.TempDir()
	testfs.CopyTree(t, "../examples", filepath.Join(root, "examples"))
	return root, registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
}

// TestLiteralHintsNameRealTools reads the tool sources and the engine
// packages that build hints: every `Tool: "<name>"` field of a composite
// literal and every tool a WithRemedy call suggests must be a registered
// tool, so the branches no example reaches are held to the rule too.
func TestLiteralHintsNameRealTools(t *testing.T) {
	r := cursus.Registry()
	fset := token.NewFileSet()
	checked := 0
	for _, dir := range []string{".", "../workflow", "../engine/project", "../engine/author", "../registry"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			check := func(lit ast.Expr) {
				bl, ok := lit.(*ast.BasicLit)
				if !ok || bl.Kind != token.STRING {
					return
				}
				s, _ := strconv.Unquote(bl.Value)
				checked++
				if _, ok := r.Get(s); !ok || strings.Contains(s, "__") {
					t.Errorf("%s: %q is not a registered tool's dotted name", fset.Position(bl.Pos()), s)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.KeyValueExpr:
					if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Tool" {
						check(x.Value)
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithRemedy" {
						for _, a := range x.Args[1:] {
							check(a)
						}
					}
				}
				return true
			})
		}
	}
	if checked < 100 {
		t.Errorf("only %d literals checked", checked)
	}
}

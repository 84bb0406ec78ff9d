package compiler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

// relaxedRejects finds the condition forms the relaxed schema rejects: the
// SDK's In (QueryValue, Values) and Not.
var relaxedRejects = regexp.MustCompile(`"QueryValue":|"Type":\s*"Not"`)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const examplesDir = "../../examples"

// exampleDirs lists the example pipelines: folders of examples/ with a
// dag.json and a config.json.
func exampleDirs(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(examplesDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if fileExists(filepath.Join(d, "dag.json")) && fileExists(filepath.Join(d, "config.json")) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func compileExample(t testing.TB, dir string) *compiler.Result {
	t.Helper()
	d, _, err := dag.ReadFile(nil, filepath.Join(dir, "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: filepath.Join(dir, "config.json")})
	if err != nil {
		t.Fatalf("compile %s: %v", dir, err)
	}
	return res
}

// checkDefinition runs every structural check a compiled definition must
// pass: both schemas, the SDK request types with required-field
// validation, legal unique step names, references to existing steps and
// declared parameters only, DependsOn naming earlier steps, the API size
// limit.
// flatStep is a step as checkDefinition reads it, a Condition's branches
// included.
type flatStep struct {
	Name      catalog.SageMakerStepName
	DependsOn []catalog.SageMakerStepName
	Arguments struct {
		IfSteps, ElseSteps []flatStep
	}
}

// flattenSteps lists steps in the order SageMaker may run them: a
// Condition's IfSteps and ElseSteps after it.
func flattenSteps(steps []flatStep) []flatStep {
	var out []flatStep
	for _, s := range steps {
		out = append(out, s)
		out = append(out, flattenSteps(s.Arguments.IfSteps)...)
		out = append(out, flattenSteps(s.Arguments.ElseSteps)...)
	}
	return out
}

func checkDefinition(t *testing.T, name string, def []byte) {
	t.Helper()
	if relaxedRejects.Match(def) {
		// The relaxed schema keeps the official In and Not condition forms,
		// which the SDK does not write: the strict schema checks them.
		compilertest.CheckSchemas(t, def, compilertest.Strict)
	} else {
		compilertest.CheckSchemas(t, def)
	}
	for _, err := range compilertest.CheckSDK(def) {
		t.Errorf("%s: %v", name, err)
	}
	if len(def) > 1<<20 {
		t.Errorf("%s: definition is %d bytes; CreatePipeline allows 1 MiB", name, len(def))
	}
	var d struct {
		Parameters []struct{ Name string }
		Steps      []flatStep
	}
	if err := json.Unmarshal(def, &d); err != nil {
		t.Fatal(err)
	}
	params := map[string]bool{}
	for _, p := range d.Parameters {
		params[p.Name] = true
	}
	seen := map[catalog.SageMakerStepName]int{}
	for i, s := range flattenSteps(d.Steps) {
		if !compiler.IsValidStepName(s.Name) {
			t.Errorf("%s: step name %q is not legal", name, s.Name)
		}
		if _, dup := seen[s.Name]; dup {
			t.Errorf("%s: step name %q is used twice", name, s.Name)
		}
		seen[s.Name] = i
		for _, dep := range s.DependsOn {
			if j, ok := seen[dep]; !ok || j >= i {
				t.Errorf("%s: step %s depends on %s, which is not an earlier step", name, s.Name, dep)
			}
		}
	}
	// every Get names a declared parameter, an execution variable or a step
	for _, m := range getRE.FindAllStringSubmatch(string(def), -1) {
		ref := m[1]
		switch {
		case strings.HasPrefix(ref, "Parameters."):
			if !params[strings.TrimPrefix(ref, "Parameters.")] {
				t.Errorf("%s: reference %s names an undeclared parameter", name, ref)
			}
		case strings.HasPrefix(ref, "Execution."):
		case strings.HasPrefix(ref, "Steps."):
			step := strings.SplitN(strings.TrimPrefix(ref, "Steps."), ".", 2)[0]
			if _, ok := seen[catalog.SageMakerStepName(step)]; !ok {
				t.Errorf("%s: reference %s names no step", name, ref)
			}
			if strings.Contains(ref, ".properties.") {
				t.Errorf("%s: reference %s keeps the properties. segment", name, ref)
			}
		default:
			t.Errorf("%s: unknown reference %s", name, ref)
		}
	}
}

var getRE = regexp.MustCompile(`"Get":\s*"([^"]*)"`)

// relManifest rewrites the manifest's local paths relative to the
// repository, so golden files do not depend on where the tree is.
func relManifest(t testing.TB, m compiler.Manifest) compiler.Manifest {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := append(compiler.Manifest(nil), m...)
	for i := range out {
		if strings.HasPrefix(out[i].LocalPath, "config:") {
			continue
		}
		abs, err := filepath.Abs(out[i].LocalPath)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			t.Fatal(err)
		}
		out[i].LocalPath = filepath.ToSlash(rel)
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; review the change and run go test -update\n%s", name, firstDiff(want, got))
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  golden: " + x + "\n  got:    " + y
		}
	}
	return ""
}

// TestExamples compiles every example pipeline: the definition and the
// upload manifest match their golden files, the definition passes every
// structural check, and compiling twice gives identical bytes.
func TestExamples(t *testing.T) {
	dirs := exampleDirs(t)
	if len(dirs) < 2 {
		t.Fatalf("want the example pipelines under %s, found %v", examplesDir, dirs)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			res := compileExample(t, dir)
			def, err := res.Definition.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			checkDefinition(t, name, def)
			golden(t, name+".definition.json", def)
			m, err := json.MarshalIndent(relManifest(t, res.Manifest), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".manifest.json", append(m, '\n'))

			again, err := compileExample(t, dir).Definition.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(def, again) {
				t.Error("two compiles of the same input differ")
			}
			compact, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if json.Unmarshal(compact, &a) != nil || json.Unmarshal(def, &b) != nil {
				t.Fatal("definition is not JSON")
			}
			if bytes.Contains(compact, []byte("\n")) {
				t.Error("compact JSON has newlines")
			}
		})
	}
}

// TestPipelineCatalogDAGs compiles every DAG of the shared pipeline
// catalog (engine/pipelines) with a config made the way a user makes one
// (the template of its nodes, every essential field filled) and holds each
// definition to the same checks as the examples: both schemas, the SDK
// request types, references, and deployable (checkDeployable).
func TestPipelineCatalogDAGs(t *testing.T) {
	cat, err := pipelines.Default()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	if cat.Len() == 0 {
		t.Fatal("the pipeline catalog is empty")
	}
	for _, e := range cat.Entries() {
		t.Run(e.ID, func(t *testing.T) {
			set, err := pipelinestest.Configs(schema, e.Nodes)
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			res, err := compiler.Compile(context.Background(), compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			b, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			checkDefinition(t, e.ID, b)
			// No code of the project's own: the catalog ships every script
			// the DAG runs.
			checkDeployable(t, res)
			if e.HasFeature("quality_gate") { // registration runs only on the gate's pass branch
				var cond *compiler.ConditionArguments
				for _, s := range res.Definition.Steps {
					if c, isCond := s.Arguments.(*compiler.ConditionArguments); isCond {
						cond = c
					}
				}
				ok := cond != nil
				var inIf []catalog.SageMakerStepName
				if ok {
					for _, s := range cond.IfSteps {
						inIf = append(inIf, s.Name)
					}
				}
				if !ok || !slices.ContainsFunc(inIf, func(n catalog.SageMakerStepName) bool { return strings.HasPrefix(string(n), "Registration") }) ||
					len(cond.ElseSteps) != 1 || cond.ElseSteps[0].Type != compiler.StepTypeFail {
					t.Errorf("the gate's branches: if %v", inIf)
				}
			}
		})
	}
}

// ecrRegion finds the region of every ECR image a definition names.
var ecrRegion = regexp.MustCompile(`[0-9]{12}\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com`)

// TestCatalogImagesInRegion compiles every DAG of the pipeline catalog in
// the regions a user names (the codes EU and FE and AWS region names):
// SageMaker pulls no image across regions, so every image of the
// definition, the models' repack jobs included, is in the pipeline's
// region. An image_uri the user gives is in it too.
func TestCatalogImagesInRegion(t *testing.T) {
	cat, err := pipelines.Default()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]string{"EU": "eu-west-1", "FE": "us-west-2", "us-west-2": "us-west-2", "eu-central-1": "eu-central-1", "ap-southeast-2": "ap-southeast-2"}
	for _, e := range cat.Entries() {
		for code, region := range regions {
			t.Run(e.ID+"/"+code, func(t *testing.T) {
				nodes := make([]catalog.NodeName, len(e.Nodes))
				for i, n := range e.Nodes {
					nodes[i] = catalog.NodeName(n)
				}
				f, err := pipelinestest.Fill(schema, nodes)
				if err != nil {
					t.Fatal(err)
				}
				f.Base["region"] = code
				for _, vals := range f.Steps {
					if img, ok := vals["image_uri"].(string); ok {
						vals["image_uri"] = strings.Replace(img, ".us-east-1.", "."+region+".", 1)
					}
				}
				set, err := schema.Build(config.BuildInput{Nodes: nodes, Base: f.Base, Steps: f.Steps})
				if err != nil {
					t.Fatal(err)
				}
				res, err := compiler.Compile(context.Background(), compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
				if err != nil {
					t.Fatalf("compile: %v", err)
				}
				b, err := res.JSON()
				if err != nil {
					t.Fatal(err)
				}
				found := map[string]int{}
				for _, m := range ecrRegion.FindAllStringSubmatch(string(b), -1) {
					found[m[1]]++
				}
				if len(found) != 1 || found[region] == 0 {
					t.Errorf("images by region %v, want every one in %s", found, region)
				}
				if !strings.Contains(string(b), `"SAGEMAKER_REGION":"`+region+`"`) && strings.Contains(string(b), "SAGEMAKER_REGION") {
					t.Errorf("a model's SAGEMAKER_REGION is not %s", region)
				}
			})
		}
	}
}

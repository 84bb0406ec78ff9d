package cursus_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The layers, bottom up, and what each may import of this module (its
// non-test imports; a test may reach further down or across, e.g. a tools
// test builds the default registry with the workflow namespace, a workflow
// test calls the tools through the facade, a cli test reads a localrun
// report):
//
//	engine/...          the engine: internal/* and other engine packages only; it
//	                    returns Go values and typed errors and knows nothing of
//	                    envelopes, the registry, tools or their callers
//	envelope            the tool contract: nothing of the module
//	registry            envelope, internal/*
//	tools               the tool handlers over the engine: engine, envelope,
//	                    registry, internal/*; never the workflows or the stages
//	workflow, stages    above the tools: the workflow namespace's tools (the
//	                    guided stages and the workflow runner), the guided
//	                    Session and the prompts live in workflow, the stage
//	                    definitions and run folders in stages; they call tools by
//	                    name through the registry (workflow.RegistryCaller) and
//	                    read envelopes; they import registry, envelope, engine,
//	                    internal/* (workflow also stages) and never a tool, the
//	                    facade or a front end
//	cursus (the facade) everything below; its DefaultNamespaces is the one list
//	                    of the default registry (the tools' namespaces, then the
//	                    workflow namespace)
//	exporters           registry, envelope, internal/*
//	cli, server         the front ends: the facade, envelope, registry, exporters,
//	                    internal/* (and cli the server); never the engine, the tools,
//	                    the workflows or the stages, which they reach through the
//	                    facade
//	internal/...        helpers every layer may use: other internal/* packages only
//	examples/...        programs a user could write: the facade, envelope, registry,
//	                    exporters and tools (for its typed data)
//
// A test-support package (one whose name ends in "test": compilertest,
// scripttest, awstest, ...) follows its layer's rule, and besides never
// imports a package that depends on the package it sits under: it supports
// that package's tests and those above, so what it needs sits below it.
//
// Besides, engine/compiler must not link the SageMaker client of the AWS SDK
// (its image tables, names and manifests live in the pure engine/sagemaker;
// the upsert client is engine/sagemaker/smclient).
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	mod := pkgs["github.com/cursus-go/cursus"].ImportPath
	if mod == "" {
		t.Fatal("go list did not list the module's root package")
	}
	layer := func(path string) string {
		rel, ok := strings.CutPrefix(path, mod+"/")
		if path == mod {
			return "cursus"
		}
		if !ok {
			return "" // the standard library or another module
		}
		top, _, _ := strings.Cut(rel, "/")
		return top
	}
	allowed := map[string][]string{
		"engine":    {"engine", "internal"},
		"envelope":  {},
		"registry":  {"envelope", "internal"},
		"tools":     {"engine", "envelope", "registry", "internal"},
		"workflow":  {"engine", "envelope", "registry", "internal", "stages"},
		"stages":    {"engine", "envelope", "registry", "internal"},
		"exporters": {"envelope", "registry", "internal"},
		"cursus":    {"engine", "envelope", "registry", "internal", "tools", "workflow", "stages", "exporters"},
		"server":    {"cursus", "envelope", "registry", "exporters", "internal"},
		"cli":       {"cursus", "envelope", "registry", "exporters", "internal", "server"},
		"internal":  {},
		"examples":  {"cursus", "envelope", "registry", "exporters", "tools"},
	}
	checked := map[string]int{}
	for _, p := range sortedPackages(pkgs) {
		from := layer(p.ImportPath)
		ok, ruled := allowed[from]
		if !ruled {
			t.Errorf("%s is in no layer: add its top directory to the rules", p.ImportPath)
			continue
		}
		checked[from]++
		for _, imp := range p.Imports {
			to := layer(imp)
			if to == "" || to == from {
				continue
			}
			if !slices.Contains(ok, to) {
				t.Errorf("%s imports %s: the %s layer may import only %v of this module", p.ImportPath, imp, from, ok)
			}
		}
	}
	for l := range allowed {
		if checked[l] == 0 {
			t.Errorf("no package of the %s layer was listed: the rule checks nothing", l)
		}
	}

	supports := 0
	for _, p := range sortedPackages(pkgs) {
		dir, name := path.Split(p.ImportPath)
		parent := strings.TrimSuffix(dir, "/")
		if !strings.HasSuffix(name, "test") || pkgs[parent].ImportPath == "" {
			continue
		}
		supports++
		for _, imp := range p.Imports {
			if imp != parent && slices.Contains(pkgs[imp].Deps, parent) {
				t.Errorf("%s imports %s, which depends on %s: a test-support package imports only what sits below the package it supports", p.ImportPath, imp, parent)
			}
		}
	}
	if supports == 0 {
		t.Error("no test-support package was found: the rule checks nothing")
	}

	compiler, ok := pkgs[mod+"/engine/compiler"]
	if !ok {
		t.Fatal("engine/compiler not listed")
	}
	for _, d := range compiler.Deps {
		if strings.HasPrefix(d, "github.com/aws/aws-sdk-go-v2/service/sagemaker") {
			t.Errorf("engine/compiler links %s: the SageMaker client belongs to engine/sagemaker/smclient", d)
		}
	}
	if smclient, ok := pkgs[mod+"/engine/sagemaker/smclient"]; !ok || !slices.Contains(smclient.Deps, "github.com/aws/aws-sdk-go-v2/service/sagemaker") {
		t.Error("engine/sagemaker/smclient does not link the SageMaker client: the compiler check above would pass vacuously")
	}
}

// listedPackage is what go list -json says of a package.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages lists the module's packages with go list, by import path.
func listPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to check the import rules: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-json=ImportPath,Imports,Deps", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func sortedPackages(m map[string]listedPackage) []listedPackage {
	out := make([]listedPackage, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ImportPath < out[j].ImportPath })
	return out
}

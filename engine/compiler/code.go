package compiler

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"github.com/cursus-go/cursus/engine/catalog"
)

// This file resolves the code a step runs. Each piece of code is looked up
// in order: the project's own file or directory (source_dir /
// effective_source_dir plus the entry point, or a config field's path),
// then the catalog's (catalog.Step.LookupCode: the scripts/ directory
// beside a workspace step's file, then the embedded catalog.Code()), else
// it is recorded missing (Artifact.Missing) under code/missing/<step>/.

// isFile reports whether p is an existing regular file, as the compile's
// file-access layer sees it.
// One compile looks at each path once (see buildEnv.isFiles).
func (e *buildEnv) isFile(p string) bool {
	if is, ok := e.isFiles[p]; ok {
		return is
	}
	is := e.fs.IsFile(p)
	if e.isFiles == nil {
		e.isFiles = map[string]bool{}
	}
	e.isFiles[p] = is
	return is
}

// bundle is catalog.Bundle, worked out once a compile for each embedded
// script (its embedded files do not change).
func (e *buildEnv) bundle(c catalog.StepCode) catalog.StepCode {
	if !c.Embedded() || c.Dir {
		return catalog.Bundle(c)
	}
	if b, ok := e.bundles[c.Path]; ok {
		return b
	}
	b := catalog.Bundle(c)
	if e.bundles == nil {
		e.bundles = map[string]catalog.StepCode{}
	}
	e.bundles[c.Path] = b
	return b
}

// exists reports whether p exists, as the compile's file-access layer sees
// it.
func (e *buildEnv) exists(p string) bool { return e.fs.Exists(p) }

// catalogScript returns the catalog's script named entry for the step.
func catalogScript(p *nodePlan, entry string) (catalog.StepCode, bool) {
	c, ok := p.Step.LookupCode(entry)
	if !ok || c.Dir {
		return catalog.StepCode{}, false
	}
	return c, true
}

// inferenceFramework is the framework whose serving code the step uses
// (catalog.Step.ServingFramework over the node's values).
func (p *nodePlan) inferenceFramework() (string, error) {
	var bad error
	fw := p.Step.ServingFramework(func(field string) string {
		v, err := p.Values.str(field, "")
		if err != nil && bad == nil {
			bad = err
		}
		return v
	})
	return fw, bad
}

// processingCode resolves a processing step's code: the code input's URI,
// the entry point's path inside the code, and whether the code is an
// archive. A single script is uploaded as it is and runs from the code
// input (the SDK's ScriptProcessor); code of several files (the project's
// source directory when the contract ships it, or the catalog's script
// with the steplib modules it imports) is packed into one sourcedir.tar.gz
// that a launcher unpacks (the SDK's FrameworkProcessor), so the job sees
// exactly that code and never a stray object of its S3 prefix.
func (e *buildEnv) processingCode(p *nodePlan, dir, entry string) (uri, program string, archive bool, err error) {
	local := filepath.Join(dir, filepath.FromSlash(entry))
	if p.Step.Contract.SourceDir {
		if !e.isFile(local) {
			if c, ok := catalogScript(p, entry); ok {
				c, err := e.withRequirements(p, e.bundle(c), false)
				if err != nil {
					return "", "", false, err
				}
				uri, _, err := e.artifacts.addCode(p.Name, KindSourceTarball, c, "sourcedir.tar.gz")
				return uri, c.Path, true, err
			}
		}
		uri, a, err := e.artifacts.add(p.Name, KindSourceTarball, dir, "sourcedir.tar.gz")
		if err != nil {
			return "", "", false, err
		}
		switch {
		case a.Missing:
			e.warnf("step %s: source directory %s does not exist; the definition refers to %s, and upload will refuse until it exists", p.Name, dir, uri)
		case !slices.Contains(a.Files, entry):
			e.warnf("step %s: entry point %s is not in source directory %s", p.Name, entry, dir)
		}
		return uri, entry, true, nil
	}
	if !e.isFile(local) {
		if c, ok := catalogScript(p, entry); ok {
			c, err := e.withRequirements(p, e.bundle(c), false)
			if err != nil {
				return "", "", false, err
			}
			if c.Dir { // the script and the helpers it imports (and the requirements it installs)
				uri, _, err := e.artifacts.addCode(p.Name, KindSourceTarball, c, "sourcedir.tar.gz")
				return uri, c.Path, true, err
			}
			uri, _, err := e.artifacts.addCode(p.Name, KindFile, c, path.Base(entry))
			return uri, path.Base(entry), false, err
		}
	}
	uri, a, err := e.artifacts.add(p.Name, KindFile, local, path.Base(entry))
	if err != nil {
		return "", "", false, err
	}
	if a.Missing {
		e.warnf("step %s: script %s does not exist; the definition refers to %s, and upload will refuse until it exists", p.Name, a.LocalPath, uri)
	}
	return uri, path.Base(entry), false, nil
}

// processingLauncher is the catalog's launcher of a processing job whose
// code is an archive (runproc.py) and the container folder it is mounted
// in.
const (
	processingLauncher    = "runproc.py"
	processingLauncherDir = "/opt/ml/processing/input/entrypoint"
)

// launcher records the launcher of archived processing code for step p and
// returns its URI.
func (e *buildEnv) launcher(p *nodePlan) (string, error) {
	c, ok := catalog.EmbeddedCode(processingLauncher)
	if !ok {
		return "", fmt.Errorf("the catalog ships no %s", processingLauncher)
	}
	uri, _, err := e.artifacts.addCode(p.Name, KindFile, c, processingLauncher)
	return uri, err
}

// sourceTarball records a sourcedir.tar.gz of a step's code and returns
// its URI and the program to run from it: the project's source directory
// when useDir and it holds the entry point, or the project's script alone;
// else the catalog's code (a CreateModel step's serving directory,
// inference/<framework>, or the script alone); else what the project
// names, recorded missing when absent.
func (e *buildEnv) sourceTarball(p *nodePlan, dir, entry string, useDir bool) (string, string, error) {
	local := filepath.Join(dir, filepath.FromSlash(entry))
	if !e.isFile(local) {
		if c, program, ok, err := e.catalogTarballCode(p, entry); err != nil {
			return "", "", err
		} else if ok {
			uri, _, err := e.artifacts.addCode(p.Name, KindSourceTarball, c, "sourcedir.tar.gz")
			return uri, program, err
		}
	}
	program := entry
	if !useDir {
		program = path.Base(entry)
		dir = local
	}
	uri, a, err := e.artifacts.add(p.Name, KindSourceTarball, dir, "sourcedir.tar.gz")
	if err != nil {
		return "", "", err
	}
	if a.Missing {
		e.warnf("step %s: code %s does not exist; the definition refers to %s, and upload will refuse until the code exists", p.Name, dir, uri)
	} else if useDir && !slices.Contains(a.Files, entry) {
		e.warnf("step %s: entry point %s is not in source directory %s", p.Name, entry, dir)
	}
	return uri, program, nil
}

// catalogTarballCode finds the catalog's code to pack for a step: serving
// code for a model step (or any step whose entry point is inference.py),
// else the entry point's script.
func (e *buildEnv) catalogTarballCode(p *nodePlan, entry string) (catalog.StepCode, string, bool, error) {
	if p.Step.Verb == catalog.VerbCreateModel || p.Step.Verb == catalog.VerbRegisterModel || path.Base(entry) == catalog.InferenceEntryPoint {
		fw, err := p.inferenceFramework()
		if err != nil {
			return catalog.StepCode{}, "", false, err
		}
		if c, ok := p.Step.InferenceCode(fw); ok && c.Has(entry) {
			c, err := e.withRequirements(p, c, true)
			return c, entry, err == nil, err
		}
	}
	if c, ok := catalogScript(p, entry); ok {
		c, err := e.withRequirements(p, e.bundle(c), false)
		return c, path.Base(entry), err == nil, err
	}
	return catalog.StepCode{}, "", false, nil
}

// requirementsFile returns the pip requirements file (a path of the code
// root) the catalog's code of step p installs: the step's own
// contract.requirements_file, else, for serving code (serving), that of
// the step that made the model p serves or packages (the provider of its
// model_artifacts input: a LightGBM trainer's requirements go into its
// model's code/), with the node that declares it.
func (e *buildEnv) requirementsFile(p *nodePlan, serving bool) (string, *nodePlan) {
	if f := p.Step.Contract.RequirementsFile; f != "" || !serving {
		return f, p
	}
	for _, port := range p.Step.Inputs {
		if port.Type != catalog.DepModelArtifacts {
			continue
		}
		if b, ok := p.Bound[port.LogicalName]; ok && b.Provider != "" {
			if np := e.nodes[b.Provider]; np != nil && np.Step.Contract.RequirementsFile != "" {
				return np.Step.Contract.RequirementsFile, np
			}
		}
	}
	return "", p
}

// withRequirements adds the requirements file of step p's code (see
// requirementsFile) to the catalog's code c as requirements.txt, which the
// container installs before the code runs (catalog.WithRequirements).
func (e *buildEnv) withRequirements(p *nodePlan, c catalog.StepCode, serving bool) (catalog.StepCode, error) {
	f, from := e.requirementsFile(p, serving)
	if f == "" {
		return c, nil
	}
	out, ok := catalog.WithRequirements(c, f)
	if !ok {
		return c, fmt.Errorf("step type %s: contract.requirements_file %s is no file of the catalog's code", from.Step.Type, f)
	}
	return out, nil
}

// configCode finds the catalog's code for a config field's relative path
// that the project does not have (catalog.Step.LookupConfigCode).
func (e *buildEnv) configCode(p *nodePlan, rel string, dir bool) (catalog.StepCode, bool, error) {
	fw := ""
	if dir {
		var err error
		if fw, err = p.inferenceFramework(); err != nil {
			return catalog.StepCode{}, false, err
		}
	}
	code, ok := p.Step.LookupConfigCode(rel, fw, dir)
	if ok && dir && code.Has(catalog.InferenceEntryPoint) {
		// Serving code a step packages with a model (Package's
		// inference_scripts_dir): with what the model's trainer installs.
		var err error
		if code, err = e.withRequirements(p, code, true); err != nil {
			return code, false, err
		}
	}
	return code, ok, nil
}

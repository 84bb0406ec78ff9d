package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// BlockerCannotInstall: a job's code carries a requirements.txt its
// container must pip-install before the code runs (the training toolkit,
// the processing launcher, the inference toolkits), on the framework image
// looked up for it, but the job runs under network isolation, where pip
// reaches no package index: the container fails before the code starts.
// An image_uri that already has the packages clears it.
const BlockerCannotInstall = "cannot_install"

// installBlockers reports each step whose code installs a requirements.txt
// (an artifact of the compile holding one at its top: the catalog's
// contract.requirements_file, or a project's own) while its job (or, for a
// model, its container) runs under network isolation on an image the
// compiler looked up rather than one the config names. A literal
// EnableNetworkIsolation true counts; a parameter is left to its value at
// run time.
func installBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil || in.Result.Definition == nil {
		return nil
	}
	installs := map[catalog.SageMakerStepName]*Artifact{}
	for i := range in.Result.Manifest {
		a := &in.Result.Manifest[i]
		if !slices.Contains(a.Files, catalog.RequirementsTxt) {
			continue
		}
		for _, s := range a.Steps {
			if _, seen := installs[s]; !seen {
				installs[s] = a
			}
		}
	}
	if len(installs) == 0 {
		return nil
	}
	nodeOf, cfgs := stepNodes(in.Result), in.nodeConfigs()
	var out []Blocker
	for _, s := range in.Result.Definition.AllSteps() {
		a := installs[s.Name]
		if a == nil || !isolated(s.Arguments) {
			continue
		}
		node := nodeOf[s.Name]
		c := cfgs[node]
		if c != nil {
			if img, _ := c.Values["image_uri"].(string); img != "" {
				continue // the config's own image: it is taken to have the packages
			}
		}
		want := "the packages it lists"
		if b, err := a.ReadFile(in.FS, catalog.RequirementsTxt); err == nil {
			if reqs := requirementLines(b); len(reqs) > 0 {
				want = strings.Join(reqs, ", ")
			}
		}
		path := string(node) + ".image_uri"
		if c != nil {
			path = string(c.Key) + ".image_uri"
		}
		out = append(out, Blocker{Kind: BlockerCannotInstall, Node: node, Field: "image_uri", Path: path, Tool: "config.merge_save",
			Problem: fmt.Sprintf("step %s runs under network isolation (enable_network_isolation), but its image %s lacks %s, which the container would pip-install from the code's requirements.txt before the code runs; an isolated container reaches no package index, so the job fails before the code starts",
				s.Name, imageOf(s.Arguments), want),
			Fix: fmt.Sprintf("set image_uri to an ECR image of the pipeline's region that has %s installed (built from the SageMaker PyTorch image), or set enable_network_isolation false", want)})
	}
	return out
}

// isolated reports whether a step's job (or model container) runs under
// network isolation, as a literal true.
func isolated(args any) bool {
	switch a := args.(type) {
	case *ProcessingArguments:
		return a.NetworkConfig != nil && a.NetworkConfig.EnableNetworkIsolation
	case *TrainingArguments:
		return a.EnableNetworkIsolation != nil && *a.EnableNetworkIsolation
	case *ModelArguments:
		return a.EnableNetworkIsolation != nil && *a.EnableNetworkIsolation
	}
	return false
}

// imageOf names a step's image for a message.
func imageOf(args any) string {
	var v any
	switch a := args.(type) {
	case *ProcessingArguments:
		v = a.AppSpecification.ImageUri
	case *TrainingArguments:
		v = a.AlgorithmSpecification.TrainingImage
	case *ModelArguments:
		v = a.PrimaryContainer.Image
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "(a parameter)"
}

// requirementLines are the requirement lines of a requirements file: no
// comments, blank lines or pip options.
func requirementLines(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "-") {
			out = append(out, line)
		}
	}
	return out
}

package execdoc

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
)

// Expected is what a document for a DAG should hold: its SageMaker step
// names and the ones a Generate helper fills (they should not have an
// empty STEP_CONFIG). Use it as Validate's Options.
type Expected struct {
	Steps      []string
	NeedConfig []string
	Warnings   []string
}

// ExpectedSteps returns the step names of a DAG. With configs they are the
// names a compile gives (Registration-NA); without, the names the node
// names give, where a step whose name carries a config value
// (patterns.name_suffix_field) matches a document key "<name>-<value>"
// when doc has one.
func ExpectedSteps(ctx context.Context, d *dag.PipelineDAG, cat *catalog.Catalog, set *config.Set, doc map[string]any) (*Expected, error) {
	if d == nil || d.NodeCount() == 0 {
		return nil, &InputError{Field: "dag", Reason: "the DAG has no nodes"}
	}
	out := &Expected{}
	if set != nil {
		prev, err := compiler.PreviewResolution(ctx, compiler.Input{DAG: d, Configs: set, Catalog: cat})
		if err != nil {
			return nil, err
		}
		for _, n := range d.Nodes() {
			name, ok := prev.NodeStepNames[n]
			if !ok {
				out.Warnings = append(out.Warnings, fmt.Sprintf("node %s does not resolve to a config with a builder; its step is not expected", n))
				continue
			}
			out.Steps = append(out.Steps, string(name)) // the document keys steps by name
			if t, _, ok := cat.ResolveNode(n); ok {
				if st, ok := cat.Step(t); ok && HelperFor(st) != "" {
					out.NeedConfig = append(out.NeedConfig, string(name))
				}
			}
		}
		return out, nil
	}
	tpl, err := TemplateFromDAG(d, cat)
	if err != nil {
		return nil, err
	}
	var keys []string
	if steps, ok := doc[KeyStepConfigs].(map[string]any); ok {
		for k := range steps {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	for _, ts := range tpl.Steps {
		name := ts.StepName
		var st *catalog.Step
		if ts.StepType != "" {
			st, _ = cat.Step(ts.StepType)
		}
		if st != nil && st.Patterns.NameSuffixField != "" {
			for _, k := range keys {
				if strings.HasPrefix(k, name+"-") {
					name = k
					break
				}
			}
		}
		out.Steps = append(out.Steps, name)
		if st != nil && HelperFor(st) != "" {
			out.NeedConfig = append(out.NeedConfig, name)
		}
	}
	for _, w := range tpl.Warnings {
		if !strings.Contains(w, "also carries config field") {
			out.Warnings = append(out.Warnings, w)
		}
	}
	return out, nil
}

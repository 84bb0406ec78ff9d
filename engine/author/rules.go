package author

import (
	"fmt"
	"sort"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/validation"
)

// Topics are the rule topics, in display order.
var Topics = []string{"naming", "packaging", "sdk_carveout", "reuse_class", "closure"}

// UnknownTopicError reports a topic Rules does not know.
type UnknownTopicError struct{ Topic string }

// Error implements error.
func (e *UnknownTopicError) Error() string { return fmt.Sprintf("unknown rules topic %q", e.Topic) }

// Kind implements errkind.Kinded.
func (e *UnknownTopicError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the topics there are.
func (e *UnknownTopicError) Details() map[string]any { return map[string]any{"topics": Topics} }

// Rules returns the rule set of one topic, built from the live catalog,
// compiler and resolver constants.
func Rules(cat *catalog.Catalog, topic string) (map[string]any, error) {
	switch topic {
	case "naming":
		return namingRules(cat), nil
	case "packaging":
		return packagingRules(), nil
	case "sdk_carveout":
		return sdkRules(), nil
	case "reuse_class":
		return reuseRules(cat), nil
	case "closure":
		return closureRules(cat), nil
	}
	return nil, &UnknownTopicError{Topic: topic}
}

func verbs() []string {
	out := make([]string, len(catalog.Verbs))
	for i, v := range catalog.Verbs {
		out[i] = string(v)
	}
	return out
}

func namingRules(cat *catalog.Catalog) map[string]any {
	ex := catalog.StepType("XGBoostModelEval")
	return map[string]any{
		"step_name_pattern":          catalog.StepNamePattern,
		"field_name_pattern":         catalog.FieldNamePattern,
		"port_name_pattern":          catalog.PortNamePattern,
		"env_var_pattern":            catalog.EnvNamePattern,
		"job_type_pattern":           catalog.JobTypePattern,
		"entry_point_pattern":        catalog.ScriptPattern,
		"channel_name_pattern":       catalog.ChannelPattern,
		"output_path_token_pattern":  catalog.PathTokenPattern,
		"property_path_pattern":      catalog.PropertyPathPattern,
		"parameter_ref_pattern":      catalog.ParameterRefPattern,
		"config_class":               "<StepName>Config unless the step file sets config_class",
		"builder_name":               "<StepName>StepBuilder unless the step file sets builder (the builder itself is the compiler's, per verb)",
		"step_file":                  "<StepName>" + catalog.StepFileSuffix + " or <snake_name>" + catalog.StepFileSuffix + "; the file's step: must agree with its name",
		"snake_case":                 map[string]string{string(ex): catalog.CanonicalToSnake(ex), "LightGBMMTTraining": catalog.CanonicalToSnake("LightGBMMTTraining")},
		"compound_acronyms":          append([]string(nil), catalog.CompoundAcronyms...),
		"dag_node":                   "<StepName> or <StepName>_<job_type>; the suffix is the config's job_type",
		"config_key":                 "<StepName>_<job_type> (a step with a job_type field) or <StepName>",
		"sagemaker_step_name":        fmt.Sprintf("<StepName>-<Job_type capitalised>, e.g. %s", catalog.SageMakerName("TabularPreprocessing", "training")),
		"valid_sagemaker_step_types": verbs(),
		"job_type_suffixes":          append([]string(nil), catalog.JobTypeSuffixes...),
		"existing_steps":             len(cat.Names()),
	}
}

func packagingRules() map[string]any {
	roots := map[string]any{}
	kinds := map[string][]string{}
	classes := map[string][]string{}
	for _, v := range catalog.Verbs {
		roots[string(v)] = map[string]any{"inputs": nonNil(catalog.InputRoots(v)), "outputs": nonNil(catalog.OutputRoots(v))}
		kinds[string(v)] = nonNil(catalog.ComputeKinds(v))
		for _, k := range catalog.ComputeKinds(v) {
			if c := catalog.SDKClasses(k); len(c) > 0 {
				classes[k] = c
			}
		}
	}
	return map[string]any{
		"entry_point":              "contract.entry_point is a relative .py file (" + catalog.ScriptPattern + "); it must equal the default of the entry-point config field (processing_entry_point / training_entry_point)",
		"compute_kinds":            kinds,
		"sdk_classes":              classes,
		"image_frameworks":         catalog.ImageFrameworks(),
		"source_dir":               "contract.source_dir: true uploads the whole source directory with the script; a Processing step then needs patterns.step_assembly: step_args",
		"source_dir_resolution":    "relative source directories are resolved from the config file's directory, or its parent when that is named pipeline_config",
		"output_path_token":        "patterns.output_path_token sends every output to <execution prefix>/<token> (one path segment)",
		"include_job_type_in_path": "patterns.include_job_type_in_path is metadata only: the compiler ignores it, and an output destination always carries the node's job type, <prefix>/<lower step type>/<job_type>/<output> (else two nodes of one step type with different job types would write to the same prefix)",
		"container_path_roots":     roots,
		"platform_paths":           append([]string(nil), validation.PlatformPaths...),
		"requirements":             "contract.requirements lists the script's pip requirements (documentation; the image must provide them)",
		"script_convention":        "define main(input_paths, output_paths, environ_vars, job_args) and read container paths, env vars and job arguments exactly as the contract declares",
	}
}

func sdkRules() map[string]any {
	var builders []map[string]any
	for _, b := range compiler.Builders() {
		builders = append(builders, map[string]any{"verb": b.Verb, "builder": b.Name, "definition_type": b.DefinitionType,
			"api_request": b.APIRequest, "assemblies": nonNil(b.Assemblies)})
	}
	return map[string]any{
		"builders":            builders,
		"build_time_requires": []string{"none"},
		"runtime_requires":    "contract.requirements (pip pins the container must satisfy; never imported by the engine)",
		"rule":                "the engine writes the pipeline definition itself: no step may need an SDK to be built. Steps cursus (Python) delegates to internal SDKs (data loading services, model registration) are ordinary verbs here, with their specs as config-sourced inputs and fields",
		"delegation":          "not supported: a step whose verb has no builder is not constructible (author.preflight_step gate builder_routability)",
	}
}

func reuseRules(cat *catalog.Catalog) map[string]any {
	sets := []map[string]any{}
	for _, n := range cat.FieldSetNames() {
		fs, _ := cat.FieldSetInfo(n)
		sets = append(sets, map[string]any{"name": fs.Name, "extends": fs.Extends, "description": fs.Description, "fields": len(fs.Fields)})
	}
	return map[string]any{
		"ladder": []map[string]string{
			{"rung": "reuse", "when": "a catalog step already has the verb, ports and fields you need", "how": "use it in the DAG as <Step>_<job_type>"},
			{"rung": "variant", "when": "only a job type differs (an input becomes required, other aliases or env defaults)", "how": "add variants.<job_type> to the step file"},
			{"rung": "override", "when": "a project needs a changed copy of a catalog step", "how": "put a file with the same step: name in a workspace directory; it replaces the catalog's for that workspace"},
			{"rung": "new", "when": "nothing above fits", "how": "write a new step file in a workspace directory (author.checklist)"},
		},
		"field_sets":         sets,
		"default_field_sets": "a step with no field_sets extends the set of its verb (processing, training, tuning, model, base)",
		"generic_sources":    catalog.GenericSourceNames(),
	}
}

func closureRules(cat *catalog.Catalog) map[string]any {
	return map[string]any{
		"registry_by_construction": "the step file is the registration: the catalog, the config class and the builder routing derive from it; there is no other registry to edit",
		"contract_port_alignment":  "a port declares its container path and its resolver metadata together, so contract and spec cannot drift",
		"compatible_sources":       "each entry is a catalog step name in exact case or a generic token",
		"generic_sources":          catalog.GenericSourceNames(),
		"resolver_threshold":       deps.Threshold,
		"resolvability":            fmt.Sprintf("every required input not supplied from config needs a provider output in the catalog scoring above %.1f (validate.alignment level 3)", deps.Threshold),
		"builder_fields":           "every config field the builder reads must be declared by the config class (validate.alignment level 4)",
		"aliases":                  "step aliases must not name another step or another step's alias",
		"dependency_types":         depTypes(),
		"steps":                    len(cat.Names()),
	}
}

func depTypes() []string {
	out := make([]string, len(catalog.DependencyTypes))
	for i, d := range catalog.DependencyTypes {
		out[i] = string(d)
	}
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string(nil), s...)
}

package project

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// customStepYAML is the step file of the project's custom step: a
// Processing step that takes the preprocessed splits and writes them with
// the project's features, between TabularPreprocessing and training.
func customStepYAML(name string, custom catalog.StepType) []byte {
	snake := catalog.CanonicalToSnake(custom)
	entry := snake + ".py"
	var b strings.Builder
	fmt.Fprintf(&b, `# Custom step of project %[1]s, scaffolded by cursus project.init.
# This file IS the step's registration: validate it with
#   validate.step_interface {"step_name": "%[2]s", "workspace_dirs": ["<project>/steps"]}
# and keep scripts/%[3]s in step with its contract (author.check_script).
step: %[2]s
verb: Processing
kind: internal
description: >
  Project-specific feature engineering for %[1]s: reads the preprocessed train/val/test (or
  single job-type) folders and writes them with the project's features added. Scaffolded by
  project.init; edit this file and scripts/%[3]s together.
framework: generic
keywords: [features, feature engineering, %[4]s]
job_types: [training, calibration]
compute:
  kind: sklearn
contract:
  entry_point: %[3]s
  job_arguments:
    - {flag: --job_type, source: job_type}
  env:
    - {name: LABEL_FIELD, field: label_name, description: "Label column; passed through untouched."}
    - {name: FEATURE_PREFIX, field: feature_prefix, description: "Prefix of the columns the step adds."}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing]
    keywords: [processed, data, features, training, calibration]
    description: The preprocessed data (train/, val/, test/ for the training job, else one folder).
outputs:
  - name: processed_data
    type: processing_output
    path: /opt/ml/processing/output
    aliases: [input_path, training_data, model_input_data, features]
    keywords: [processed, features, engineered, training_data]
    description: The data with the project's features, in the same folder layout as the input.
fields:
  - {name: processing_entry_point, default: %[3]s}
  - {name: job_type, type: string, tier: essential, pattern: "^[a-z][a-z0-9_]*$", description: "Split this step handles: training (train/val/test folders) or calibration."}
  - {name: label_name, type: string, tier: system, default: label, description: "Label column."}
  - {name: feature_prefix, type: string, tier: system, default: fe_, description: "Prefix of the engineered columns."}
`, name, custom, entry, strings.ToLower(name))
	return []byte(b.String())
}

func readme(r *Result, fw Framework, custom *catalog.Step) []byte {
	var b strings.Builder
	ws := StepsDir
	fmt.Fprintf(&b, "# %s\n\n", r.Project)
	fmt.Fprintf(&b, "A pipeline project for %s, scaffolded by `cursus project.init`. It compiles to an Amazon SageMaker\n", fw.Name)
	b.WriteString("Pipelines definition with the cursus tools; every value still to decide is listed in\n")
	fmt.Fprintf(&b, "[%s](%s).\n\n", LedgerFile, LedgerFile)
	b.WriteString("## Pipeline\n\n```mermaid\nflowchart LR\n")
	for _, e := range r.Edges {
		fmt.Fprintf(&b, "  %s --> %s\n", e[0], e[1])
	}
	b.WriteString("```\n\n")
	fmt.Fprintf(&b, "`%s` is this project's own step (declared in `%s/%s%s`); the others come from the cursus catalog.\n\n", custom.Type, ws, custom.Type, catalog.StepFileSuffix)
	b.WriteString("## Layout\n\n")
	rows := [][2]string{
		{ReadmeFile, "this file"},
		{LedgerFile, "action items: placeholders to replace, TODOs to do"},
		{ws + "/", "workspace directory of custom step files: pass it as `workspace_dirs`"},
		{ScriptsDir + "/", "the project's own step scripts (the config's `source_dir`): the custom step's skeleton; a file named like a catalog step's script replaces the catalog's code"},
		{DAGFile, "the pipeline DAG"},
		{ConfigFile, "the config of every node (placeholders marked `replace-me`)"},
		{SampleData, "40 rows of synthetic data for local script runs"},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "- `%s`: %s\n", row[0], row[1])
	}
	b.WriteString("\n## Check it\n\nEach line is a cursus tool call (`cursus mcp call <tool> '<json>'`); the paths are where the project was written:\n\n```\n")
	wsAbs := r.WorkspaceDir
	fmt.Fprintf(&b, "validate.step_interface {\"step_name\": %q, \"workspace_dirs\": [%q]}\n", custom.Type, wsAbs)
	fmt.Fprintf(&b, "validate.alignment {\"workspace_dirs\": [%q], \"script_dirs\": [%q]}\n", wsAbs, r.ScriptsDir)
	fmt.Fprintf(&b, "author.preflight_step {\"step_name\": %q, \"workspace_dirs\": [%q]}\n", custom.Type, wsAbs)
	fmt.Fprintf(&b, "compile.validate {\"dag_file\": %q, \"config_file\": %q, \"workspace_dirs\": [%q]}\n", r.DAGFile, r.ConfigFile, wsAbs)
	input, _ := json.Marshal(r.InputData)
	fmt.Fprintf(&b, "validate.run_scripts {\"dag_file\": %q, \"config_file\": %q, \"workspace_dirs\": [%q], \"input_data\": %s}\n", r.DAGFile, r.ConfigFile, wsAbs, input)
	fmt.Fprintf(&b, "compile.dag {\"dag_file\": %q, \"config_file\": %q, \"workspace_dirs\": [%q]}\n", r.DAGFile, r.ConfigFile, wsAbs)
	b.WriteString("```\n\n")
	fmt.Fprintf(&b, "`project.bring_up {\"name\": ..., \"framework\": %q}` lists the whole sequence from an empty folder to a deployed pipeline.\n", fw.Name)
	return []byte(b.String())
}

func ledger(r *Result, fw Framework, custom *catalog.Step) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Action items: %s\n\n", r.Project)
	b.WriteString("Tick each item when done. The project compiles and its scripts run as scaffolded; these items\n")
	b.WriteString("turn it into the real pipeline.\n\n")
	b.WriteString("## Replace placeholder config values\n\n")
	fmt.Fprintf(&b, "`%s` holds placeholder-but-valid values so the project validates and compiles; none of them\n", ConfigFile)
	b.WriteString("points at a real resource. Replace each (edit the file, or regenerate it with `config.merge_save`):\n\n")
	for _, k := range mapkeys.Sorted(r.Placeholders) {
		fmt.Fprintf(&b, "- [ ] `%s` = `%v`\n", k, r.Placeholders[k])
	}
	if len(r.Choices) > 0 {
		b.WriteString("\nConfirm the essential values the scaffold chose:\n\n")
		for _, k := range mapkeys.Sorted(r.Choices) {
			fmt.Fprintf(&b, "- [ ] `%s` = `%v`\n", k, r.Choices[k])
		}
	}
	b.WriteString("- [ ] `label_name` / `id_name` (the training node's too: its hyperparameters are typed fields, with the feature lists `tab_field_list` / `cat_field_list` and the `objective`): the real label, id and feature columns\n\n")
	b.WriteString("## Write the step logic\n\n")
	fmt.Fprintf(&b, "- [ ] `%s/%s`: replace the skeleton's `transform()` with the feature engineering; keep the declared paths and variables (run `author.check_script` after each change)\n", ScriptsDir, custom.Contract.EntryPoint)
	fmt.Fprintf(&b, "- [ ] `%s/%s%s`: add the environment variables, fields and ports the script needs\n", StepsDir, custom.Type, catalog.StepFileSuffix)
	b.WriteString("\n## Verify\n\n")
	b.WriteString("- [ ] `validate.step_interface` and `author.preflight_step` pass on the custom step\n")
	b.WriteString("- [ ] `validate.alignment` passes with the project's workspace and scripts\n")
	b.WriteString("- [ ] `validate.run_scripts` runs every script on the sample data (then on a real sample)\n")
	b.WriteString("- [ ] `compile.validate`, then `compile.preview`, then `compile.dag` (build only), then `compile.dag` with `upsert` and a real role\n\n")
	b.WriteString("## Already done by the scaffold\n\n")
	fmt.Fprintf(&b, "- [x] default %s DAG (%d nodes, %d edges) in `%s`\n", fw.Name, len(r.Nodes), len(r.Edges), DAGFile)
	fmt.Fprintf(&b, "- [x] custom step `%s` declared in `%s/`\n", custom.Type, StepsDir)
	fmt.Fprintf(&b, "- [x] the custom step's script skeleton in `%s/`; the catalog steps run the catalog's own code\n", ScriptsDir)
	fmt.Fprintf(&b, "- [x] `%s` from the config template (%s) with defaults filled\n", ConfigFile, r.ConfigSource)
	fmt.Fprintf(&b, "- [x] sample data in `%s`\n", SampleData)
	return []byte(b.String())
}

package compiler_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

// containerStep is a workspace step type of the byo_container kind: the
// team's own image runs its own command (a shell script of the step's
// source directory), as GraphStorm or Spark-in-a-container steps do.
const containerStep = `step: GraphPartition
verb: Processing
kind: internal
description: Partitions a graph with the team's own image and command.
patterns:
  step_assembly: step_args
compute:
  kind: byo_container
  container_entrypoint: [bash, /opt/ml/processing/input/code/run.sh]
contract:
  entry_point: partition.py
  source_dir: true
  env:
    - {name: NUM_PARTS, field: num_parts, description: "Number of partitions."}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: false
    compatible_sources: [TabularPreprocessing]
    description: The graph's edge lists.
outputs:
  - name: output_data
    type: processing_output
    path: /opt/ml/processing/output/data
    description: The partitions.
fields:
  - {name: processing_entry_point, default: partition.py}
  - {name: container_entrypoint, type: list, tier: system, description: "The command the image runs; overrides the step type's."}
  - {name: num_parts, type: int, tier: system, default: 4, description: "Number of partitions."}
`

func compileContainerStep(t *testing.T, over map[string]any) (map[string]map[string]any, error) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "GraphPartition.step.yaml"), []byte(containerStep), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	code := filepath.Join(base, "graph")
	if err := os.MkdirAll(code, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"run.sh": "python3 \"$(dirname \"$0\")/partition.py\"\n", "partition.py": "print('partition')\n"} {
		if err := os.WriteFile(filepath.Join(code, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vals := baseValues()
	vals["processing_source_dir"] = "graph"
	vals["image_uri"] = "123456789012.dkr.ecr.us-east-1.amazonaws.com/graph-partition:1.0"
	for k, v := range over {
		if v == nil {
			delete(vals, k)
		} else {
			vals[k] = v
		}
	}
	c, err := schema.NewConfig("GraphPartitionConfig", "GraphPartition", vals)
	if err != nil {
		t.Fatal(err)
	}
	set, err := config.NewSet(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG([]string{"GraphPartition"}, nil), Configs: set, Catalog: cat, BaseDir: base})
	if err != nil {
		return nil, err
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkDefinition(t, t.Name(), b)
	return stepsByName(t, b), nil
}

// A byo_container processing step runs its own image's command, as the
// SDK's Processor(image_uri, entrypoint) writes it: AppSpecification has the
// image and the command (the step type's, or the config's
// container_entrypoint), the step's source directory is the code input at
// /opt/ml/processing/input/code, and the definition passes the strict schema
// and the SDK's request types. Without an image or with a command that is no
// list of strings, the compile fails naming the field.
func TestByoContainerProcessing(t *testing.T) {
	steps, err := compileContainerStep(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := steps["GraphPartition"]["Arguments"].(map[string]any)
	app := args["AppSpecification"].(map[string]any)
	want := map[string]any{"ImageUri": "123456789012.dkr.ecr.us-east-1.amazonaws.com/graph-partition:1.0",
		"ContainerEntrypoint": []any{"bash", "/opt/ml/processing/input/code/run.sh"}}
	if !reflect.DeepEqual(app, want) {
		t.Errorf("AppSpecification %v, want %v", app, want)
	}
	var code map[string]any
	for _, in := range args["ProcessingInputs"].([]any) {
		if m := in.(map[string]any); m["InputName"] == "code" {
			code = m["S3Input"].(map[string]any)
		}
	}
	if code == nil || code["LocalPath"] != "/opt/ml/processing/input/code" {
		t.Errorf("code input %v", code)
	}
	if env := args["Environment"].(map[string]any); env["NUM_PARTS"] != "4" {
		t.Errorf("environment %v", env)
	}

	steps, err = compileContainerStep(t, map[string]any{"container_entrypoint": []any{"sh", "-c", "python3 /opt/ml/processing/input/code/partition.py --fast"}})
	if err != nil {
		t.Fatal(err)
	}
	got := steps["GraphPartition"]["Arguments"].(map[string]any)["AppSpecification"].(map[string]any)["ContainerEntrypoint"]
	if !reflect.DeepEqual(got, []any{"sh", "-c", "python3 /opt/ml/processing/input/code/partition.py --fast"}) {
		t.Errorf("the config's command does not win: %v", got)
	}

	for _, c := range []struct {
		over map[string]any
		want string
	}{
		{map[string]any{"image_uri": nil}, "image_uri"},
		{map[string]any{"container_entrypoint": []any{"bash", 3}}, "container_entrypoint[1]"},
	} {
		if _, err := compileContainerStep(t, c.over); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.over, err, c.want)
		}
	}
}

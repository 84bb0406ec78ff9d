package compiler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

// Each value check blocks a value SageMaker (or the step's script) would
// refuse, and passes its good twin; Validate reports the same blocker.
func TestReadinessValueChecks(t *testing.T) {
	cases := []struct {
		name        string
		bad, good   func(shared, specific map[string]any)
		kind, field string
		says        string
	}{
		{"training instance type",
			func(_, sp map[string]any) { node(sp, "XGBoostTraining")["training_instance_type"] = "ml.t2.medium" },
			func(_, sp map[string]any) { node(sp, "XGBoostTraining")["training_instance_type"] = "ml.m5.xlarge" },
			compiler.BlockerInstanceType, "training_instance_type", "CreateTrainingJob"},
		{"processing instance type",
			func(_, sp map[string]any) {
				node(sp, "TabularPreprocessing_training")["processing_instance_type_small"] = "ml.t2.medium"
			},
			func(_, sp map[string]any) {
				node(sp, "TabularPreprocessing_training")["processing_instance_type_small"] = "ml.t3.medium"
			},
			compiler.BlockerInstanceType, "processing_instance_type_small", "CreateProcessingJob"},
		{"image that is not an image",
			func(_, sp map[string]any) { node(sp, "XGBoostTraining")["image_uri"] = "x" },
			func(_, sp map[string]any) {
				node(sp, "XGBoostTraining")["image_uri"] = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"
			},
			compiler.BlockerImage, "image_uri", "not an ECR image URI"},
		{"image of another region",
			func(_, sp map[string]any) {
				node(sp, "XGBoostTraining")["image_uri"] = "685385470294.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-xgboost:1.7-1"
			},
			func(sh, sp map[string]any) {
				sh["region"] = "EU"
				node(sp, "XGBoostTraining")["image_uri"] = "685385470294.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-xgboost:1.7-1"
			},
			compiler.BlockerImage, "image_uri", "runs in us-east-1"},
		{"no feature columns",
			func(_, sp map[string]any) { node(sp, "XGBoostTraining")["tab_field_list"] = []any{} },
			func(_, sp map[string]any) { node(sp, "XGBoostTraining")["tab_field_list"] = []any{"f1"} },
			compiler.BlockerNoFeatures, "tab_field_list", "no feature columns"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := editedExample(t, c.bad)
			res, err := compiler.Compile(context.Background(), in)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			b, ok := findBlocker(res.Blockers, c.kind, c.field)
			if res.Deployable() || !ok {
				t.Fatalf("want a %s blocker for %s, got %+v", c.kind, c.field, res.Blockers)
			}
			if !strings.Contains(b.Problem, c.says) || b.Fix == "" || b.Tool == "" || b.Node == "" {
				t.Errorf("the blocker names the node, says %q, the fix and the tool: %+v", c.says, b)
			}
			v, err := compiler.Validate(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := findBlocker(v.Blockers, c.kind, c.field); v.Deployable || !ok {
				t.Errorf("validate: deployable %v blockers %+v", v.Deployable, v.Blockers)
			}

			res, err = compiler.Compile(context.Background(), editedExample(t, c.good))
			if err != nil {
				t.Fatalf("the good twin: %v", err)
			}
			if !res.Deployable() {
				t.Errorf("the good twin is deployable: %+v", res.Blockers)
			}
		})
	}
}

// A transform job on an instance type CreateTransformJob does not take is
// blocked (ml.r5.large trains and processes, but does not transform).
func TestTransformInstanceTypeBlocks(t *testing.T) {
	compile := func(it string) *compiler.Result {
		t.Helper()
		per := map[string]map[string]any{}
		if it != "" {
			per["BatchTransform_calibration"] = map[string]any{"transform_instance_type": it}
		}
		res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG(transformNodes, transformEdges),
			Configs: configSetPer(t, transformNodes, per), BaseDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	b, ok := findBlocker(compile("ml.r5.large").Blockers, compiler.BlockerInstanceType, "transform_instance_type")
	if !ok || b.Node != "BatchTransform_calibration" || !strings.Contains(b.Problem, "CreateTransformJob") || !strings.Contains(b.Fix, "ml.") {
		t.Fatalf("want an instance type blocker on BatchTransform_calibration: %+v", b)
	}
	if _, ok := findBlocker(compile("ml.m5.large").Blockers, compiler.BlockerInstanceType, "transform_instance_type"); ok {
		t.Error("ml.m5.large transforms")
	}
}

// labelNodes score a calibration split with XGBoostModelInference and
// compute metrics over the predictions, which read the label.
var labelNodes = []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
	"DummyDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelInference_calibration", "ModelMetricsComputation_calibration"}
var labelEdges = [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
	{"DummyDataLoading_calibration", "TabularPreprocessing_calibration"}, {"XGBoostTraining", "XGBoostModelInference_calibration"},
	{"TabularPreprocessing_calibration", "XGBoostModelInference_calibration"}, {"XGBoostModelInference_calibration", "ModelMetricsComputation_calibration"}}

// A metrics step reads the label from an inference step that writes it
// only when its label_name is set: blank or another column blocks, the
// same column passes.
func TestLabelADownstreamStepReads(t *testing.T) {
	compile := func(label any) *compiler.Result {
		t.Helper()
		per := map[string]map[string]any{}
		if label != nil {
			per["XGBoostModelInference_calibration"] = map[string]any{"label_name": label}
		}
		res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG(labelNodes, labelEdges),
			Configs: configSetPer(t, labelNodes, per), BaseDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, bad := range []any{nil, "z"} {
		b, ok := findBlocker(compile(bad).Blockers, compiler.BlockerLabelDropped, "label_name")
		if !ok || b.Node != "XGBoostModelInference_calibration" || !strings.Contains(b.Problem, "ModelMetricsComputation_calibration") || !strings.Contains(b.Fix, `"y"`) {
			t.Errorf("label_name %v: want a label_dropped blocker on the inference node: %+v", bad, b)
		}
	}
	if res := compile("y"); !res.Deployable() {
		t.Errorf("with the label passed through: %+v", res.Blockers)
	}
}

// config.Template asks for the inference step's label_name when the DAG
// also has a step that reads the label, and not otherwise.
func TestTemplateAsksForALabelDownstreamReads(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	nodes := func(ns []string) []catalog.NodeName {
		out := make([]catalog.NodeName, len(ns))
		for i, n := range ns {
			out[i] = catalog.NodeName(n)
		}
		return out
	}
	has := func(tpl *config.Template, path string) bool {
		for _, p := range tpl.EssentialFields {
			if p == path {
				return true
			}
		}
		return false
	}
	if tpl := schema.Template(nodes(labelNodes)); !has(tpl, "XGBoostModelInference_calibration.label_name") {
		t.Errorf("essential fields %v", tpl.EssentialFields)
	}
	if tpl := schema.Template(nodes(labelNodes[:6])); has(tpl, "XGBoostModelInference_calibration.label_name") {
		t.Errorf("no step reads the label: %v", tpl.EssentialFields)
	}
}

// Example values (the AWS documentation's account, this project's example
// bucket) are confirm items, not blockers: the example stays deployable,
// and its own values are listed once each, shared ones under shared.
func TestConfirmListsExampleValues(t *testing.T) {
	res, err := compiler.Compile(context.Background(), editedExample(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Deployable() {
		t.Fatalf("confirm items are not blockers: %+v", res.Blockers)
	}
	var text []string
	for _, c := range res.Confirm {
		if c.Kind != compiler.BlockerConfirm || c.Fix == "" {
			t.Errorf("%+v", c)
		}
		text = append(text, c.Path+" "+c.Problem)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"shared.role", "123456789012", "shared.bucket", "example-bucket", "DummyDataLoading_training.data_source"} {
		if !strings.Contains(all, want) {
			t.Errorf("confirm lacks %s:\n%s", want, all)
		}
	}
	v, err := compiler.Validate(context.Background(), editedExample(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Confirm) != len(res.Confirm) || !v.Deployable {
		t.Errorf("validate: deployable %v, confirm %+v", v.Deployable, v.Confirm)
	}

	own := editedExample(t, func(sh, sp map[string]any) {
		sh["role"] = "arn:aws:iam::210987654321:role/SageMakerExecutionRole"
		sh["bucket"] = "acme-ml-artifacts"
		node(sp, "DummyDataLoading_training")["data_source"] = "s3://acme-ml-artifacts/raw/train/"
	})
	res, err = compiler.Compile(context.Background(), own)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Confirm) != 0 {
		t.Errorf("real values need no confirmation: %+v", res.Confirm)
	}
	for doc, want := range map[string]string{"s3://amzn-s3-demo-bucket1/x/": "amzn-s3-demo-bucket1", "s3://DOC-EXAMPLE-BUCKET/x/": "DOC-EXAMPLE-BUCKET"} {
		res, err := compiler.Compile(context.Background(), editedExample(t, func(_, sp map[string]any) {
			node(sp, "DummyDataLoading_training")["data_source"] = doc
		}))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range res.Confirm {
			found = found || strings.Contains(c.Problem, "AWS documentation") && strings.Contains(c.Problem, want)
		}
		if !found {
			t.Errorf("%s: %+v", doc, res.Confirm)
		}
	}
	// An all-zero account is no account; a REPLACE-... role is a slot:
	// neither reaches a deploy unnoticed.
	res, err = compiler.Compile(context.Background(), editedExample(t, func(sh, _ map[string]any) {
		sh["role"] = "arn:aws:iam::000000000000:role/SageMakerExecutionRole"
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(res.Confirm), "account 000000000000 is no AWS account") {
		t.Errorf("the all-zero account: %+v", res.Confirm)
	}
	res, err = compiler.Compile(context.Background(), editedExample(t, func(sh, _ map[string]any) {
		sh["role"] = "arn:aws:iam::210987654321:role/REPLACE-sagemaker-role"
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Deployable() {
		t.Errorf("a REPLACE-... role is deployable: blockers %+v", res.Blockers)
	}
}

// ImageRegion parses ECR image URIs, tags and digests, FIPS and China
// endpoints, and nothing else.
func TestImageRegion(t *testing.T) {
	for uri, want := range map[string]string{
		"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1":                      "us-east-1",
		"763104351884.dkr.ecr.eu-central-1.amazonaws.com/pytorch-inference:2.1.0-cpu-py310":         "eu-central-1",
		"123456789012.dkr.ecr.us-west-2.amazonaws.com/team/model@sha256:" + strings.Repeat("a", 64): "us-west-2",
		"727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/pytorch-training:2.1.0":                   "cn-north-1",
		"123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com/repo:tag":                            "us-gov-west-1",
		"x": "", "docker.io/library/python:3.11": "", "123.dkr.ecr.us-east-1.amazonaws.com/r": "",
		"683313688378.dkr.ecr.us-east-1.amazonaws.com/": "",
	} {
		got, ok := compiler.ImageRegion(uri)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", uri, got, ok, want)
		}
	}
}

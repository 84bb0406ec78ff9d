package compilertest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The validators must accept the two real SDK definitions and reject every
// negative control under the strict schema; otherwise a passing compile
// test would prove nothing.
func TestSchemaOracles(t *testing.T) {
	dir := RequireSchemas(t)
	for _, name := range []string{"abalone-sdk-2.99.0.definition.json", "dynamic-framework-calhousing-falcon.definition.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{Strict, Relaxed} {
			errs, err := ValidateSchema(v, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) > 0 {
				t.Errorf("%s under %s: %v", name, v, errs)
			}
		}
	}
	negs, _ := filepath.Glob(filepath.Join(dir, "examples", "negative", "*.json"))
	if len(negs) < 12 {
		t.Fatalf("want 12 negative controls, found %d", len(negs))
	}
	for _, f := range negs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		errs, err := ValidateSchema(Strict, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(errs) == 0 {
			t.Errorf("%s: strict schema accepted a negative control", filepath.Base(f))
		}
	}
}

// The real definitions' steps decode into the SDK request types (where the
// SDK noise keys are API members) and pass the SDK's validation; a
// misspelled key or a missing required member is caught.
func TestSDKCheck(t *testing.T) {
	dir := RequireSchemas(t)
	b, err := os.ReadFile(filepath.Join(dir, "examples", "dynamic-framework-calhousing-falcon.definition.json"))
	if err != nil {
		t.Fatal(err)
	}
	if errs := CheckSDK(b); len(errs) > 0 {
		t.Errorf("real definition: %v", errs)
	}
	good := `{"ProcessingResources":{"ClusterConfig":{"InstanceType":"ml.m5.xlarge","InstanceCount":{"Get":"Parameters.N"},"VolumeSizeInGB":30}},
	  "AppSpecification":{"ImageUri":"img"},"RoleArn":"arn:aws:iam::000000000000:role/R",
	  "ProcessingOutputConfig":{"Outputs":[{"OutputName":"o","AppManaged":false,"S3Output":{"S3Uri":{"Std:Join":{"On":"/","Values":["s3://b",{"Get":"Execution.PipelineExecutionId"}]}},"LocalPath":"/opt/ml/processing/o","S3UploadMode":"EndOfJob"}}]}}`
	if err := CheckStepArguments("Processing", []byte(good)); err != nil {
		t.Errorf("good processing args: %v", err)
	}
	bad := strings.Replace(good, `"InstanceCount"`, `"InstanceCnt"`, 1)
	if err := CheckStepArguments("Processing", []byte(bad)); err == nil || !strings.Contains(err.Error(), "InstanceCnt") {
		t.Errorf("misspelled key: got %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(good), &m)
	delete(m, "RoleArn")
	nb, _ := json.Marshal(m)
	if err := CheckStepArguments("Processing", nb); err == nil || !strings.Contains(err.Error(), "RoleArn") {
		t.Errorf("missing RoleArn: got %v", err)
	}
	if err := CheckStepArguments("Processing", []byte(strings.Replace(good, `"AppSpecification"`, `"ProcessingJobName":"x","AppSpecification"`, 1))); err == nil {
		t.Error("a job name in the arguments was accepted")
	}
}

// The strict schema rejects the forms of SchemaGaps that the SDK writes;
// SchemaView bridges exactly those, so the schema still catches everything
// else in those steps (a misspelled key), and CheckStepArguments checks an
// EMR step against EMR's own requests.
func TestSchemaGaps(t *testing.T) {
	RequireSchemas(t)
	def := `{"Version":"2020-12-01","Parameters":[],"Steps":[
	  {"Name":"Check","Type":"QualityCheck","CheckType":"DATA_QUALITY","SkipCheck":false,"FailOnViolation":true,"RegisterNewBaseline":false,
	   "Arguments":{"ProcessingResources":{"ClusterConfig":{"InstanceType":"ml.m5.xlarge","InstanceCount":1,"VolumeSizeInGB":30}},
	     "AppSpecification":{"ImageUri":"img"},"RoleArn":"arn:aws:iam::123456789012:role/R"}},
	  {"Name":"Spark","Type":"EMR","Arguments":{"StepConfig":{"HadoopJarStep":{"Jar":"command-runner.jar","Args":["spark-submit","s3://b/job.py"]}},
	     "ClusterConfig":{"ReleaseLabel":"emr-6.15.0","Instances":{"InstanceGroups":[{"InstanceRole":"MASTER","InstanceType":"m5.xlarge","InstanceCount":1}]}}}}]}`
	raw, err := ValidateSchema(Strict, []byte(def))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 {
		t.Fatal("the strict schema accepts the SDK's forms; SchemaGaps is stale")
	}
	view, bridged, err := SchemaView([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(bridged, ";") != "Check: FailOnViolation;Spark: Arguments.ClusterConfig;Spark: Arguments.StepConfig.Name" {
		t.Errorf("bridged %v", bridged)
	}
	if errs, _ := ValidateSchema(Strict, view); len(errs) > 0 {
		t.Errorf("the bridged view still fails: %v", errs)
	}
	bad := strings.Replace(def, `"SkipCheck"`, `"SkipChek"`, 1)
	view, _, _ = SchemaView([]byte(bad))
	if errs, _ := ValidateSchema(Strict, view); len(errs) == 0 {
		t.Error("a misspelled key of a check step passes the bridged view")
	}
	var d struct{ Steps []sdkStep }
	_ = json.Unmarshal([]byte(def), &d)
	if err := CheckStepArguments("EMR", d.Steps[1].Arguments); err != nil {
		t.Errorf("EMR arguments: %v", err)
	}
	for name, args := range map[string]string{
		"misspelled":    strings.Replace(string(d.Steps[1].Arguments), `"Jar"`, `"Jarr"`, 1),
		"no jar":        `{"StepConfig":{"HadoopJarStep":{"Args":["x"]}},"ClusterId":"j-ABC"}`,
		"both clusters": `{"StepConfig":{"HadoopJarStep":{"Jar":"a.jar"}},"ClusterId":"j-ABC","ClusterConfig":{}}`,
		"no cluster":    `{"StepConfig":{"HadoopJarStep":{"Jar":"a.jar"}}}`,
	} {
		if err := CheckStepArguments("EMR", []byte(args)); err == nil {
			t.Errorf("%s: EMR arguments accepted", name)
		}
	}
}

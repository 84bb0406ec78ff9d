package compiler_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

func init() {
	add := func(key, class string, vals map[string]any) {
		stepConfigs[key] = struct {
			class string
			vals  map[string]any
		}{class, vals}
	}
	add("DataQualityCheck", "DataQualityCheckConfig", map[string]any{})
	add("ModelQualityCheck", "ModelQualityCheckConfig", map[string]any{"problem_type": "BinaryClassification",
		"inference_attribute": "prediction", "probability_attribute": "prob_class_1", "ground_truth_attribute": "y", "probability_threshold_attribute": 0.5})
	add("DataBiasCheck", "DataBiasCheckConfig", map[string]any{"label_name": "y", "label_values_or_threshold": []any{1}, "facet_name": "f2", "facet_values_or_threshold": []any{0.5}})
	add("ModelBiasCheck", "ModelBiasCheckConfig", map[string]any{"label_name": "y", "label_values_or_threshold": []any{1}, "facet_name": "f2",
		"headers": []any{"y", "f1", "f2"}, "probability_threshold": 0.5})
	add("ModelExplainabilityCheck", "ModelExplainabilityCheckConfig", map[string]any{"label_name": "y", "headers": []any{"y", "f1", "f2"},
		"shap_baseline": []any{[]any{0.1, 0.2}}, "num_samples": 100, "agg_method": "mean_abs"})
	add("LambdaInvocation", "LambdaInvocationConfig", map[string]any{"function_arn": "arn:aws:lambda:us-east-1:123456789012:function:stage-data",
		"lambda_inputs": map[string]any{"mode": "full", "limit": 3}})
	add("ExternalCallback", "ExternalCallbackConfig", map[string]any{"sqs_queue_url": "https://sqs.us-east-1.amazonaws.com/123456789012/review-queue"})
	add("EMRJob", "EMRJobConfig", map[string]any{"emr_cluster_id": "j-ABCDEF123456",
		"emr_args": []any{"spark-submit", "--deploy-mode", "cluster", "s3://example-bucket/jobs/features.py", "--input", "{input_data}", "--out=s3://example-bucket/out/{input_data}"}})
}

var kindNodes = []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel",
	"DummyDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration",
	"DataQualityCheck", "ModelQualityCheck", "DataBiasCheck", "ModelBiasCheck", "ModelExplainabilityCheck",
	"LambdaInvocation", "ExternalCallback", "EMRJob"}

var kindEdges = [][2]string{
	{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "XGBoostModel"},
	{"DummyDataLoading_calibration", "TabularPreprocessing_calibration"}, {"XGBoostTraining", "XGBoostModelEval_calibration"}, {"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"},
	{"TabularPreprocessing_training", "DataQualityCheck"}, {"XGBoostModelEval_calibration", "ModelQualityCheck"},
	{"TabularPreprocessing_training", "DataBiasCheck"},
	{"XGBoostModel", "ModelBiasCheck"}, {"TabularPreprocessing_calibration", "ModelBiasCheck"},
	{"XGBoostModel", "ModelExplainabilityCheck"}, {"TabularPreprocessing_calibration", "ModelExplainabilityCheck"},
	{"TabularPreprocessing_training", "LambdaInvocation"}, {"LambdaInvocation", "ExternalCallback"}, {"ExternalCallback", "EMRJob"},
}

// procIn is a processing input as the SDK's ProcessingInput writes it.
func procIn(name string, uri any, local string) map[string]any {
	return map[string]any{"InputName": name, "AppManaged": false, "S3Input": map[string]any{
		"S3Uri": uri, "LocalPath": local, "S3DataType": "S3Prefix", "S3InputMode": "File",
		"S3DataDistributionType": "FullyReplicated", "S3CompressionType": "None"}}
}

func procOutput(name string, uri any, local string) map[string]any {
	return map[string]any{"OutputName": name, "AppManaged": false, "S3Output": map[string]any{"S3Uri": uri, "LocalPath": local, "S3UploadMode": "EndOfJob"}}
}

const role = "arn:aws:iam::123456789012:role/SageMakerRole"

func checkCluster() map[string]any {
	return map[string]any{"ClusterConfig": map[string]any{"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30}}
}

// The QualityCheck steps are written key for key as the SDK's QualityCheckStep
// writes them (CheckJobConfig defaults: ml.m5.xlarge, 1 instance, 30 GB, no
// stopping condition; the model monitor analyzer image of the region; the
// baseline data set at /opt/ml/processing/input/baseline_dataset_input and the
// results in quality_check_output; the environment of
// ModelMonitor._generate_env_map, dataset_format as Python's json.dumps writes
// it), with the unset ModelPackageGroupName and supplied baselines left out.
func TestQualityCheckAsTheSDKWritesIt(t *testing.T) {
	_, steps := mustCompileCase(t, kindNodes, kindEdges, nil)
	mm := "156813124566.dkr.ecr.us-east-1.amazonaws.com/sagemaker-model-monitor-analyzer"
	dq := map[string]any{
		"Name": "DataQualityCheck", "Type": "QualityCheck",
		"Arguments": map[string]any{
			"ProcessingResources": checkCluster(),
			"AppSpecification":    map[string]any{"ImageUri": mm},
			"RoleArn":             role,
			"ProcessingInputs":    []any{procIn("baseline_dataset_input", procOut("TabularPreprocessing-Training", "processed_data"), "/opt/ml/processing/input/baseline_dataset_input")},
			"ProcessingOutputConfig": map[string]any{"Outputs": []any{procOutput("quality_check_output",
				compiler.JoinOn("/", prefix, compiler.ExecutionVar("PipelineExecutionId"), "dataqualitycheck", "quality_check_output"), "/opt/ml/processing/output")}},
			"Environment": map[string]any{
				"output_path": "/opt/ml/processing/output", "publish_cloudwatch_metrics": "Disabled",
				"dataset_format": `{"csv": {"header": true, "output_columns_position": "START"}}`,
				"dataset_source": "/opt/ml/processing/input/baseline_dataset_input"},
		},
		"DependsOn": []any{"TabularPreprocessing-Training"},
		"CheckType": "DATA_QUALITY", "SkipCheck": false, "FailOnViolation": true, "RegisterNewBaseline": false,
	}
	eq(t, "DataQualityCheck", steps["DataQualityCheck"], dq)
	mq := steps["ModelQualityCheck"]
	eq(t, "ModelQualityCheck environment", at(t, mq, "Arguments", "Environment"), map[string]any{
		"output_path": "/opt/ml/processing/output", "publish_cloudwatch_metrics": "Disabled",
		"dataset_format": `{"csv": {"header": true, "output_columns_position": "START"}}`,
		"dataset_source": "/opt/ml/processing/input/baseline_dataset_input",
		"analysis_type":  "MODEL_QUALITY", "problem_type": "BinaryClassification", "inference_attribute": "prediction",
		"probability_attribute": "prob_class_1", "ground_truth_attribute": "y", "probability_threshold_attribute": "0.5"})
	eq(t, "ModelQualityCheck input", at(t, mq, "Arguments", "ProcessingInputs"),
		[]any{procIn("baseline_dataset_input", procOut("XGBoostModelEval-Calibration", "eval_output"), "/opt/ml/processing/input/baseline_dataset_input")})
	eq(t, "ModelQualityCheck type", mq["CheckType"], "MODEL_QUALITY")
}

// A drift check takes the baselines an upstream check computed: its
// supplied_baseline_* inputs bind to their outputs; the step's own settings
// (skip_check, register_new_baseline, the model package group as a
// parameter) are written as the SDK writes them; scripts given as local
// files are uploaded and named in the environment by their container path.
func TestQualityCheckDriftAgainstUpstreamBaseline(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "DataQualityCheck", "DataQualityCheck_drift"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "DataQualityCheck"},
		{"TabularPreprocessing_training", "DataQualityCheck_drift"}, {"DataQualityCheck", "DataQualityCheck_drift"}}
	stepConfigs["DataQualityCheck_drift"] = struct {
		class string
		vals  map[string]any
	}{"DataQualityCheckConfig", map[string]any{"job_type": "drift", "skip_check": false, "register_new_baseline": true,
		"model_package_group_name": "{{Parameters.MODEL_GROUP}}", "record_preprocessor_script": "scripts/pre.py",
		"pipeline_parameters": []any{map[string]any{"name": "MODEL_GROUP", "type": "String", "default_value": "fraud-models"}},
		"dataset_format":      map[string]any{"json": map[string]any{"lines": true}}}}
	res, steps := mustCompileCase(t, nodes, edges, nil)
	d := steps["DataQualityCheck-Drift"]
	eq(t, "supplied statistics", d["SuppliedBaselineStatistics"], compiler.Get{Get: "Steps.DataQualityCheck.CalculatedBaselineStatistics"})
	eq(t, "supplied constraints", d["SuppliedBaselineConstraints"], compiler.Get{Get: "Steps.DataQualityCheck.CalculatedBaselineConstraints"})
	eq(t, "register", d["RegisterNewBaseline"], true)
	eq(t, "group", d["ModelPackageGroupName"], compiler.Param("MODEL_GROUP"))
	env := at(t, d, "Arguments", "Environment").(map[string]any)
	if env["record_preprocessor_script"] != "/opt/ml/processing/input/record_preprocessor_script_input/pre.py" || env["dataset_format"] != `{"json": {"lines": true}}` {
		t.Errorf("environment %v", env)
	}
	ins := at(t, d, "Arguments", "ProcessingInputs").([]any)
	if len(ins) != 2 || at(t, ins[1], "InputName") != "record_preprocessor_script_input" {
		t.Fatalf("inputs %v", ins)
	}
	uri := at(t, ins[1], "S3Input", "S3Uri").(string)
	found := false
	for _, a := range res.Manifest {
		if a.S3URI == uri && strings.HasSuffix(a.LocalPath, "pre.py") && a.Missing {
			found = true
		}
	}
	if !found {
		t.Errorf("the script %s is not in the manifest as the (missing) local pre.py", uri)
	}
}

// The Clarify checks: the analysis config the SDK's ClarifyCheckStep writes,
// uploaded and mounted at /opt/ml/processing/input/config, the data set at
// /opt/ml/processing/input/data, the report in analysis_result; a model check
// names its model in the step's ModelName.
func TestClarifyCheckAsTheSDKWritesIt(t *testing.T) {
	res, steps := mustCompileCase(t, kindNodes, kindEdges, nil)
	clarify := "205585389593.dkr.ecr.us-east-1.amazonaws.com/sagemaker-clarify-processing:1.0"
	analysis := func(step string) (string, map[string]any) {
		uri := at(t, steps[step], "Arguments", "ProcessingInputs", 0, "S3Input", "S3Uri").(string)
		for _, a := range res.Manifest {
			if a.S3URI == uri {
				var m map[string]any
				if err := json.Unmarshal(a.Content, &m); err != nil {
					t.Fatal(err)
				}
				return uri, m
			}
		}
		t.Fatalf("%s: no analysis config %s in the manifest", step, uri)
		return "", nil
	}
	uri, cfg := analysis("DataBiasCheck")
	eq(t, "DataBiasCheck", steps["DataBiasCheck"], map[string]any{
		"Name": "DataBiasCheck", "Type": "ClarifyCheck",
		"Arguments": map[string]any{
			"ProcessingResources": checkCluster(),
			"AppSpecification":    map[string]any{"ImageUri": clarify},
			"RoleArn":             role,
			"ProcessingInputs": []any{procIn("analysis_config", uri, "/opt/ml/processing/input/config"),
				procIn("dataset", procOut("TabularPreprocessing-Training", "processed_data"), "/opt/ml/processing/input/data")},
			"ProcessingOutputConfig": map[string]any{"Outputs": []any{procOutput("analysis_result",
				compiler.JoinOn("/", prefix, compiler.ExecutionVar("PipelineExecutionId"), "databiascheck", "analysis_result"), "/opt/ml/processing/output")}},
		},
		"DependsOn": []any{"TabularPreprocessing-Training"},
		"CheckType": "DATA_BIAS", "SkipCheck": false, "FailOnViolation": true, "RegisterNewBaseline": false,
	})
	eq(t, "DataBiasCheck analysis config", cfg, map[string]any{
		"dataset_type": "text/csv", "label": "y",
		"label_values_or_threshold": []any{1}, "facet": []any{map[string]any{"name_or_index": "f2", "value_or_threshold": []any{0.5}}},
		"methods": map[string]any{"pre_training_bias": map[string]any{"methods": "all"}, "report": map[string]any{"name": "report", "title": "Analysis Report"}},
	})
	_, cfg = analysis("ModelBiasCheck")
	eq(t, "ModelBiasCheck analysis config", cfg, map[string]any{
		"dataset_type": "text/csv", "label": "y", "headers": []any{"y", "f1", "f2"},
		"label_values_or_threshold": []any{1}, "facet": []any{map[string]any{"name_or_index": "f2"}},
		"methods":               map[string]any{"post_training_bias": map[string]any{"methods": "all"}, "report": map[string]any{"name": "report", "title": "Analysis Report"}},
		"predictor":             map[string]any{"instance_type": "ml.m5.xlarge", "initial_instance_count": 1},
		"probability_threshold": 0.5,
	})
	eq(t, "ModelBiasCheck model", steps["ModelBiasCheck"]["ModelName"], compiler.Get{Get: "Steps.XGBoostModel.ModelName"})
	_, cfg = analysis("ModelExplainabilityCheck")
	eq(t, "ModelExplainabilityCheck analysis config", cfg, map[string]any{
		"dataset_type": "text/csv", "label": "y", "headers": []any{"y", "f1", "f2"},
		"methods": map[string]any{"shap": map[string]any{"use_logit": false, "save_local_shap_values": true, "baseline": []any{[]any{0.1, 0.2}},
			"num_samples": 100, "agg_method": "mean_abs"}, "report": map[string]any{"name": "report", "title": "Analysis Report"}},
		"predictor": map[string]any{"instance_type": "ml.m5.xlarge", "initial_instance_count": 1},
	})
	eq(t, "ModelExplainabilityCheck type", steps["ModelExplainabilityCheck"]["CheckType"], "MODEL_EXPLAINABILITY")
}

// Lambda and Callback steps: the bound inputs and the static values are the
// event (Arguments), FunctionArn / SqsQueueUrl and OutputParameters sit beside
// it, and a later step reads an output parameter through its property.
func TestLambdaAndCallbackAsTheSDKWritesThem(t *testing.T) {
	_, steps := mustCompileCase(t, kindNodes, kindEdges, nil)
	lambdaOut := compiler.Get{Get: "Steps.LambdaInvocation.OutputParameters['output_data']"}
	eq(t, "LambdaInvocation", steps["LambdaInvocation"], map[string]any{
		"Name": "LambdaInvocation", "Type": "Lambda",
		"Arguments":        map[string]any{"input_data": procOut("TabularPreprocessing-Training", "processed_data"), "mode": "full", "limit": 3},
		"DependsOn":        []any{"TabularPreprocessing-Training"},
		"FunctionArn":      "arn:aws:lambda:us-east-1:123456789012:function:stage-data",
		"OutputParameters": []any{map[string]any{"OutputName": "output_data", "OutputType": "String"}},
	})
	eq(t, "ExternalCallback", steps["ExternalCallback"], map[string]any{
		"Name": "ExternalCallback", "Type": "Callback",
		"Arguments":        map[string]any{"input_data": lambdaOut},
		"DependsOn":        []any{"LambdaInvocation"},
		"SqsQueueUrl":      "https://sqs.us-east-1.amazonaws.com/123456789012/review-queue",
		"OutputParameters": []any{map[string]any{"OutputName": "output_data", "OutputType": "String"}},
	})

	// An output a later step reads must be declared.
	_, err := compileCase(t, kindNodes, kindEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, kindNodes, map[string]map[string]any{"LambdaInvocation": {"output_parameters": map[string]any{"status": "Integer"}}})
	})
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "output_parameters" || !strings.Contains(err.Error(), "read by ExternalCallback") {
		t.Errorf("an undeclared output another step reads: %v", err)
	}
	// A static value may not shadow a bound input.
	_, err = compileCase(t, kindNodes, kindEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, kindNodes, map[string]map[string]any{"LambdaInvocation": {"lambda_inputs": map[string]any{"input_data": "x"}}})
	})
	if !errors.As(err, &se) || se.Field != "lambda_inputs.input_data" {
		t.Errorf("a static value named as a bound input: %v", err)
	}
}

// EMR: the step config of AddJobFlowSteps with {input_data} replaced by the
// bound input (alone, or joined into the text around it), on a running
// cluster or on one created for the step; the SDK's checks of the cluster
// settings refuse the same configs.
func TestEMRAsTheSDKWritesIt(t *testing.T) {
	_, steps := mustCompileCase(t, kindNodes, kindEdges, nil)
	in := compiler.Get{Get: "Steps.ExternalCallback.OutputParameters['output_data']"}
	eq(t, "EMRJob", steps["EMRJob"], map[string]any{
		"Name": "EMRJob", "Type": "EMR",
		"Arguments": map[string]any{"StepConfig": map[string]any{"HadoopJarStep": map[string]any{"Jar": "command-runner.jar",
			"Args": []any{"spark-submit", "--deploy-mode", "cluster", "s3://example-bucket/jobs/features.py", "--input", in,
				compiler.JoinOn("", "--out=s3://example-bucket/out/", in)}}},
			"ClusterId": "j-ABCDEF123456"},
		"DependsOn": []any{"ExternalCallback"},
	})
	cluster := map[string]any{"ReleaseLabel": "emr-6.15.0", "Applications": []any{map[string]any{"Name": "Spark"}},
		"Instances":   map[string]any{"InstanceGroups": []any{map[string]any{"InstanceRole": "MASTER", "InstanceType": "m5.xlarge", "InstanceCount": 1}}},
		"JobFlowRole": "EMR_EC2_DefaultRole", "ServiceRole": "EMR_DefaultRole"}
	_, steps = mustCompileCase(t, kindNodes, kindEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, kindNodes, map[string]map[string]any{"EMRJob": {"emr_cluster_id": "", "cluster_config": cluster,
			"emr_main_class": "org.example.Main", "emr_step_properties": map[string]any{"spark.executor.memory": "4g"}}})
	})
	eq(t, "EMRJob on a new cluster", at(t, steps["EMRJob"], "Arguments", "ClusterConfig"), cluster)
	eq(t, "properties", at(t, steps["EMRJob"], "Arguments", "StepConfig", "HadoopJarStep", "Properties"), []any{map[string]any{"Key": "spark.executor.memory", "Value": "4g"}})
	for name, over := range map[string]map[string]any{
		"both clusters":        {"cluster_config": cluster},
		"no cluster":           {"emr_cluster_id": ""},
		"role without cluster": {"emr_cluster_id": "", "cluster_config": cluster, "execution_role_arn": "arn:aws:iam::123456789012:role/EmrRuntime"},
		"named cluster":        {"emr_cluster_id": "", "cluster_config": map[string]any{"Name": "x", "Instances": map[string]any{"InstanceGroups": []any{}}}},
		"keep alive":           {"emr_cluster_id": "", "cluster_config": map[string]any{"Instances": map[string]any{"InstanceGroups": []any{}, "KeepJobFlowAliveWhenNoSteps": true}}},
		"groups and fleets":    {"emr_cluster_id": "", "cluster_config": map[string]any{"Instances": map[string]any{"InstanceGroups": []any{}, "InstanceFleets": []any{}}}},
		"unknown placeholder":  {"emr_args": []any{"spark-submit", "{model_input}"}},
	} {
		_, err := compileCase(t, kindNodes, kindEdges, func(in *compiler.Input) {
			in.Configs = configSetPer(t, kindNodes, map[string]map[string]any{"EMRJob": over})
		})
		var se *compiler.StepBuildError
		if !errors.As(err, &se) || se.Node != "EMRJob" {
			t.Errorf("%s: want a build error of EMRJob, got %v", name, err)
		}
	}
}

package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// This file builds the two check kinds as the SDK's QualityCheckStep and
// ClarifyCheckStep build them: Arguments are the CreateProcessingJob request
// of the job SageMaker runs in its own image (the model monitor analyzer,
// Clarify), with the SDK's fixed container paths, input and output names and
// environment; the step's CheckType, ModelPackageGroupName, SkipCheck,
// FailOnViolation, RegisterNewBaseline and supplied baselines sit beside them.
// An unset ModelPackageGroupName or supplied baseline, which the SDK writes
// as null, is left out: SageMaker reads both alike.

// Container paths and names of the check jobs (the SDK's constants).
const (
	checkInputRoot             = "/opt/ml/processing/input"
	checkOutputDir             = "/opt/ml/processing/output"
	qualityBaselineInput       = "baseline_dataset_input"
	qualityRecordScriptInput   = "record_preprocessor_script_input"
	qualityPostScriptInput     = "post_analytics_processor_script_input"
	qualityOutputName          = "quality_check_output"
	clarifyConfigInput         = "analysis_config"
	clarifyConfigDir           = "/opt/ml/processing/input/config"
	clarifyDataInput           = "dataset"
	clarifyDataDir             = "/opt/ml/processing/input/data"
	clarifyOutputName          = "analysis_result"
	checkDefaultInstanceType   = "ml.m5.xlarge"
	checkDefaultVolumeSizeInGB = 30
)

// The CheckType values of each kind.
var (
	qualityCheckTypes = []string{"DATA_QUALITY", "MODEL_QUALITY"}
	clarifyCheckTypes = []string{"DATA_BIAS", "MODEL_BIAS", "MODEL_EXPLAINABILITY"}
)

// checkJob is the processing job of a check step before its inputs,
// outputs and environment: the SDK's CheckJobConfig.
func (e *buildEnv) checkJob(p *nodePlan, service, version string) (*ProcessingArguments, error) {
	itype, itypeVal, err := e.instanceType(p, checkDefaultInstanceType)
	if err != nil {
		return nil, err
	}
	count, err := e.instanceCount(p, 1)
	if err != nil {
		return nil, err
	}
	volume, err := e.volumeSize(p, checkDefaultVolumeSizeInGB)
	if err != nil {
		return nil, err
	}
	image, literal, err := e.strExpr(p, "image_uri", "")
	if err != nil {
		return nil, err
	}
	if literal && image == "" {
		region, err := e.awsRegion(p)
		if err != nil {
			return nil, err
		}
		uri, err := sagemaker.ServiceImageURI(service, version, region)
		if err != nil {
			return nil, p.imageError("image_uri", fmt.Sprintf("no %s image: %v", service, err), err)
		}
		image = uri
	}
	role, err := e.role(p)
	if err != nil {
		return nil, err
	}
	args := &ProcessingArguments{
		ProcessingResources: ProcessingResources{ClusterConfig: ClusterConfig{InstanceType: itypeVal, InstanceCount: count, VolumeSizeInGB: volume}},
		AppSpecification:    AppSpecification{ImageUri: image},
		RoleArn:             role,
	}
	kms, err := e.kmsKey(p)
	if err != nil {
		return nil, err
	}
	if args.ProcessingResources.ClusterConfig.VolumeKmsKeyId, err = e.volumeKMS(p, kms, itype); err != nil {
		return nil, err
	}
	if kms != nil {
		args.ProcessingOutputConfig = &ProcessingOutputConfig{KmsKeyId: kms}
	}
	if err := e.processingLimits(p, args); err != nil {
		return nil, err
	}
	return args, nil
}

// checkFields reads the step-level keys every check step has.
func (e *buildEnv) checkFields(p *nodePlan, allowed []string) (StepFields, error) {
	var f StepFields
	ct, err := p.Values.str("check_type", "")
	if err != nil {
		return f, err
	}
	if !slices.Contains(allowed, ct) {
		return f, &fieldError{"check_type", fmt.Sprintf("%q is not a CheckType of a %s step (%s)", ct, p.Step.Verb, strings.Join(allowed, ", "))}
	}
	f.CheckType = ct
	if f.ModelPackageGroupName, err = e.optionalExpr(p, "model_package_group_name", ""); err != nil {
		return f, err
	}
	for _, b := range []struct {
		dst   *any
		field string
		def   bool
	}{{&f.SkipCheck, "skip_check", false}, {&f.FailOnViolation, "fail_on_violation", true}, {&f.RegisterNewBaseline, "register_new_baseline", false}} {
		v, err := p.Values.boolean(b.field, b.def)
		if err != nil {
			return f, err
		}
		*b.dst = v
	}
	if f.SuppliedBaselineConstraints, err = e.suppliedBaseline(p, "supplied_baseline_constraints"); err != nil {
		return f, err
	}
	return f, nil
}

// suppliedBaseline is the value of a supplied-baseline input: its binding
// (an upstream check's output, or the config field it is sourced from), or
// nil.
func (e *buildEnv) suppliedBaseline(p *nodePlan, name string) (any, error) {
	port, ok := p.Step.Input(name)
	if !ok {
		return nil, nil
	}
	b, err := e.input(p, *port)
	if err != nil || b == nil {
		return nil, err
	}
	return b.Value, nil
}

// checkInput returns the required input port name of a check step, bound.
func (e *buildEnv) checkInput(p *nodePlan, name string) (any, error) {
	port, ok := p.Step.Input(name)
	if !ok {
		return nil, fmt.Errorf("step type %s has no input %s", p.Step.Type, name)
	}
	b, err := e.input(p, *port)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: name, Detail: unboundHint(*port)}
	}
	return b.Value, nil
}

// buildQualityCheck builds a QualityCheck step: the model monitor analyzer
// baselines the data set bound to baseline_dataset (DATA_QUALITY: its
// statistics; MODEL_QUALITY: the model's metrics from its predictions and
// the ground truth) into quality_check_output.
func (e *buildEnv) buildQualityCheck(p *nodePlan) (*withStepFields, error) {
	fields, err := e.checkFields(p, qualityCheckTypes)
	if err != nil {
		return nil, err
	}
	if fields.SuppliedBaselineStatistics, err = e.suppliedBaseline(p, "supplied_baseline_statistics"); err != nil {
		return nil, err
	}
	args, err := e.checkJob(p, sagemaker.ServiceModelMonitor, "")
	if err != nil {
		return nil, err
	}
	dataset, err := e.checkInput(p, "baseline_dataset")
	if err != nil {
		return nil, err
	}
	datasetDir := checkInputRoot + "/" + qualityBaselineInput
	args.ProcessingInputs = append(args.ProcessingInputs, processingInput(qualityBaselineInput, dataset, datasetDir))
	post, err := e.checkScript(p, "post_analytics_processor_script", qualityPostScriptInput)
	if err != nil {
		return nil, err
	}
	if post != nil {
		args.ProcessingInputs = append(args.ProcessingInputs, post.input)
	}
	var record *checkScript
	if fields.CheckType == "DATA_QUALITY" {
		if record, err = e.checkScript(p, "record_preprocessor_script", qualityRecordScriptInput); err != nil {
			return nil, err
		}
		if record != nil {
			args.ProcessingInputs = append(args.ProcessingInputs, record.input)
		}
	}
	dest, err := e.outputDestination(p, qualityOutputName)
	if err != nil {
		return nil, err
	}
	out := ProcessingOutput{OutputName: qualityOutputName, S3Output: ProcessingS3Output{
		S3Uri: dest, LocalPath: checkOutputDir, S3UploadMode: "EndOfJob"}}
	if args.ProcessingOutputConfig == nil {
		args.ProcessingOutputConfig = &ProcessingOutputConfig{}
	}
	args.ProcessingOutputConfig.Outputs = []ProcessingOutput{out}

	env, err := e.configEnv(p)
	if err != nil {
		return nil, err
	}
	format, err := datasetFormat(p)
	if err != nil {
		return nil, err
	}
	env["output_path"] = checkOutputDir
	env["publish_cloudwatch_metrics"] = "Disabled"
	env["dataset_format"] = format
	if record != nil {
		env["record_preprocessor_script"] = record.containerPath
	}
	if post != nil {
		env["post_analytics_processor_script"] = post.containerPath
	}
	env["dataset_source"] = datasetDir
	if fields.CheckType == "MODEL_QUALITY" {
		env["analysis_type"] = "MODEL_QUALITY"
		problem, err := e.enumExpr(p, "problem_type", "", "BinaryClassification", "MulticlassClassification", "Regression")
		if err != nil {
			return nil, err
		}
		if problem == "" {
			return nil, &fieldError{"problem_type", "a MODEL_QUALITY check needs problem_type (BinaryClassification, MulticlassClassification or Regression)"}
		}
		env["problem_type"] = problem
		for _, f := range []string{"inference_attribute", "probability_attribute", "ground_truth_attribute", "probability_threshold_attribute"} {
			v, err := e.optionalText(p, f)
			if err != nil {
				return nil, err
			}
			if v != nil {
				env[f] = v
			}
		}
	}
	if err := checkEnv(p, env, 256); err != nil {
		return nil, err
	}
	args.Environment = env
	return &withStepFields{Arguments: args, Fields: fields}, nil
}

// configEnv is the config's env map (CheckJobConfig env), each value
// rendered as an environment value.
func (e *buildEnv) configEnv(p *nodePlan) (map[string]any, error) {
	extra, err := p.Values.objectOrRefs("env")
	if err != nil {
		return nil, err
	}
	env := map[string]any{}
	for _, k := range mapkeys.Sorted(extra) {
		if env[k], err = e.textExpr("env."+k, extra[k]); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// optionalText is a field rendered as text (a number as the SDK's str()
// does), or a String parameter; nil when unset.
func (e *buildEnv) optionalText(p *nodePlan, field string) (any, error) {
	x, ok := p.Values.lookup(field)
	if !ok || x == nil {
		return nil, nil
	}
	if s, isStr := x.(string); isStr && s == "" {
		return nil, nil
	}
	if name, isRef := paramRefName(x); isRef {
		prm, err := e.param(field, x.(string), name)
		if err != nil {
			return nil, err
		}
		if prm.Type != "String" {
			return nil, &fieldError{field, fmt.Sprintf("%s cannot be a %s parameter, only a String one (the container reads it as text)", field, prm.Type)}
		}
		return Param(name), nil
	}
	return e.textExpr(field, x)
}

// checkScript is a script a check job runs (a record preprocessor, a post
// analytics processor): the processing input that mounts it and its path
// in the container.
type checkScript struct {
	input         ProcessingInput
	containerPath string
}

// checkScript reads a script field: an S3 URI is used as is, a local path
// (relative to the source directory or the config's folder) is uploaded.
// It is mounted under /opt/ml/processing/input/<name>.
func (e *buildEnv) checkScript(p *nodePlan, field, name string) (*checkScript, error) {
	src, err := p.Values.str(field, "")
	if err != nil || src == "" {
		return nil, err
	}
	uri := src
	base := path.Base(src)
	if !strings.HasPrefix(src, "s3://") {
		local, err := e.resolveConfigPath(p, src)
		if err != nil {
			return nil, err
		}
		base = filepath.Base(local)
		u, a, err := e.artifacts.add(p.Name, KindFile, local, base)
		if err != nil {
			return nil, err
		}
		if a.Missing {
			e.warnf("step %s: %s %q does not exist locally; upload will refuse until it does", p.Name, field, src)
		}
		uri = u
	}
	dir := checkInputRoot + "/" + name
	return &checkScript{input: processingInput(name, uri, dir), containerPath: dir + "/" + base}, nil
}

// datasetFormat renders dataset_format as the SDK does (json.dumps of the
// DatasetFormat dict), after checking its shape: {csv: {header,
// output_columns_position}}, {json: {lines}} or {parquet: {}}.
func datasetFormat(p *nodePlan) (string, error) {
	m, err := p.Values.object("dataset_format")
	if err != nil {
		return "", err
	}
	if m == nil {
		m = map[string]any{"csv": map[string]any{"header": true, "output_columns_position": "START"}}
	}
	if len(m) != 1 {
		return "", &fieldError{"dataset_format", fmt.Sprintf("holds one format, csv, json or parquet; found %s", strings.Join(mapkeys.Sorted(m), ", "))}
	}
	allowed := map[string][]string{"csv": {"header", "output_columns_position"}, "json": {"lines"}, "parquet": {}}
	for k, v := range m {
		keys, ok := allowed[k]
		if !ok {
			return "", &fieldError{"dataset_format", fmt.Sprintf("%q is not a data set format (csv, json or parquet)", k)}
		}
		opts, ok := v.(map[string]any)
		if !ok {
			return "", &fieldError{"dataset_format." + k, fmt.Sprintf("the options of %s are an object, not %s", k, jsonKind(v))}
		}
		for o, ov := range opts {
			if !slices.Contains(keys, o) {
				return "", &fieldError{"dataset_format." + k + "." + o, fmt.Sprintf("is not an option of %s (%s)", k, strings.Join(keys, ", "))}
			}
			if o == "output_columns_position" && ov != "START" && ov != "END" {
				return "", &fieldError{"dataset_format." + k + "." + o, "is START or END"}
			}
			if (o == "header" || o == "lines") && !isBool(ov) {
				return "", &fieldError{"dataset_format." + k + "." + o, "is true or false"}
			}
		}
	}
	return pyJSON(m), nil
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// pyJSON renders a JSON value as Python's json.dumps does with its default
// separators (", " and ": ") and ensure_ascii; object keys are sorted.
func pyJSON(v any) string {
	var b strings.Builder
	writePyJSON(&b, v)
	return b.String()
}

func writePyJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, k)
			b.WriteString(": ")
			writePyJSON(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, it)
		}
		b.WriteByte(']')
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		s := strings.TrimSuffix(buf.String(), "\n")
		for _, r := range s {
			if r < utf8.RuneSelf {
				b.WriteRune(r)
				continue
			}
			for _, u := range utf16Units(r) {
				fmt.Fprintf(b, "\\u%04x", u)
			}
		}
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		out, _ := json.Marshal(x)
		b.Write(out)
	}
}

// utf16Units are the UTF-16 code units of r (a surrogate pair above the BMP).
func utf16Units(r rune) []rune {
	if r < 0x10000 {
		return []rune{r}
	}
	r -= 0x10000
	return []rune{0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF}
}

// buildClarifyCheck builds a ClarifyCheck step: the analysis config the
// SDK's ClarifyCheckStep writes (the data set's DataConfig, the bias or SHAP
// analysis, the model's predictor config less its name) is uploaded and
// mounted at /opt/ml/processing/input/config, the data set bound to dataset
// at /opt/ml/processing/input/data, and Clarify writes its report to
// analysis_result. A model check names its model in the step's ModelName,
// the bound model_name input.
func (e *buildEnv) buildClarifyCheck(p *nodePlan) (*withStepFields, error) {
	fields, err := e.checkFields(p, clarifyCheckTypes)
	if err != nil {
		return nil, err
	}
	version, err := p.Values.str("clarify_version", "1.0")
	if err != nil {
		return nil, err
	}
	args, err := e.checkJob(p, sagemaker.ServiceClarify, version)
	if err != nil {
		return nil, err
	}
	dataset, err := e.checkInput(p, "dataset")
	if err != nil {
		return nil, err
	}
	analysis, err := clarifyAnalysisConfig(p, fields.CheckType)
	if err != nil {
		return nil, err
	}
	if fields.CheckType != "DATA_BIAS" {
		if fields.ModelName, err = e.checkInput(p, "model_name"); err != nil {
			return nil, err
		}
	}
	content, err := json.MarshalIndent(analysis, "", "  ")
	if err != nil {
		return nil, err
	}
	configURI := e.artifacts.addGenerated(p.Name, "config:"+string(p.ConfigKey)+".analysis_config", "analysis_config.json", append(content, '\n'))
	args.ProcessingInputs = []ProcessingInput{
		processingInput(clarifyConfigInput, configURI, clarifyConfigDir),
		processingInput(clarifyDataInput, dataset, clarifyDataDir),
	}
	mode := "EndOfJob"
	if analysis["dataset_type"] == "application/x-image" {
		mode = "Continuous"
	}
	if args.ProcessingOutputConfig == nil {
		args.ProcessingOutputConfig = &ProcessingOutputConfig{}
	}
	dest, err := e.outputDestination(p, clarifyOutputName)
	if err != nil {
		return nil, err
	}
	args.ProcessingOutputConfig.Outputs = []ProcessingOutput{{OutputName: clarifyOutputName, S3Output: ProcessingS3Output{
		S3Uri: dest, LocalPath: checkOutputDir, S3UploadMode: mode}}}
	env, err := e.configEnv(p)
	if err != nil {
		return nil, err
	}
	if len(env) > 0 {
		if err := checkEnv(p, env, 256); err != nil {
			return nil, err
		}
		args.Environment = env
	}
	return &withStepFields{Arguments: args, Fields: fields}, nil
}

// clarifyAnalysisConfig is the analysis config of a Clarify check, key for
// key as the SDK's ClarifyCheckStep makes it from DataConfig, BiasConfig,
// ModelConfig, ModelPredictedLabelConfig and SHAPConfig. It is written into
// a file when the pipeline is built, so no value of it may be a pipeline
// parameter.
func clarifyAnalysisConfig(p *nodePlan, checkType string) (map[string]any, error) {
	v := p.Values
	get := func(field string) (any, bool, error) {
		x, ok := v.lookup(field)
		if !ok || x == nil {
			return nil, false, nil
		}
		if s, isStr := x.(string); isStr && s == "" {
			return nil, false, nil
		}
		if at, ref, found := findRef(field, x); found {
			return nil, false, refusedRef(at, ref)
		}
		return x, true, nil
	}
	set := func(dst map[string]any, key, field string) error {
		x, ok, err := get(field)
		if ok {
			dst[key] = x
		}
		return err
	}
	cfg := map[string]any{}
	dtype, err := v.str("dataset_type", "text/csv")
	if err != nil {
		return nil, err
	}
	cfg["dataset_type"] = dtype
	for _, kf := range [][2]string{{"features", "features"}, {"headers", "headers"}, {"label", "label_name"}, {"excluded_columns", "excluded_columns"}} {
		if err := set(cfg, kf[0], kf[1]); err != nil {
			return nil, err
		}
	}
	if dtype == "application/json" && cfg["features"] == nil {
		return nil, &fieldError{"features", "a data set of type application/json needs features (the JMESPath of the features)"}
	}
	if _, ok := cfg["excluded_columns"]; ok && dtype == "application/x-image" {
		return nil, &fieldError{"excluded_columns", "excluded_columns applies to tabular data sets, not images"}
	}

	bias := func() error {
		labels, ok, err := get("label_values_or_threshold")
		if err != nil {
			return err
		}
		if list, isList := labels.([]any); !ok || !isList || len(list) == 0 {
			return &fieldError{"label_values_or_threshold", "a bias check needs the positive label values, or one threshold, as a non-empty list"}
		}
		cfg["label_values_or_threshold"] = labels
		facets, err := clarifyFacets(get)
		if err != nil {
			return err
		}
		cfg["facet"] = facets
		return set(cfg, "group_variable", "group_name")
	}
	methods := func() (any, error) {
		m, ok, err := get("methods")
		if !ok || err != nil {
			return "all", err
		}
		return m, nil
	}
	var predictor map[string]any
	if checkType != "DATA_BIAS" {
		if predictor, err = clarifyPredictor(p, get); err != nil {
			return nil, err
		}
	}
	switch checkType {
	case "DATA_BIAS":
		if err := bias(); err != nil {
			return nil, err
		}
		m, err := methods()
		if err != nil {
			return nil, err
		}
		cfg["methods"] = map[string]any{"pre_training_bias": map[string]any{"methods": m}}
	case "MODEL_BIAS":
		if err := bias(); err != nil {
			return nil, err
		}
		for _, kf := range [][2]string{{"label", "predicted_label"}, {"probability", "probability"}, {"label_headers", "label_headers"}} {
			if err := set(predictor, kf[0], kf[1]); err != nil {
				return nil, err
			}
		}
		m, err := methods()
		if err != nil {
			return nil, err
		}
		cfg["methods"] = map[string]any{"post_training_bias": map[string]any{"methods": m}}
		cfg["predictor"] = predictor
		if err := set(cfg, "probability_threshold", "probability_threshold"); err != nil {
			return nil, err
		}
	case "MODEL_EXPLAINABILITY":
		if err := set(predictor, "label", "model_scores"); err != nil {
			return nil, err
		}
		shap, err := clarifySHAP(v, get)
		if err != nil {
			return nil, err
		}
		cfg["methods"] = shap
		cfg["predictor"] = predictor
	}
	cfg["methods"].(map[string]any)["report"] = map[string]any{"name": "report", "title": "Analysis Report"}
	return cfg, nil
}

// clarifyFacets is BiasConfig's facet list: one {name_or_index,
// value_or_threshold?} per facet of facet_name (a name or a list) with the
// matching entry of facet_values_or_threshold.
func clarifyFacets(get func(string) (any, bool, error)) ([]any, error) {
	name, ok, err := get("facet_name")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &fieldError{"facet_name", "a bias check needs facet_name, the sensitive column (or a list of them)"}
	}
	values, hasValues, err := get("facet_values_or_threshold")
	if err != nil {
		return nil, err
	}
	names, isList := name.([]any)
	if !isList {
		f := map[string]any{"name_or_index": name}
		if hasValues {
			f["value_or_threshold"] = values
		}
		return []any{f}, nil
	}
	if len(names) == 0 {
		return nil, &fieldError{"facet_name", "names at least one facet"}
	}
	vals, _ := values.([]any)
	if hasValues && len(vals) != len(names) {
		return nil, &fieldError{"facet_values_or_threshold", fmt.Sprintf("has %d entries for %d facets: one list of values (or a threshold) per facet", len(vals), len(names))}
	}
	out := make([]any, len(names))
	for i, n := range names {
		f := map[string]any{"name_or_index": n}
		if hasValues && vals[i] != nil {
			f["value_or_threshold"] = vals[i]
		}
		out[i] = f
	}
	return out, nil
}

// clarifyPredictor is ModelConfig's predictor config less its model name
// (the step's ModelName carries it): the shadow endpoint's instance type
// and count, then the request and response settings.
func clarifyPredictor(p *nodePlan, get func(string) (any, bool, error)) (map[string]any, error) {
	itype, err := p.Values.str("clarify_model_instance_type", checkDefaultInstanceType)
	if err != nil {
		return nil, err
	}
	count, err := p.Values.integer("clarify_model_instance_count", 1)
	if err != nil {
		return nil, err
	}
	pc := map[string]any{"instance_type": itype, "initial_instance_count": count}
	for _, f := range []string{"endpoint_name_prefix", "accept_type", "content_type", "content_template", "record_template", "custom_attributes", "accelerator_type", "target_model"} {
		x, ok, err := get(f)
		if err != nil {
			return nil, err
		}
		if ok {
			pc[f] = x
		}
	}
	ct, _ := pc["content_type"].(string)
	tmpl, _ := pc["content_template"].(string)
	switch {
	case ct == "application/jsonlines" && !strings.Contains(tmpl, "$features"):
		return nil, &fieldError{"content_template", "content_type application/jsonlines needs a content_template holding $features"}
	case ct == "application/json" && (pc["record_template"] == nil || !strings.Contains(tmpl, "$record")):
		return nil, &fieldError{"content_template", "content_type application/json needs content_template (with $record or $records) and record_template"}
	}
	return pc, nil
}

// clarifySHAP is SHAPConfig's {"shap": ...}: use_logit and
// save_local_shap_values always, then the optional settings.
func clarifySHAP(v Values, get func(string) (any, bool, error)) (map[string]any, error) {
	useLogit, err := v.boolean("use_logit", false)
	if err != nil {
		return nil, err
	}
	saveLocal, err := v.boolean("save_local_shap_values", true)
	if err != nil {
		return nil, err
	}
	shap := map[string]any{"use_logit": useLogit, "save_local_shap_values": saveLocal}
	for _, kf := range [][2]string{{"baseline", "shap_baseline"}, {"num_samples", "num_samples"}, {"agg_method", "agg_method"}, {"seed", "seed"}, {"num_clusters", "num_clusters"}, {"features_to_explain", "features_to_explain"}} {
		x, ok, err := get(kf[1])
		if err != nil {
			return nil, err
		}
		if ok {
			shap[kf[0]] = x
		}
	}
	if shap["baseline"] != nil && shap["num_clusters"] != nil {
		return nil, &fieldError{"num_clusters", "shap_baseline and num_clusters exclude each other: give one"}
	}
	return map[string]any{"shap": shap}, nil
}

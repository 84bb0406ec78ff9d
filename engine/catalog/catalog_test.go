package catalog

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

func mustDefault(t testing.TB) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	return c
}

func mustStep(t testing.TB, c *Catalog, name StepType) *Step {
	t.Helper()
	s, ok := c.Step(name)
	if !ok {
		t.Fatalf("step %s missing", name)
	}
	return s
}

func TestEmbeddedCatalogLoads(t *testing.T) {
	c := mustDefault(t)
	if c.Len() < 32 {
		t.Fatalf("want at least 32 step types, got %d", c.Len())
	}
	verbs := map[Verb]int{}
	for _, s := range c.Steps() {
		verbs[s.Verb]++
		if s.WorkspaceID != CoreWorkspace || !strings.HasPrefix(s.Source, "embedded:") {
			t.Errorf("%s: workspace %q source %q", s.Type, s.WorkspaceID, s.Source)
		}
	}
	for _, v := range Verbs {
		if verbs[v] == 0 {
			t.Errorf("no step with verb %s", v)
		}
	}
	names := c.Names()
	if !sort.SliceIsSorted(names, func(i, j int) bool { return names[i] < names[j] }) {
		t.Errorf("Names not sorted: %v", names)
	}
	// Every step of the list is present.
	for _, n := range []StepType{"DummyDataLoading", "RedshiftDataLoading", "AthenaDataLoading", "TabularPreprocessing",
		"StratifiedSampling", "MissingValueImputation", "RiskTableMapping", "FeatureSelection", "CurrencyConversion",
		"XGBoostTraining", "LightGBMTraining", "PyTorchTraining", "XGBoostTuning", "XGBoostModelEval", "LightGBMModelEval",
		"PyTorchModelEval", "ModelCalibration", "PercentileModelCalibration", "ModelMetricsComputation", "XGBoostModel",
		"PyTorchModel", "LightGBMModel", "BatchTransform", "Package", "Payload", "Registration", "DummyTraining",
		"DummyDataGeneration", "XGBoostModelInference", "LightGBMModelInference", "PyTorchModelInference"} {
		mustStep(t, c, n)
	}
	if s := mustStep(t, c, "Registration"); s.Verb != VerbRegisterModel || s.Kind != NodeSink {
		t.Errorf("Registration: verb %s kind %s", s.Verb, s.Kind)
	}
}

// The invariants below are checked independently of the loader's own
// validation, with tables written from the SageMaker conventions.
var (
	wantInputRoots = map[Verb][]string{
		VerbProcessing: {"/opt/ml/processing/input/"},
		VerbTraining:   {"/opt/ml/input/data", "/opt/ml/input/config", "/opt/ml/code"},
		VerbTuning:     {"/opt/ml/input/data", "/opt/ml/input/config", "/opt/ml/code"},
	}
	wantOutputRoots = map[Verb][]string{
		VerbProcessing: {"/opt/ml/processing/output"},
		VerbTraining:   {"/opt/ml/model", "/opt/ml/output/data", "/opt/ml/checkpoints"},
		VerbTuning:     {"/opt/ml/model", "/opt/ml/output/data", "/opt/ml/checkpoints"},
	}
	propPathRE = regexp.MustCompile(`^properties(\.[A-Z][A-Za-z0-9]*(\['[A-Za-z0-9_]+'\]|\[[0-9]+\])?)+$`)
)

func hasRoot(p string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
}

// views returns the base step and every job-type view.
func views(s *Step) []*Step {
	out := []*Step{s}
	for _, jt := range mapkeys.Sorted(s.Variants) {
		out = append(out, s.ForJobType(jt))
	}
	return out
}

func TestEveryStepObeysInvariants(t *testing.T) {
	c := mustDefault(t)
	for _, base := range c.Steps() {
		for _, s := range views(base) {
			name := string(s.Type)
			if s.JobType != "" {
				name += "/" + s.JobType
			}
			t.Run(name, func(t *testing.T) { checkStepInvariants(t, c, s) })
		}
	}
}

func checkStepInvariants(t *testing.T, c *Catalog, s *Step) {
	// Ports: unique names, container paths under the verb's roots.
	seen := map[string]bool{}
	for _, in := range s.Inputs {
		if seen[in.LogicalName] {
			t.Errorf("input %s declared twice", in.LogicalName)
		}
		seen[in.LogicalName] = true
		roots, hasContainer := wantInputRoots[s.Verb]
		switch {
		case !hasContainer && in.ContainerPath != "":
			t.Errorf("input %s: a %s step has no container but path is %q", in.LogicalName, s.Verb, in.ContainerPath)
		case hasContainer && !hasRoot(in.ContainerPath, roots):
			t.Errorf("input %s: path %q not under %v", in.LogicalName, in.ContainerPath, roots)
		}
		if strings.HasPrefix(in.ContainerPath, "/opt/ml/processing/input/code") {
			t.Errorf("input %s uses the script directory", in.LogicalName)
		}
		for _, src := range in.CompatibleSources {
			_, real := c.Step(StepType(src))
			_, generic := GenericSources[src]
			if !real && !generic {
				t.Errorf("input %s: compatible source %q is not a step or generic token", in.LogicalName, src)
			}
		}
		if len(in.Channels) > 0 && s.Verb != VerbTraining && s.Verb != VerbTuning {
			t.Errorf("input %s: channels on a %s step", in.LogicalName, s.Verb)
		}
		if in.ConfigSource != "" {
			if _, ok := s.Field(in.ConfigSource); !ok {
				t.Errorf("input %s: config_source %q is not a field", in.LogicalName, in.ConfigSource)
			}
		}
		if in.Description == "" {
			t.Errorf("input %s has no description", in.LogicalName)
		}
	}
	seen = map[string]bool{}
	for _, o := range s.Outputs {
		if seen[o.LogicalName] {
			t.Errorf("output %s declared twice", o.LogicalName)
		}
		seen[o.LogicalName] = true
		roots, hasContainer := wantOutputRoots[s.Verb]
		switch {
		case !hasContainer && o.ContainerPath != "":
			t.Errorf("output %s: a %s step has no container but path is %q", o.LogicalName, s.Verb, o.ContainerPath)
		case hasContainer && o.ContainerPath == "" && o.Type != DepCustomProperty:
			t.Errorf("output %s has no container path", o.LogicalName)
		case hasContainer && o.ContainerPath != "" && !hasRoot(o.ContainerPath, roots):
			t.Errorf("output %s: path %q not under %v", o.LogicalName, o.ContainerPath, roots)
		}
		if !propPathRE.MatchString(o.PropertyPath) {
			t.Errorf("output %s: malformed property path %q", o.LogicalName, o.PropertyPath)
		}
		if s.Verb == VerbProcessing {
			want := fmt.Sprintf("properties.ProcessingOutputConfig.Outputs['%s'].S3Output.S3Uri", o.LogicalName)
			if o.PropertyPath != want {
				t.Errorf("output %s: property path %q, want %q", o.LogicalName, o.PropertyPath, want)
			}
		}
	}
	if s.Kind == NodeSink && len(s.Outputs) != 0 {
		t.Errorf("sink with outputs")
	}
	if s.Kind == NodeSource {
		for _, in := range s.Inputs {
			if in.ConfigSource == "" {
				t.Errorf("source step has upstream input %s", in.LogicalName)
			}
		}
	}
	// Training channels are unique.
	if s.Verb == VerbTraining || s.Verb == VerbTuning {
		ch := map[string]bool{}
		for i := range s.Inputs {
			for _, x := range s.Channels(&s.Inputs[i]) {
				if ch[x] {
					t.Errorf("channel %s fed twice", x)
				}
				ch[x] = true
			}
		}
	}
	// Fields: defaults obey type, allowed values, bounds and pattern.
	names := map[string]bool{}
	for _, f := range s.Fields {
		if names[f.Name] {
			t.Errorf("field %s twice", f.Name)
		}
		names[f.Name] = true
		if f.Description == "" {
			t.Errorf("field %s has no description", f.Name)
		}
		switch f.Tier {
		case TierEssential:
			if f.Default != nil {
				t.Errorf("essential field %s has default %v", f.Name, f.Default)
			}
		case TierDerived:
			if f.Derivation == "" {
				t.Errorf("derived field %s has no template", f.Name)
			}
		case TierSystem:
		default:
			t.Errorf("field %s: bad tier %q", f.Name, f.Tier)
		}
		if f.Default != nil {
			if msg := independentCheck(f, f.Default); msg != "" {
				t.Errorf("field %s default %v: %s", f.Name, f.Default, msg)
			}
		}
		for _, a := range f.Allowed {
			if msg := typeOK(f.Type, a); msg != "" {
				t.Errorf("field %s allowed value %v: %s", f.Name, a, msg)
			}
		}
	}
	// Compute and contract name real fields; env vars are producible.
	for _, ref := range []string{s.Compute.FrameworkVersionField, s.Compute.PyVersionField, s.Compute.InstanceTypeField,
		s.Compute.LargeInstanceTypeField, s.Compute.SmallInstanceTypeField, s.Compute.UseLargeInstanceField,
		s.Compute.InstanceCountField, s.Compute.VolumeSizeField, s.Compute.ImageURIField, s.Compute.FrameworkField,
		s.Contract.EntryPointField, s.Contract.SourceDirField, s.Patterns.NameSuffixField} {
		if ref != "" && !names[ref] {
			t.Errorf("references unknown field %q", ref)
		}
	}
	switch s.Verb {
	case VerbProcessing:
		if s.Compute.InstanceTypeField == "" && s.Compute.UseLargeInstanceField == "" {
			t.Errorf("Processing step without instance type fields")
		}
		if s.Compute.InstanceCountField == "" || s.Compute.VolumeSizeField == "" {
			t.Errorf("Processing step without count/volume fields")
		}
	case VerbTraining, VerbTuning, VerbTransform:
		if s.Compute.InstanceTypeField == "" || s.Compute.InstanceCountField == "" {
			t.Errorf("%s step without instance type/count fields", s.Verb)
		}
	}
	if s.Verb == VerbProcessing || s.Verb == VerbTraining || s.Verb == VerbTuning {
		if !strings.HasSuffix(s.Contract.EntryPoint, ".py") {
			t.Errorf("entry point %q", s.Contract.EntryPoint)
		}
		if f, ok := s.Field(s.Contract.EntryPointField); !ok || (f.Default != nil && f.Default != s.Contract.EntryPoint) {
			t.Errorf("entry point field %q does not hold %q", s.Contract.EntryPointField, s.Contract.EntryPoint)
		}
	}
	for _, e := range s.Contract.Env {
		field := e.Field
		if field == "" && e.Required {
			t.Errorf("required env %s has no field", e.Name)
			continue
		}
		if field == "" {
			continue
		}
		f, ok := s.Field(field)
		if !ok {
			t.Errorf("env %s reads unknown field %s", e.Name, field)
			continue
		}
		if e.Field != strings.ToLower(e.Name) {
			// declared otherwise: fine, but it must be explicit in the file (not checked here)
		}
		if e.Required && f.Tier == TierSystem && f.Default == nil && f.Derivation == "" {
			t.Errorf("required env %s reads optional field %s without default", e.Name, field)
		}
		if !e.Required && f.Default != nil && e.Default != EnvValue(f.Default) {
			t.Errorf("env %s default %q != field default %v", e.Name, e.Default, f.Default)
		}
	}
	for _, a := range s.Contract.JobArguments {
		if !names[a.Source] {
			t.Errorf("job argument %s reads unknown field %s", a.Flag, a.Source)
		}
	}
	if s.ConfigClass == "" || s.BuilderName == "" {
		t.Errorf("naming not filled: %q %q", s.ConfigClass, s.BuilderName)
	}
}

func typeOK(t FieldType, v any) string {
	switch t {
	case FieldString:
		if _, ok := v.(string); !ok {
			return "not a string"
		}
	case FieldInt:
		if n, ok := v.(int); !ok {
			if f, ok := v.(float64); !ok || f != math.Trunc(f) {
				return "not an int"
			}
		} else {
			_ = n
		}
	case FieldFloat:
		switch v.(type) {
		case int, float64:
		default:
			return "not a number"
		}
	case FieldBool:
		if _, ok := v.(bool); !ok {
			return "not a bool"
		}
	case FieldList:
		if _, ok := v.([]any); !ok {
			return "not a list"
		}
	case FieldMap:
		if _, ok := v.(map[string]any); !ok {
			return "not a map"
		}
	}
	return ""
}

func independentCheck(f ConfigField, v any) string {
	if msg := typeOK(f.Type, v); msg != "" {
		return msg
	}
	if len(f.Allowed) > 0 {
		found := false
		for _, a := range f.Allowed {
			if fmt.Sprint(a) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			return "not allowed"
		}
	}
	var n float64
	switch x := v.(type) {
	case int:
		n = float64(x)
	case float64:
		n = x
	default:
		if s, ok := v.(string); ok && f.Pattern != "" && !regexp.MustCompile(f.Pattern).MatchString(s) {
			return "does not match pattern"
		}
		return ""
	}
	if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
		return "out of bounds"
	}
	return ""
}

func TestStepsMarshalToJSON(t *testing.T) {
	c := mustDefault(t)
	for _, s := range c.Steps() {
		for _, v := range views(s) {
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%s: %v", v, err)
			}
		}
	}
}

// portsWant pins the logical port names of the core steps, which DAGs,
// configs and scripts name.
func TestCorePortNames(t *testing.T) {
	c := mustDefault(t)
	type port struct {
		name     string
		required bool
		typ      DependencyType
	}
	tests := []struct {
		step    StepType
		inputs  []port
		outputs map[string]string // name -> property path ("" = don't care)
	}{
		{"TabularPreprocessing",
			[]port{{"DATA", true, DepProcessingOutput}, {"DATA_SECONDARY", false, DepProcessingOutput}, {"SIGNATURE", false, DepProcessingOutput}},
			map[string]string{"processed_data": "properties.ProcessingOutputConfig.Outputs['processed_data'].S3Output.S3Uri"}},
		{"CradleDataLoading", []port{{"data_sources_spec", true, DepCustomProperty}, {"transform_spec", true, DepCustomProperty}, {"output_spec", true, DepCustomProperty}, {"cradle_job_spec", false, DepCustomProperty}},
			map[string]string{"DATA": "", "METADATA": "", "SIGNATURE": ""}},
		{"DummyDataLoading", []port{{"INPUT_DATA", true, DepProcessingOutput}},
			map[string]string{"DATA": "", "METADATA": "", "SIGNATURE": ""}},
		{"XGBoostTraining",
			[]port{{"input_path", true, DepTrainingData}, {"hyperparameters_s3_uri", false, DepHyperparameters}, {"model_artifacts_input", false, DepProcessingOutput}},
			map[string]string{"model_output": "properties.ModelArtifacts.S3ModelArtifacts", "evaluation_output": "properties.OutputDataConfig.S3OutputPath"}},
		{"XGBoostModel", []port{{"model_data", true, DepModelArtifacts}}, map[string]string{"model_name": "properties.ModelName"}},
		{"PyTorchModel", []port{{"model_data", true, DepModelArtifacts}}, map[string]string{"model_name": "properties.ModelName"}},
		{"BatchTransform", []port{{"model_name", true, DepCustomProperty}, {"processed_data", true, DepProcessingOutput}},
			map[string]string{"transform_output": "properties.TransformOutput.S3OutputPath"}},
		{"Registration", []port{{"PackagedModel", true, DepModelArtifacts}, {"GeneratedPayloadSamples", true, DepPayloadSamples}}, map[string]string{}},
		{"XGBoostModelEval", []port{{"model_input", true, DepModelArtifacts}, {"processed_data", true, DepProcessingOutput}},
			map[string]string{"eval_output": "", "metrics_output": ""}},
		{"ModelCalibration", []port{{"evaluation_data", true, DepProcessingOutput}},
			map[string]string{"calibration_output": "", "metrics_output": "", "calibrated_data": ""}},
		{"Package", []port{{"model_input", true, DepModelArtifacts}, {"inference_scripts_input", false, DepCustomProperty}, {"calibration_model", false, DepProcessingOutput}},
			map[string]string{"packaged_model": ""}},
		{"Payload", []port{{"model_input", true, DepModelArtifacts}, {"custom_payload_input", false, DepCustomProperty}, {"field_defaults", false, DepCustomProperty}},
			map[string]string{"payload_sample": ""}},
		{"RiskTableMapping", []port{{"input_data", true, DepProcessingOutput}, {"hyperparameters_s3_uri", false, DepHyperparameters}, {"model_artifacts_input", false, DepProcessingOutput}},
			map[string]string{"processed_data": "", "model_artifacts_output": ""}},
		{"MissingValueImputation", []port{{"input_data", true, DepProcessingOutput}, {"model_artifacts_input", false, DepProcessingOutput}, {"column_strategies", false, DepCustomProperty}},
			map[string]string{"processed_data": "", "model_artifacts_output": ""}},
		{"StratifiedSampling", []port{{"input_data", true, DepProcessingOutput}}, map[string]string{"processed_data": ""}},
		{"ModelMetricsComputation", []port{{"eval_output", true, DepProcessingOutput}}, map[string]string{"metrics_output": "", "plots_output": ""}},
	}
	for _, tc := range tests {
		s := mustStep(t, c, tc.step)
		if len(s.Inputs) != len(tc.inputs) {
			t.Errorf("%s: %d inputs, want %d", tc.step, len(s.Inputs), len(tc.inputs))
		}
		for _, p := range tc.inputs {
			in, ok := s.Input(p.name)
			if !ok {
				t.Errorf("%s: no input %s", tc.step, p.name)
				continue
			}
			if in.Required != p.required || in.Type != p.typ {
				t.Errorf("%s.%s: required %v type %s, want %v %s", tc.step, p.name, in.Required, in.Type, p.required, p.typ)
			}
		}
		if len(s.Outputs) != len(tc.outputs) {
			t.Errorf("%s: %d outputs, want %d", tc.step, len(s.Outputs), len(tc.outputs))
		}
		for name, pp := range tc.outputs {
			o, ok := s.Output(name)
			if !ok {
				t.Errorf("%s: no output %s", tc.step, name)
				continue
			}
			if pp != "" && o.PropertyPath != pp {
				t.Errorf("%s.%s: property path %q, want %q", tc.step, name, o.PropertyPath, pp)
			}
		}
	}
	// Aliases the resolver relies on.
	if o, ok := mustStep(t, c, "Package").OutputByAlias("PackagedModel"); !ok || o.LogicalName != "packaged_model" {
		t.Errorf("Package alias PackagedModel -> %v", o)
	}
	if o, ok := mustStep(t, c, "Payload").OutputByAlias("GeneratedPayloadSamples"); !ok || o.LogicalName != "payload_sample" {
		t.Errorf("Payload alias GeneratedPayloadSamples -> %v", o)
	}
}

func TestTrainingChannels(t *testing.T) {
	c := mustDefault(t)
	for _, name := range []StepType{"XGBoostTraining", "LightGBMTraining", "PyTorchTraining", "XGBoostTuning"} {
		s := mustStep(t, c, name)
		in, _ := s.Input("input_path")
		if got := s.Channels(in); strings.Join(got, ",") != "train,val,test" {
			t.Errorf("%s input_path channels %v", name, got)
		}
		if in.ContainerPath != "/opt/ml/input/data" {
			t.Errorf("%s input_path path %s", name, in.ContainerPath)
		}
		if m, ok := s.Input("model_artifacts_input"); ok {
			if got := s.Channels(m); len(got) != 1 || got[0] != "model_artifacts_input" {
				t.Errorf("%s model_artifacts_input channels %v", name, got)
			}
		}
	}
	// Default rules of InputPort.TrainingChannels.
	for _, tc := range []struct {
		in   InputPort
		want string
	}{
		{InputPort{LogicalName: "x", Channels: []string{"a", "b"}}, "a,b"},
		{InputPort{LogicalName: "input_path", ContainerPath: "/opt/ml/input/data"}, "train,val,test"},
		{InputPort{LogicalName: "extra", ContainerPath: "/opt/ml/input/data/side/file.csv"}, "side"},
		{InputPort{LogicalName: "hp", ContainerPath: "/opt/ml/code/hp.json"}, "hp"},
	} {
		if got := strings.Join(tc.in.TrainingChannels(), ","); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.in, got, tc.want)
		}
	}
	tp := mustStep(t, c, "TabularPreprocessing")
	if ch := tp.Channels(&tp.Inputs[0]); ch != nil {
		t.Errorf("Processing step has channels %v", ch)
	}
}

func TestFieldSets(t *testing.T) {
	c := mustDefault(t)
	base, ok := c.FieldSet("base")
	if !ok {
		t.Fatal("no base field set")
	}
	var essential []string
	for _, f := range base {
		if f.Tier == TierEssential {
			essential = append(essential, f.Name)
		}
	}
	if got := strings.Join(essential, ","); got != "author,bucket,role,region,service_name,pipeline_version,project_root_folder" {
		t.Errorf("base essential fields: %s", got)
	}
	get := func(set, name string) ConfigField {
		fs, ok := c.FieldSet(set)
		if !ok {
			t.Fatalf("no field set %s", set)
		}
		for _, f := range fs {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("field set %s has no %s", set, name)
		return ConfigField{}
	}
	if r := get("base", "region"); r.CheckValue("us-west-2") != "" || r.CheckValue("FE") != "" || r.CheckValue("Oregon") == "" {
		t.Errorf("region %+v: want an AWS region name or NA, EU, FE", r)
	}
	for in, want := range map[string]string{"NA": "us-east-1", "eu": "eu-west-1", "FE": "us-west-2", "eu-central-1": "eu-central-1", "us-gov-west-1": "us-gov-west-1"} {
		if got, ok := AWSRegion(in); !ok || got != want {
			t.Errorf("AWSRegion(%q) = %q, %v; want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "Oregon", "us_west_2", "us-west"} {
		if got, ok := AWSRegion(bad); ok {
			t.Errorf("AWSRegion(%q) = %q", bad, got)
		}
	}
	for _, n := range []string{"aws_region", "pipeline_name", "pipeline_s3_loc"} {
		if f := get("base", n); f.Tier != TierDerived || f.Derivation == "" {
			t.Errorf("%s: tier %s derive %q", n, f.Tier, f.Derivation)
		}
	}
	for _, n := range []string{"model_class", "framework_version", "py_version", "source_dir", "enable_caching"} {
		if f := get("base", n); f.Tier != TierSystem {
			t.Errorf("%s tier %s", n, f.Tier)
		}
	}
	if f := get("processing", "processing_framework_version"); f.Default != "1.2-1" {
		t.Errorf("processing_framework_version default %v", f.Default)
	}
	get("processing", "author") // processing extends base
	for _, n := range []string{"processing_instance_count", "processing_volume_size", "processing_instance_type_large",
		"processing_instance_type_small", "use_large_processing_instance", "processing_entry_point", "processing_source_dir"} {
		get("processing", n)
	}
	for _, n := range []string{"training_instance_type", "training_instance_count", "training_volume_size", "training_entry_point"} {
		get("training", n)
		get("tuning", n) // tuning extends training
	}
	// Hyperparameters are typed fields, not a free-form object.
	fs, _ := c.FieldSet("training")
	for _, f := range fs {
		if f.Name == "hyperparameters" || f.Hyperparameter {
			t.Errorf("training field set has %s (hyperparameter %v); hyperparameters belong to the step", f.Name, f.Hyperparameter)
		}
	}
	if f := get("xgboost_hyperparameters", "label_name"); !f.Hyperparameter || f.Tier != TierEssential {
		t.Errorf("xgboost label_name: hyperparameter %v tier %s", f.Hyperparameter, f.Tier)
	}
	// processing overrides effective_source_dir of base.
	if f := get("processing", "effective_source_dir"); !strings.Contains(f.Derivation, "processing_source_dir") {
		t.Errorf("processing effective_source_dir derive %q", f.Derivation)
	}
	if info, _ := c.FieldSetInfo("tuning"); strings.Join(info.Chain, ",") != "base,training,tuning" {
		t.Errorf("tuning chain %v", info.Chain)
	}
	if _, ok := c.FieldSet("nope"); ok {
		t.Error("unknown field set found")
	}
	// Steps carry the chain and override defaults.
	xt := mustStep(t, c, "XGBoostTraining")
	if strings.Join(xt.FieldSets, ",") != "base,training,xgboost_hyperparameters" {
		t.Errorf("XGBoostTraining field sets %v", xt.FieldSets)
	}
	if f, _ := xt.Field("framework_version"); f.Default != "1.7-1" || f.Source != "step" {
		t.Errorf("XGBoostTraining framework_version %+v", f)
	}
	if f, _ := xt.Field("training_entry_point"); f.Default != "xgboost_training.py" || f.Tier != TierSystem || f.Type != FieldString {
		t.Errorf("XGBoostTraining training_entry_point %+v", f)
	}
	if f, _ := xt.Field("author"); f.Source != "fieldset:base" {
		t.Errorf("author source %q", f.Source)
	}
	if reg, _ := mustStep(t, c, "Registration").Field("framework_version"); reg.Tier != TierEssential || reg.Default != nil {
		t.Errorf("Registration framework_version should be essential without default: %+v", reg)
	}
}

func TestForJobType(t *testing.T) {
	c := mustDefault(t)
	for _, name := range []StepType{"RiskTableMapping", "MissingValueImputation", "FeatureSelection"} {
		s := mustStep(t, c, name)
		req := func(v *Step) bool {
			in, ok := v.Input("model_artifacts_input")
			if !ok {
				t.Fatalf("%s has no model_artifacts_input", v)
			}
			return in.Required
		}
		if req(s) || req(s.ForJobType("training")) {
			t.Errorf("%s: model_artifacts_input required in base or training", name)
		}
		for _, jt := range []string{"validation", "testing", "calibration", "Calibration"} {
			v := s.ForJobType(jt)
			if !req(v) {
				t.Errorf("%s/%s: model_artifacts_input not required", name, jt)
			}
			if v.JobType != strings.ToLower(jt) || !v.IsVariant() {
				t.Errorf("%s/%s: JobType %q", name, jt, v.JobType)
			}
			in, _ := v.Input("model_artifacts_input")
			if strings.Join(in.CompatibleSources, ",") != string(name) {
				t.Errorf("%s/%s: sources %v", name, jt, in.CompatibleSources)
			}
		}
		if s.ForJobType("munged") != s || s.ForJobType("") != s {
			t.Errorf("%s: unknown job type should give the base step", name)
		}
		if req(s) {
			t.Errorf("%s: base changed by ForJobType", name)
		}
		if v := s.ForJobType("validation"); v.Source != s.Source || v.WorkspaceID != CoreWorkspace {
			t.Errorf("%s/validation origin %q %q", name, v.Source, v.WorkspaceID)
		}
		if !s.HasVariant("validation") || s.HasVariant("munged") {
			t.Errorf("%s HasVariant", name)
		}
	}
	bt := mustStep(t, c, "BatchTransform")
	in, _ := bt.ForJobType("calibration").Input("processed_data")
	if in.SemanticKeywords[0] != "calibration" {
		t.Errorf("BatchTransform/calibration keywords %v", in.SemanticKeywords)
	}
	if base, _ := bt.Input("processed_data"); base.SemanticKeywords[0] == "calibration" {
		t.Error("variant leaked into base")
	}
	if got := strings.Join(mustStep(t, c, "TabularPreprocessing").JobTypes, ","); got != "training,validation,testing,calibration" {
		t.Errorf("TabularPreprocessing job types %s", got)
	}
}

func TestDerivation(t *testing.T) {
	c := mustDefault(t)
	s := mustStep(t, c, "TabularPreprocessing")
	vals := map[string]any{"author": "alice", "bucket": "my-bucket", "service_name": "AtoZ", "region": "NA",
		"pipeline_version": "1.3.1", "source_dir": "dockers/scripts"}
	tests := []struct{ field, want string }{
		{"pipeline_name", "alice-AtoZ-xgboost-NA"},
		{"aws_region", "us-east-1"},
		{"pipeline_s3_loc", "s3://my-bucket/MODS/alice-AtoZ-xgboost-NA_1.3.1"},
		{"pipeline_description", "AtoZ xgboost Model NA"},
		{"effective_source_dir", "dockers/scripts"},
		{"effective_instance_type", "ml.m5.2xlarge"},
	}
	for _, tc := range tests {
		got, err := s.DeriveValue(tc.field, vals)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.field, got, err, tc.want)
		}
	}
	vals["processing_source_dir"] = "proc"
	vals["use_large_processing_instance"] = true
	vals["region"] = "FE"
	for field, want := range map[string]string{"effective_source_dir": "proc", "effective_instance_type": "ml.m5.4xlarge", "aws_region": "us-west-2"} {
		if got, err := s.DeriveValue(field, vals); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", field, got, err, want)
		}
	}
	if _, err := s.DeriveValue("pipeline_name", map[string]any{"author": "a"}); err == nil {
		t.Error("pipeline_name without service_name should fail")
	}
	if _, err := s.DeriveValue("aws_region", map[string]any{"region": "XX"}); err == nil {
		t.Error("unknown region should fail")
	}
	if d, err := s.DeriveValue("current_date", nil); err != nil || !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(d) {
		t.Errorf("current_date %q %v", d, err)
	}
	for _, bad := range []string{"{unclosed", "x}", "{Bad}", "{a|nofilter}", "{a|or}", "{a|if:b}"} {
		if _, err := ExpandDerivation(bad, func(string) (any, bool) { return "v", true }); err == nil {
			t.Errorf("template %q should fail", bad)
		}
	}
	for v, want := range map[any]string{true: "true", 3: "3", 0.7: "0.7", 1e-05: "0.00001", "x": "x"} {
		if got := EnvValue(v); got != want {
			t.Errorf("EnvValue(%v) = %q", v, got)
		}
	}
	if got := EnvValue([]any{"a", 1}); got != "a,1" {
		t.Errorf("EnvValue(list) = %q", got)
	}
	if got := EnvValue(map[string]any{"k": "v"}); got != `{"k":"v"}` {
		t.Errorf("EnvValue(map) = %q", got)
	}
}

func TestEnvVarsMapToFields(t *testing.T) {
	c := mustDefault(t)
	tp := mustStep(t, c, "TabularPreprocessing")
	if f := tp.EnvField("LABEL_FIELD"); f != "label_name" {
		t.Errorf("LABEL_FIELD <- %q", f)
	}
	if f := tp.EnvField("TRAIN_RATIO"); f != "train_ratio" {
		t.Errorf("TRAIN_RATIO <- %q (lower-case rule)", f)
	}
	if d := tp.Contract.OptionalEnv["TRAIN_RATIO"]; d != "0.7" {
		t.Errorf("TRAIN_RATIO default %q", d)
	}
	ss := mustStep(t, c, "StratifiedSampling")
	if strings.Join(ss.Contract.RequiredEnv, ",") != "STRATA_COLUMN" || ss.EnvField("STRATA_COLUMN") != "strata_column" {
		t.Errorf("StratifiedSampling required env %v", ss.Contract.RequiredEnv)
	}
	pk := mustStep(t, c, "Package")
	if e, _ := pk.Contract.EnvVar("WORKING_DIRECTORY"); e.Field != "" || e.Default == "" {
		t.Errorf("WORKING_DIRECTORY %+v", e)
	}
	if a := mustStep(t, c, "TabularPreprocessing").Contract.JobArguments; len(a) != 1 || a[0].Flag != "--job_type" || a[0].Source != "job_type" {
		t.Errorf("job arguments %v", a)
	}
}

func TestComputeDefaults(t *testing.T) {
	c := mustDefault(t)
	tp := mustStep(t, c, "TabularPreprocessing").Compute
	if tp.Kind != "sklearn" || tp.Framework != "sklearn" || tp.FrameworkVersionField != "processing_framework_version" ||
		tp.LargeInstanceTypeField != "processing_instance_type_large" || tp.UseLargeInstanceField != "use_large_processing_instance" ||
		tp.InstanceCountField != "processing_instance_count" || tp.VolumeSizeField != "processing_volume_size" || tp.ImageScope != "training" {
		t.Errorf("TabularPreprocessing compute %+v", tp)
	}
	xt := mustStep(t, c, "XGBoostTraining").Compute
	if xt.Kind != "estimator" || xt.SDKClass != "XGBoost" || xt.Framework != "xgboost" || xt.InstanceTypeField != "training_instance_type" ||
		xt.FrameworkVersionField != "framework_version" || xt.PyVersionField != "py_version" {
		t.Errorf("XGBoostTraining compute %+v", xt)
	}
	xm := mustStep(t, c, "XGBoostModel").Compute
	if xm.ImageScope != "inference" || xm.InstanceTypeField != "instance_type" {
		t.Errorf("XGBoostModel compute %+v", xm)
	}
	bt := mustStep(t, c, "BatchTransform").Compute
	if bt.Framework != "none" || bt.InstanceTypeField != "transform_instance_type" || bt.InstanceCountField != "transform_instance_count" {
		t.Errorf("BatchTransform compute %+v", bt)
	}
	ev := mustStep(t, c, "PyTorchModelEval").Compute
	if ev.Framework != "pytorch" || ev.FrameworkVersionField != "framework_version" {
		t.Errorf("PyTorchModelEval compute %+v", ev)
	}
	reg := mustStep(t, c, "Registration")
	if reg.Compute.FrameworkField != "framework" || reg.Patterns.NameSuffixField != "region" {
		t.Errorf("Registration %+v %+v", reg.Compute, reg.Patterns)
	}
	if got := reg.SageMakerName("", "NA"); got != "Registration-NA" {
		t.Errorf("Registration SageMaker name %s", got)
	}
	if got := mustStep(t, c, "Package").SageMakerName("", "NA"); got != "Package" {
		t.Errorf("Package SageMaker name %s", got)
	}
	tun := mustStep(t, c, "XGBoostTuning")
	if o, _ := tun.Output("model_output"); strings.Join(o.URIJoin, "/") != "output/model.tar.gz" {
		t.Errorf("tuning model output %+v", o)
	}
}

func TestLookupAndResolve(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		in      string
		want    StepType
		jobType string
	}{
		{"XGBoostTraining", "XGBoostTraining", ""},
		{"xgboost_training", "XGBoostTraining", ""},
		{"TabularPreprocessing_training", "TabularPreprocessing", "training"},
		{"MIMSPackaging", "Package", ""},
		{"ModelRegistration", "Registration", ""},
		{"tabularpreprocessing", "TabularPreprocessing", ""},
	}
	for _, tc := range tests {
		s, jt, err := c.Lookup(tc.in)
		if err != nil || s.Type != tc.want || jt != tc.jobType {
			t.Errorf("Lookup(%q) = %v %q %v", tc.in, s, jt, err)
		}
	}
	_, _, err := c.Lookup("XGBoostTrainig")
	var nf *NotFoundError
	if !asNotFound(err, &nf) || len(nf.Suggestions) == 0 || nf.Suggestions[0] != "XGBoostTraining" {
		t.Errorf("Lookup typo: %v", err)
	}
	for _, abstract := range []string{"Base", "Processing", "NoSuchStep", ""} {
		if s, _, err := c.Lookup(abstract); err == nil {
			t.Errorf("Lookup(%q) = %v, want not found", abstract, s)
		}
	}
}

func asNotFound(err error, target **NotFoundError) bool {
	nf, ok := err.(*NotFoundError)
	if ok {
		*target = nf
	}
	return ok
}

func TestConcurrentAccess(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "Extra.step.yaml", validExtraStep("Extra"))
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := Default()
			if err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				if c, err = Load(nil, dir); err != nil {
					t.Error(err)
					return
				}
			}
			_ = c.Search("xgb train")
			s, _ := c.Step("RiskTableMapping")
			_ = s.ForJobType("validation")
			_, _, _ = c.ResolveNode("TabularPreprocessing_training")
		}(i)
	}
	wg.Wait()
}

package execdoc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// Helpers of Generate: which steps carry runtime configuration.
const (
	HelperDataLoading  = "data_loading" // CradleDataLoading, RedshiftDataLoading, AthenaDataLoading
	HelperRegistration = "registration" // every RegisterModel step
)

// dataLoadingSteps are the step types the data-loading helper fills.
var dataLoadingSteps = map[catalog.StepType]bool{"CradleDataLoading": true, "RedshiftDataLoading": true, "AthenaDataLoading": true}

// HelperFor names the Generate helper that fills a step's STEP_CONFIG, or
// "" when the step takes no runtime configuration.
func HelperFor(s *catalog.Step) string {
	switch {
	case s == nil:
		return ""
	case s.Verb == catalog.VerbRegisterModel:
		return HelperRegistration
	case dataLoadingSteps[s.Type]:
		return HelperDataLoading
	}
	return ""
}

// RegistrationStepType is the STEP_TYPE Generate gives a registration entry
// that has none.
var RegistrationStepType = []any{"PROCESSING_STEP", "ModelRegistration"}

// GenerateInput is what Generate needs.
type GenerateInput struct {
	DAG     *dag.PipelineDAG
	Configs *config.Set
	Catalog *catalog.Catalog // nil: catalog.Default()
	// Document is the document to fill (not modified); nil builds the
	// template from the DAG's SageMaker step names.
	Document map[string]any
	// Role, when set, replaces the configs' role in the registration
	// settings.
	Role string
}

// StepFill says what Generate did with one step.
type StepFill struct {
	Step     string `json:"step"`           // document key
	Node     string `json:"node,omitempty"` // DAG node it was matched to
	StepType string `json:"step_type,omitempty"`
	Helper   string `json:"helper,omitempty"`
	Filled   bool   `json:"filled"`
	Fields   int    `json:"field_count"` // keys in STEP_CONFIG afterwards
}

// GenerateResult is a filled document.
type GenerateResult struct {
	Document     map[string]any
	AutoTemplate bool                                           // the document was built from the DAG
	Steps        []StepFill                                     // one per document step, by name
	NodeSteps    map[catalog.NodeName]catalog.SageMakerStepName // DAG node -> SageMaker step name (resolved nodes)
	NodeConfigs  map[catalog.NodeName]catalog.ConfigKey         // DAG node -> config key
	Warnings     []string
}

// StepsWithConfig counts the document steps whose STEP_CONFIG is not empty.
func (r *GenerateResult) StepsWithConfig() int {
	n := 0
	for _, s := range r.Steps {
		if s.Fields > 0 {
			n++
		}
	}
	return n
}

// node is one resolved DAG node.
type node struct {
	name   string // the DAG node; it and smName are document keys
	step   *catalog.Step
	cfg    *config.Config
	smName string
	helper string
}

// Generate fills an execution document from a DAG and its configs. Nodes
// are resolved as a compile resolves them (compiler.PreviewResolution);
// nodes that do not resolve are skipped with a warning. Errors: an
// *InputError (no DAG, no configs), an *InvalidDocumentError for a
// document that is not structurally valid, or the compiler's resolution
// errors.
func Generate(ctx context.Context, in GenerateInput) (*GenerateResult, error) {
	if in.DAG == nil || in.DAG.NodeCount() == 0 {
		return nil, &InputError{Field: "dag", Reason: "the DAG has no nodes"}
	}
	if in.Configs == nil {
		return nil, &InputError{Field: "config", Reason: "no configs"}
	}
	cat := in.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Default(); err != nil {
			return nil, fmt.Errorf("load the step catalog: %w", err)
		}
	}
	if in.Document != nil {
		if errs := structuralErrors(in.Document); len(errs) > 0 {
			return nil, &InvalidDocumentError{Arg: "execution_document", Issues: errs}
		}
	}
	prev, err := compiler.PreviewResolution(ctx, compiler.Input{DAG: in.DAG, Configs: in.Configs, Catalog: cat})
	if err != nil {
		return nil, err
	}
	res := &GenerateResult{NodeSteps: map[catalog.NodeName]catalog.SageMakerStepName{}, NodeConfigs: map[catalog.NodeName]catalog.ConfigKey{}}
	var nodes []*node
	for _, n := range in.DAG.Nodes() {
		if why, bad := prev.Unresolved[n]; bad {
			res.Warnings = append(res.Warnings, fmt.Sprintf("node %s has no config and is skipped: %s", n, why))
			continue
		}
		// the preview resolved every node it did not mark unresolved
		c, _ := in.Configs.Config(prev.NodeConfigKeys[n])
		st, ok := cat.Step(c.StepType())
		name := prev.NodeStepNames[n]
		if !ok || name == "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("node %s (config %s) has no step type with a builder and is skipped", n, c.Key))
			continue
		}
		st = st.ForJobType(c.JobType())
		nd := &node{name: string(n), step: st, cfg: c, smName: string(name), helper: HelperFor(st)}
		nodes = append(nodes, nd)
		res.NodeSteps[n] = name
		res.NodeConfigs[n] = c.Key
	}

	var doc map[string]any
	if in.Document == nil {
		res.AutoTemplate = true
		steps := map[string]any{}
		for _, nd := range nodes {
			steps[nd.smName] = map[string]any{KeyStepType: StepTypeFor(nd.step), KeyStepConfig: map[string]any{}}
		}
		doc = map[string]any{KeyStepConfigs: steps, KeyAdditionalParams: map[string]any{}}
	} else {
		doc = Clone(in.Document).(map[string]any)
	}
	steps := doc[KeyStepConfigs].(map[string]any)

	matched := map[string]*node{}
	for _, nd := range nodes {
		key, ok := findKey(steps, nd)
		if !ok {
			if nd.helper != "" {
				res.Warnings = append(res.Warnings, fmt.Sprintf("step %s (node %s) takes runtime configuration but the document has no entry for it; skipped (pass a document keyed by SageMaker step names, or none)", nd.smName, nd.name))
			}
			continue
		}
		if _, dup := matched[key]; dup {
			continue
		}
		matched[key] = nd
		if nd.helper == "" {
			continue
		}
		fill, warns := helperConfig(nd, nodes, in)
		res.Warnings = append(res.Warnings, warns...)
		entry := steps[key].(map[string]any)
		cfg, _ := entry[KeyStepConfig].(map[string]any)
		if cfg == nil {
			cfg = map[string]any{}
		}
		for k, v := range fill {
			cfg[k] = v
		}
		entry[KeyStepConfig] = cfg
		if _, has := entry[KeyStepType]; !has && nd.helper == HelperRegistration {
			entry[KeyStepType] = Clone(RegistrationStepType)
		}
	}

	for _, name := range mapkeys.Sorted(steps) {
		sf := StepFill{Step: name}
		if nd := matched[name]; nd != nil {
			sf.Node, sf.StepType, sf.Helper = nd.name, string(nd.step.Type), nd.helper
			sf.Filled = nd.helper != ""
		}
		if e, ok := steps[name].(map[string]any); ok {
			if c, ok := e[KeyStepConfig].(map[string]any); ok {
				sf.Fields = len(c)
			}
		}
		res.Steps = append(res.Steps, sf)
	}
	res.Document = doc
	return res, nil
}

// findKey finds the document entry of a node: its SageMaker step name,
// the same case-insensitively, its node name; for a registration step any
// key that contains "registration".
func findKey(steps map[string]any, nd *node) (string, bool) {
	if _, ok := steps[nd.smName]; ok {
		return nd.smName, true
	}
	keys := mapkeys.Sorted(steps)
	for _, k := range keys {
		if strings.EqualFold(k, nd.smName) {
			return k, true
		}
	}
	if _, ok := steps[nd.name]; ok {
		return nd.name, true
	}
	if nd.helper == HelperRegistration {
		for _, k := range keys {
			if strings.Contains(strings.ToLower(k), "registration") {
				return k, true
			}
		}
	}
	return "", false
}

// helperConfig computes the STEP_CONFIG of a helper step.
func helperConfig(nd *node, all []*node, in GenerateInput) (map[string]any, []string) {
	switch nd.helper {
	case HelperDataLoading:
		return dataLoadingConfig(nd), nil
	case HelperRegistration:
		return registrationConfig(nd, all, in)
	}
	return nil, nil
}

// cradleSections map the CradleDataLoading request fields to the sections
// of the execution document.
var cradleSections = []struct{ field, key string }{
	{"data_sources_spec", "dataSources"},
	{"transform_spec", "transformSpecification"},
	{"output_spec", "outputSpecification"},
	{"cradle_job_spec", "cradleJobSpecification"},
}

// dataLoadingConfig is the request of a data-loading step as a camelCase
// object: the four request sections for CradleDataLoading; for the others
// every field the step declares itself (not the shared base and
// processing fields), minus its script and job type.
func dataLoadingConfig(nd *node) map[string]any {
	out := map[string]any{}
	if nd.step.Type == "CradleDataLoading" {
		for _, s := range cradleSections {
			if v, ok := nd.cfg.Get(s.field); ok && v != nil {
				out[s.key] = CamelKeys(v)
			}
		}
		return out
	}
	for _, f := range nd.step.Fields {
		if f.Source != "step" || f.Name == "job_type" || strings.HasSuffix(f.Name, "entry_point") || f.Tier == catalog.TierDerived {
			continue
		}
		if v, ok := nd.cfg.Get(f.Name); ok && v != nil {
			out[SnakeToCamel(f.Name)] = CamelKeys(v)
		}
	}
	return out
}

// registrationConfig gathers the registration settings: the registration
// config's model facts and inference contract, the inference image, and
// the load-testing targets of the DAG's Payload config.
func registrationConfig(nd *node, all []*node, in GenerateInput) (map[string]any, []string) {
	var warns []string
	c := nd.cfg
	out := map[string]any{}
	copyFields := []string{"model_owner", "model_domain", "model_objective",
		"source_model_inference_content_types", "source_model_inference_response_types",
		"source_model_inference_input_variable_list", "source_model_inference_output_variable_list",
		"model_package_group_name", "model_approval_status"}
	for _, f := range copyFields {
		if v, ok := c.Get(f); ok && v != nil {
			out[f] = Clone(v)
		}
	}
	region := c.String("region")
	awsRegion := c.String("aws_region")
	if awsRegion == "" {
		awsRegion, _ = catalog.AWSRegion(region)
	}
	out["model_registration_region"] = region
	out["source_model_region"] = awsRegion
	role := in.Role
	if role == "" {
		role = c.String("role")
	}
	if role != "" {
		out["execution_role"] = role
	}
	entry := c.String("inference_entry_point")
	if entry == "" {
		entry = "inference.py"
	}
	out["source_model_environment_variable_map"] = map[string]any{
		"SAGEMAKER_CONTAINER_LOG_LEVEL": "20",
		"SAGEMAKER_PROGRAM":             entry,
		"SAGEMAKER_REGION":              awsRegion,
		"SAGEMAKER_SUBMIT_DIRECTORY":    "/opt/ml/model/code",
	}
	if img, err := inferenceImage(nd.step, c, awsRegion); err != nil {
		warns = append(warns, fmt.Sprintf("step %s: no inference image: %v", nd.smName, err))
	} else {
		out["source_model_inference_image_arn"] = img
	}

	if p := findByType(all, "Payload"); p != nil {
		lt := map[string]any{}
		if b := p.cfg.String("bucket"); b != "" {
			lt["sample_payload_s3_bucket"] = b
		}
		for _, f := range []string{"expected_tps", "max_latency_in_millisecond", "max_acceptable_error_rate"} {
			if v, ok := p.cfg.Get(f); ok && v != nil {
				lt[f] = v
			}
		}
		if v, ok := p.cfg.Get("load_test_instance_type_list"); ok && v != nil {
			lt["instance_type_list"] = Clone(v)
		}
		out["load_testing_info_map"] = lt
	} else {
		warns = append(warns, fmt.Sprintf("step %s: the DAG has no Payload step, so load_testing_info_map is left out", nd.smName))
	}
	if p := findByType(all, "Package"); p != nil {
		if v := p.cfg.String("inference_scripts_dir"); v != "" {
			out["inference_scripts_dir"] = v
		}
	}
	return out, warns
}

func findByType(all []*node, t catalog.StepType) *node {
	for _, n := range all {
		if n.step.Type == t {
			return n
		}
	}
	return nil
}

// inferenceImage is the image a registered model is served with: the
// config's explicit image, else the framework image for its version.
func inferenceImage(st *catalog.Step, c *config.Config, region string) (string, error) {
	cp := st.Compute
	imgField := cp.ImageURIField
	if imgField == "" {
		imgField = "image_uri"
	}
	if s := c.String(imgField); s != "" {
		return s, nil
	}
	fw := cp.Framework
	if cp.FrameworkField != "" {
		if v := c.String(cp.FrameworkField); v != "" {
			fw = v
		}
	}
	fw = strings.ToLower(fw)
	if fw == "" || fw == "none" {
		return "", errors.New("no framework: set config field " + imgField)
	}
	version := ""
	if cp.FrameworkVersionField != "" {
		version = c.String(cp.FrameworkVersionField)
	}
	if version == "" {
		version = cp.FrameworkVersionDefault
	}
	py := ""
	if cp.PyVersionField != "" {
		py = c.String(cp.PyVersionField)
	}
	itype := ""
	if cp.InstanceTypeField != "" {
		itype = c.String(cp.InstanceTypeField)
	}
	if itype == "" {
		itype = c.String("inference_instance_type")
	}
	img, err := sagemaker.ImageURI(fw, version, region, py, itype, "inference")
	if err != nil && py != "" {
		img, err = sagemaker.ImageURI(fw, version, region, "", itype, "inference")
	}
	return img, err
}

// SnakeToCamel converts snake_case to camelCase (data_sources ->
// dataSources); a name without "_" is returned unchanged.
func SnakeToCamel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	parts := strings.Split(s, "_")
	var b strings.Builder
	first := true
	for _, p := range parts {
		if p == "" {
			continue
		}
		if first {
			b.WriteString(p)
			first = false
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

// CamelKeys returns a deep copy of v with every object key converted by
// SnakeToCamel.
func CamelKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[SnakeToCamel(k)] = CamelKeys(x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CamelKeys(e)
		}
		return out
	}
	return Clone(v)
}

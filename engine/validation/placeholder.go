package validation

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

// PlaceholderMarker is contained in every placeholder string value, so a
// config generated with placeholders shows at a glance (and to a grep) what
// still needs a real value.
const PlaceholderMarker = config.PlaceholderMarker

// PlaceholderRole is the placeholder execution role: a well-formed IAM role
// ARN in the documentation account.
const PlaceholderRole = "arn:aws:iam::123456789012:role/replace-me-sagemaker-execution-role"

// placeholderByName gives placeholders for well-known essential fields.
var placeholderByName = map[string]any{
	"role":                PlaceholderRole,
	"bucket":              "replace-me-bucket",
	"region":              "NA", // a code, as the field's allowed values once had first
	"author":              "replace-me",
	"service_name":        "replace-me-service",
	"pipeline_version":    "0.1.0",
	"project_root_folder": "replace-me-project",
	"label_name":          "label",
	"id_name":             "id",
	"data_source":         "s3://replace-me-bucket/data/",
	"threshold":           0.5,
	"search_space":        map[string]any{"continuous": map[string]any{"replace_me_hyperparameter": []any{0.0, 1.0}}},
	"function_arn":        "arn:aws:lambda:us-east-1:000000000000:function:replace-me",
	"sqs_queue_url":       "https://sqs.us-east-1.amazonaws.com/000000000000/replace-me",
	"emr_cluster_id":      "j-REPLACEME",
}

// placeholderVersions are framework versions the image tables know, used
// for an essential framework-version field without a default.
var placeholderVersions = map[string]string{"xgboost": "1.7-1", "sklearn": "1.2-1", "pytorch": "2.1.0"}

// PlaceholderValue returns a value for a field that passes its declaration
// (type, allowed values, bounds, pattern) and marks itself as a placeholder
// where it is a string: the default when there is one, else the first
// allowed value, else a value by well-known name or by type. jobTypes are
// the step's declared job types (the first one fills job_type). The second
// result is false when no candidate satisfies the declaration.
func PlaceholderValue(f catalog.ConfigField, jobTypes []string) (any, bool) {
	if f.Default != nil {
		return f.Default, f.CheckValue(f.Default) == ""
	}
	var cands []any
	if len(f.Allowed) > 0 {
		cands = append(cands, f.Allowed[0])
	}
	if v, ok := placeholderByName[f.Name]; ok {
		cands = append(cands, v)
	}
	if f.Name == "job_type" {
		for _, j := range jobTypes {
			cands = append(cands, j)
		}
		cands = append(cands, "training")
	}
	switch f.Type {
	case catalog.FieldString, catalog.FieldAny, "":
		if strings.HasSuffix(f.Name, "_uri") || strings.HasSuffix(f.Name, "_s3_uri") || strings.HasSuffix(f.Name, "_source") || strings.HasSuffix(f.Name, "_location") {
			cands = append(cands, "s3://replace-me-bucket/"+f.Name+"/")
		}
		cands = append(cands, PlaceholderMarker, "replace_me", "REPLACE_ME", "ReplaceMe", PlaceholderRole, "s3://replace-me-bucket/"+f.Name+"/", "x", "0")
	case catalog.FieldInt:
		for _, n := range []float64{1, 0} {
			cands = append(cands, bounded(f, n, true))
		}
	case catalog.FieldFloat:
		for _, n := range []float64{0.5, 1, 0} {
			cands = append(cands, bounded(f, n, false))
		}
	case catalog.FieldBool:
		cands = append(cands, false, true)
	case catalog.FieldList:
		cands = append(cands, []any{PlaceholderMarker}, []any{})
	case catalog.FieldMap:
		cands = append(cands, map[string]any{})
	}
	for _, c := range cands {
		if f.CheckValue(c) == "" {
			return c, true
		}
	}
	if len(cands) > 0 {
		return cands[0], false
	}
	return nil, false
}

func bounded(f catalog.ConfigField, n float64, integer bool) any {
	if f.Min != nil && n < *f.Min {
		n = *f.Min
	}
	if f.Max != nil && n > *f.Max {
		n = *f.Max
	}
	if integer {
		return int(n)
	}
	return n
}

// IsPlaceholder reports whether a value is (or contains) a placeholder, by
// the engine's placeholder set (config.IsPlaceholder).
func IsPlaceholder(v any) bool { return config.IsPlaceholder(v) }

// DefaultNode returns the DAG node name a step's default config is built
// for: <Type>_<job type> when the step has a job_type field (the given job
// type, else its first declared one, else training), else <Type>.
func DefaultNode(st *catalog.Step, jobType string) (string, string) {
	if _, ok := st.Field("job_type"); !ok {
		return string(st.Type), ""
	}
	jt := strings.TrimSpace(jobType)
	if jt == "" && len(st.JobTypes) > 0 {
		jt = st.JobTypes[0]
	}
	if jt == "" {
		jt = "training"
	}
	return string(st.Type) + "_" + jt, jt
}

// PlaceholderValues returns values for every essential field of the class
// that has no default (and job_type when the node carries one), each a
// PlaceholderValue.
func PlaceholderValues(class *config.Class, st *catalog.Step, jobType string) map[string]any {
	out := map[string]any{}
	for _, f := range class.Fields {
		if f.Tier != catalog.TierEssential || f.Default != nil {
			continue
		}
		v, _ := PlaceholderValue(f, st.JobTypes)
		out[f.Name] = v
	}
	if jobType != "" && class.HasField("job_type") {
		out["job_type"] = jobType
	}
	// A search space names a hyperparameter of the step: the first bounded
	// numeric one, over its bounds.
	if _, ok := out["search_space"]; ok {
		if r, ok := searchSpacePlaceholder(class); ok {
			out["search_space"] = r
		}
	}
	// A framework-version field without a default gets a version the image
	// tables know for the step's framework.
	c := st.Compute
	verField := c.FrameworkVersionField
	if verField == "" {
		verField = "framework_version"
	}
	if v, ok := out[verField]; ok && IsPlaceholder(v) {
		fw := c.Framework
		if c.FrameworkField != "" {
			if x, ok := out[c.FrameworkField].(string); ok && x != "" {
				fw = x
			} else if f, ok := class.Field(c.FrameworkField); ok && f.Default != nil {
				fw = fmt.Sprint(f.Default)
			}
		}
		if c.FrameworkVersionDefault != "" {
			out[verField] = c.FrameworkVersionDefault
		} else if ver, ok := placeholderVersions[strings.ToLower(fw)]; ok {
			out[verField] = ver
		}
	}
	return out
}

// searchSpacePlaceholder is a one-range search space over the first
// hyperparameter field of the class with a min and a max.
func searchSpacePlaceholder(class *config.Class) (map[string]any, bool) {
	for _, f := range class.HyperparameterFields() {
		if f.Min == nil || f.Max == nil {
			continue
		}
		switch f.Type {
		case catalog.FieldFloat:
			return map[string]any{"continuous": map[string]any{f.Name: []any{*f.Min, *f.Max}}}, true
		case catalog.FieldInt:
			return map[string]any{"integer": map[string]any{f.Name: []any{*f.Min, *f.Max}}}, true
		}
	}
	return nil, false
}

// DefaultConfig builds the config of one step with defaults and
// placeholder values for its essential fields, as a one-node config set
// keyed by DefaultNode.
func DefaultConfig(cat *catalog.Catalog, st *catalog.Step, jobType string) (*config.Set, string, error) {
	schema, err := config.FromCatalog(cat)
	if err != nil {
		return nil, "", err
	}
	class, ok := schema.ClassForStep(st.Type)
	if !ok {
		return nil, "", fmt.Errorf("no config class for step %s", st.Type)
	}
	node, jt := DefaultNode(st, jobType)
	values := PlaceholderValues(class, st, jt)
	n := catalog.NodeName(node)
	set, err := schema.Build(config.BuildInput{
		Nodes: []catalog.NodeName{n},
		Steps: map[catalog.NodeName]map[string]any{n: values},
	})
	if err != nil {
		return nil, node, err
	}
	return set, node, nil
}

// manualInputURI is the S3 URI a dry build feeds to an input.
func manualInputURI(input string) string {
	return "s3://replace-me-bucket/dry-run/" + input + "/"
}

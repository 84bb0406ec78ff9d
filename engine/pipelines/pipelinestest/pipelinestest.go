package pipelinestest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

// RoleARN is the example IAM role of the filled configs.
const RoleARN = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"

// known are example values of well-known essential fields, by name.
var known = map[string]any{
	"author":                     "alice",
	"bucket":                     "example-bucket",
	"role":                       RoleARN,
	"region":                     "NA",
	"service_name":               "Demo",
	"pipeline_version":           "1.0.0",
	"project_root_folder":        "demo",
	"data_source":                "s3://example-bucket/raw/data/",
	"pretrained_model_path":      "s3://example-bucket/models/pretrained/",
	"label_name":                 "label",
	"label_field":                "label",
	"id_name":                    "id",
	"id_field":                   "id",
	"model_name":                 "demo-model",
	"model_owner":                "team-demo",
	"model_domain":               "demo",
	"model_objective":            "binary risk score",
	"expected_tps":               10,
	"max_latency_in_millisecond": 800,
	"athena_database":            "demo_db",
	"athena_query":               "SELECT * FROM events",
	"cluster_id":                 "demo-cluster",
	"db_name":                    "dev",
	"cluster_endpoint":           "demo-cluster.abc123.us-east-1.redshift.amazonaws.com",
	"query":                      "SELECT * FROM events",
	"redshift_role_arn":          RoleARN,
	"currency_conversion_vars":   []any{"amount"},
	"currency_conversion_dict":   map[string]any{"USD": 1.0, "EUR": 1.1},
	"data_sources_spec": map[string]any{
		"start_date": "2025-01-01T00:00:00", "end_date": "2025-04-17T00:00:00",
		"data_sources": []any{map[string]any{"data_source_name": "RAW_MDS", "data_source_type": "MDS"}},
	},
	"transform_spec": map[string]any{"transform_sql": "SELECT * FROM RAW_MDS"},
	"strata_column":  "label",
	"metric":         "auc_roc",
	"threshold":      0.7,
	"search_space": map[string]any{
		"continuous": []any{map[string]any{"name": "eta", "min": 0.05, "max": 0.5, "scaling": "Logarithmic"}},
		"integer":    []any{map[string]any{"name": "max_depth", "min": 3, "max": 10}},
	},
	"output_spec":               map[string]any{"output_schema": []any{"objectId", "label"}, "output_format": "CSV"},
	"function_arn":              "arn:aws:lambda:us-east-1:123456789012:function:demo-function",
	"sqs_queue_url":             "https://sqs.us-east-1.amazonaws.com/123456789012/demo-queue",
	"emr_cluster_id":            "j-1K48XXXXXXHCB",
	"emr_args":                  []any{"spark-submit", "--deploy-mode", "cluster", "s3://example-bucket/jobs/job.py", "--input", "{input_data}"},
	"label_values_or_threshold": []any{1},
	"facet_name":                "segment",
	// the breadth steps (Bedrock, multi-task, rulesets, temporal, lookup)
	"bedrock_primary_model_id": "anthropic.claude-3-haiku-20240307-v1:0",
	"prompt_configs": map[string]any{
		"task_description":   "Decide what the support ticket is about.",
		"input_placeholders": []any{"subject", "body"},
		"categories": []any{map[string]any{"name": "billing", "description": "charges and refunds"},
			map[string]any{"name": "bug", "description": "the product misbehaves"}},
	},
	"label_ruleset": map[string]any{
		"label_config": map[string]any{"output_label_name": "label", "output_label_type": "binary", "label_values": []any{0, 1}, "default_label": 0},
		"rules": []any{map[string]any{"rule_id": "large_refund", "priority": 1, "output_label": 1,
			"conditions": map[string]any{"field": "refund_amount", "operator": ">", "value": 500}}},
	},
	"task_label_names":        []any{"is_abuse", "is_chargeback", "is_ato"},
	"date_column":             "event_date",
	"split_date":              "2025-06-01",
	"sequence_grouping_field": "customer_id",
	"temporal_field":          "event_time",
	"key_fields":              []any{"country"},
}

// framework picks the registered-model framework of a DAG from its nodes.
func framework(nodes []catalog.NodeName) (fw, version string) {
	for _, n := range nodes {
		l := strings.ToLower(string(n))
		if strings.Contains(l, "pytorch") || strings.Contains(l, "lightgbm") || strings.Contains(l, "bedrock") {
			return "pytorch", "2.1.0"
		}
	}
	return "xgboost", "1.7-1"
}

// Value returns an example value for an essential field: a well-known
// name's value, else the first allowed value, else a value of the field's
// type within its bounds. The value always passes the field's CheckValue;
// ok is false when no such value is found.
func Value(f catalog.ConfigField, nodes []catalog.NodeName) (any, bool) {
	var cands []any
	if v, ok := known[f.Name]; ok {
		cands = append(cands, v)
	}
	switch f.Name {
	case "framework":
		fw, _ := framework(nodes)
		cands = append([]any{fw}, cands...)
	case "framework_version":
		_, v := framework(nodes)
		cands = append([]any{v}, cands...)
	}
	cands = append(cands, f.Allowed...)
	switch f.Type {
	case catalog.FieldInt:
		n := 1.0
		if f.Min != nil && *f.Min > n {
			n = *f.Min
		}
		cands = append(cands, int(n))
	case catalog.FieldFloat:
		x := 0.5
		if f.Min != nil && *f.Min > x {
			x = *f.Min
		}
		if f.Max != nil && *f.Max < x {
			x = *f.Max
		}
		cands = append(cands, x)
	case catalog.FieldBool:
		cands = append(cands, false)
	case catalog.FieldList:
		cands = append(cands, []any{"example"})
	case catalog.FieldMap:
		cands = append(cands, map[string]any{"example": "value"})
	default:
		cands = append(cands, "example", "s3://example-bucket/example/", RoleARN, "example.py", "ml.m5.large", "1.0.0")
	}
	for _, c := range cands {
		if f.CheckValue(c) == "" {
			return c, true
		}
	}
	return nil, false
}

// Filled is a filled template.
type Filled struct {
	Base  map[string]any
	Steps map[catalog.NodeName]map[string]any
}

// Fill returns the template of a DAG's nodes with every essential field
// set to an example value (Value) and null fields left out. It fails, naming
// every field, when some essential field gets no valid value.
func Fill(schema *config.Schema, nodes []catalog.NodeName) (*Filled, error) {
	tpl := schema.Template(nodes)
	if len(tpl.Pending) > 0 {
		return nil, fmt.Errorf("nodes without a config class: %v", tpl.Pending)
	}
	out := &Filled{Base: map[string]any{}, Steps: map[catalog.NodeName]map[string]any{}}
	for k, v := range tpl.Base {
		if v != nil {
			out.Base[k] = v
		}
	}
	for n, vals := range tpl.Steps {
		m := map[string]any{}
		for k, v := range vals {
			if v != nil {
				m[k] = v
			}
		}
		out.Steps[n] = m
	}
	var missing []string
	for _, path := range tpl.EssentialFields {
		owner, field, ok := strings.Cut(path, ".")
		if !ok {
			continue
		}
		f, found := fieldOf(schema, tpl, owner, field)
		if !found {
			missing = append(missing, path+" (no declaration found)")
			continue
		}
		v, ok := Value(f, nodes)
		if !ok {
			missing = append(missing, path+" (no example value passes its checks)")
			continue
		}
		if owner == "base" {
			out.Base[field] = v
		} else {
			node := catalog.NodeName(owner)
			if out.Steps[node] == nil {
				out.Steps[node] = map[string]any{}
			}
			out.Steps[node][field] = v
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("cannot fill essential fields: %s", strings.Join(missing, "; "))
	}
	return out, nil
}

// fieldOf finds the declaration of an essential field of the template.
func fieldOf(schema *config.Schema, tpl *config.Template, owner, field string) (catalog.ConfigField, bool) {
	if owner == "base" {
		for _, f := range schema.BaseFields() {
			if f.Name == field {
				return f, true
			}
		}
		for _, f := range schema.ProcessingFields() {
			if f.Name == field {
				return f, true
			}
		}
		return catalog.ConfigField{}, false
	}
	cls, ok := schema.Class(tpl.ConfigClassMap[catalog.NodeName(owner)])
	if !ok {
		return catalog.ConfigField{}, false
	}
	return cls.Field(field)
}

// Configs fills the template of a DAG's nodes (Fill) and builds the config
// set (config.Schema.Build), as a user's config.merge_save would.
func Configs[S ~string](schema *config.Schema, nodes []S) (*config.Set, error) {
	names := make([]catalog.NodeName, len(nodes))
	for i, n := range nodes {
		names[i] = catalog.NodeName(n)
	}
	f, err := Fill(schema, names)
	if err != nil {
		return nil, err
	}
	return schema.Build(config.BuildInput{Nodes: names, Base: f.Base, Steps: f.Steps})
}

package catalog

import (
	"strings"
	"testing"
)

func TestParameterRef(t *testing.T) {
	for v, want := range map[any]string{
		"{{Parameters.TrainingInstance}}":                "TrainingInstance",
		"{{ Parameters.input-data_2 }}":                  "input-data_2",
		"{{Parameters.A}}":                               "A",
		"{{Parameters.}}":                                "",
		"{{Parameters.bad name}}":                        "",
		"{{Parameters.X}} ":                              "", // the requested pattern is anchored as is
		"Parameters.X":                                   "",
		"{{Params.X}}":                                   "",
		"{{Parameters." + strings.Repeat("x", 65) + "}}": "",
		42: "",
	} {
		got, ok := ParameterRef(v)
		if got != want || ok != (want != "") {
			t.Errorf("ParameterRef(%v) = %q, %v; want %q", v, got, ok, want)
		}
	}
}

// A string, int or float field takes a parameter reference in place of a
// value its type, pattern or allowed values would refuse; a bool field does
// not (a flag chooses what is built).
func TestCheckValueAcceptsParameterRefs(t *testing.T) {
	s := mustStep(t, mustDefault(t), "XGBoostTraining")
	itype, _ := s.Field("training_instance_type")
	region, _ := s.Field("region")
	count, _ := s.Field("training_instance_count")
	if msg := itype.CheckValue("large"); msg == "" {
		t.Error("pattern not enforced")
	}
	for _, f := range []*ConfigField{itype, region} {
		if msg := f.CheckValue("{{Parameters.X}}"); msg != "" {
			t.Errorf("%s refuses a reference: %s", f.Name, msg)
		}
		if msg := f.CheckValue("{{Parameters.bad name}}"); msg == "" {
			t.Errorf("%s accepts a malformed reference", f.Name)
		}
	}
	if msg := count.CheckValue("{{Parameters.X}}"); msg != "" {
		t.Errorf("an int field refuses a reference: %s", msg)
	}
	if msg := count.CheckValue("many"); msg == "" {
		t.Error("an int field accepts a string")
	}
	flag, _ := s.Field("use_precomputed_features")
	if msg := flag.CheckValue("{{Parameters.X}}"); msg == "" {
		t.Error("a bool field accepts a reference")
	}
}

func TestTemplateIsCopy(t *testing.T) {
	for tmpl, want := range map[string]bool{
		"{source_dir}":                          true,
		"{processing_source_dir|or:source_dir}": true,
		"{use_large_processing_instance|if:processing_instance_type_large:processing_instance_type_small}": true,
		"{region|aws_region}":     false,
		"{model_class|lower}":     false,
		"{author}-{service_name}": false,
		"s3://{bucket}":           false,
		"{today}":                 false,
		"{unclosed":               false,
	} {
		if got := TemplateIsCopy(tmpl); got != want {
			t.Errorf("TemplateIsCopy(%q) = %v", tmpl, got)
		}
	}
	if refs, err := TemplateFields("{a|if:b:c}-{today}"); err != nil || strings.Join(refs, ",") != "a,b,c" {
		t.Errorf("TemplateFields %v %v", refs, err)
	}
}

func TestParameterRefBlockers(t *testing.T) {
	c := mustDefault(t)
	xgb := mustStep(t, c, "XGBoostTraining").ParameterRefBlockers()
	for _, f := range []string{"job_type", "region", "author", "service_name", "model_class", "bucket", "pipeline_version"} {
		if xgb[f] == "" {
			t.Errorf("XGBoostTraining: %s may hold a reference", f)
		}
	}
	if !strings.Contains(xgb["region"], "aws_region") || !strings.Contains(xgb["job_type"], "SageMaker step") {
		t.Errorf("reasons %q / %q", xgb["region"], xgb["job_type"])
	}
	// instance types are copied into effective_instance_type, which nothing embeds
	for _, f := range []string{"training_instance_type", "label_name"} {
		if why := xgb[f]; why != "" {
			t.Errorf("XGBoostTraining: %s blocked: %s", f, why)
		}
	}
	tp := mustStep(t, c, "TabularPreprocessing").ParameterRefBlockers()
	if why := tp["processing_instance_type_large"]; why != "" {
		t.Errorf("processing_instance_type_large blocked: %s", why)
	}
	if why := mustStep(t, c, "Registration").ParameterRefBlockers()["region"]; !strings.Contains(why, "step name") {
		t.Errorf("Registration region: %q", why)
	}

	// a copy of a blocked field blocks its source; a copy nothing embeds does not
	fields := []ConfigField{
		{Name: "a", Type: FieldString}, {Name: "b", Type: FieldString, Derivation: "{a}"},
		{Name: "c", Type: FieldString, Derivation: "x-{b}"}, {Name: "d", Type: FieldString},
		{Name: "e", Type: FieldString, Derivation: "{d|or:a}"}, {Name: "n", Type: FieldString},
	}
	got := ParameterRefBlockers(fields, nil, "n")
	if !strings.Contains(got["a"], "copied into b") || !strings.Contains(got["b"], "c is derived") || got["d"] != "" || got["n"] == "" || got["job_type"] != "" {
		t.Errorf("blockers %v", got)
	}
}

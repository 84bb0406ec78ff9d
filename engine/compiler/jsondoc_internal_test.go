package compiler

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// decodedStrings is the reference the in-place reader is held to: the
// strings of text decoded by encoding/json, each with its path, in a walk
// over sorted keys.
func decodedStrings(t *testing.T, text string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, at+"="+x)
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", at, i), e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(at+"."+k, x[k])
			}
		}
	}
	walk("$", v)
	return out
}

// The in-place reader sees what encoding/json decodes: escapes, invalid
// UTF-8, numbers, literals, nesting and (for a text from elsewhere) a
// repeated key's last value; its walk, put in path order, is the decoded
// walk's.
func TestJSONDocReadsWhatDecodes(t *testing.T) {
	for _, text := range []string{
		`{"b":"x","a":["y",{"k":"\"q\" \\ \u00e9 \n"}],"c":{"z":1,"y":-2.5e+3,"x":true,"w":false,"v":null}}`,
		` { "s" : "\ud83d\ude00 é" , "t" : [ ] , "u" : { } } `,
		"{\"bad\":\"a\xffb\",\"ok\":\"a\"}",
		`{"k":"first","k":"second","j":{"Get":"x","Get":"y"}}`,
		`["a",["b",["c"]],{"10":"ten","9":"nine","Ä":"ae"}]`,
		`"top"`,
	} {
		d, err := parseJSONDoc(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		d.repeatedKeys = true
		type hit struct {
			path jsonPath
			s    string
		}
		var hits []hit
		walkDocStrings(jv{d, 0}, nil, func(p jsonPath, s string) { hits = append(hits, hit{slices.Clone(p), s}) })
		sortedByPath(hits, func(h hit) jsonPath { return h.path })
		var got []string
		for _, h := range hits {
			got = append(got, h.path.render("$")+"="+h.s)
		}
		if want := decodedStrings(t, text); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", text, got, want)
		}
	}
	if d, _ := parseJSONDoc(`{"Get":"x","Get":"y"}`); d != nil {
		d.repeatedKeys = true
		if g, _ := (jv{d, 0}).getStr("Get"); g != "y" || (jv{d, 0}).numMembers() != 1 {
			t.Errorf("a repeated key reads %q with %d members, want the last value, one member", g, (jv{d, 0}).numMembers())
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `"abc`, `{"a":1}x`, "\"a\x01\"", `tru`} {
		if _, err := parseJSONDoc(bad); err == nil {
			t.Errorf("%q read as JSON", bad)
		}
	}
}

// The compile's encoding, put together from its steps' encoding and the
// rest, is Definition.Marshal's, byte for byte.
func TestEncodeWithStepsIsMarshal(t *testing.T) {
	def := &Definition{Version: DefinitionVersion, Metadata: map[string]string{"a": "<&>"},
		Parameters:               []Parameter{{Name: "P", Type: "String", DefaultValue: "s3://b/<x>/"}},
		PipelineExperimentConfig: DefaultExperimentConfig(),
		Steps: []Step{{Name: "S", Type: StepTypeProcessing, Arguments: &ProcessingArguments{RoleArn: "r&d",
			AppSpecification: AppSpecification{ImageUri: Param("P")}}}},
	}
	steps, err := encodeSteps(def.Steps)
	if err != nil {
		t.Fatal(err)
	}
	enc := encodeWithSteps(def, steps)
	want, err := def.Marshal(false)
	if err != nil || enc.err != nil {
		t.Fatal(err, enc.err)
	}
	if string(enc.json) != string(want) {
		t.Fatalf("encoding\n%s\nwant\n%s", enc.json, want)
	}
	if !strings.Contains(string(want), "<&>") {
		t.Fatal("the definition escapes HTML characters")
	}
}

// A step's problems come in the order of its keys, as they did when the
// checks walked the decoded definition, whatever the order the encoding
// writes its members in (ProcessingResources is written before
// AppSpecification).
func TestReferenceProblemsInKeyOrder(t *testing.T) {
	def := &Definition{Version: DefinitionVersion, Parameters: []Parameter{},
		Steps: []Step{{Name: "S", Type: StepTypeProcessing, Arguments: &ProcessingArguments{
			ProcessingResources: ProcessingResources{ClusterConfig: ClusterConfig{InstanceType: Param("Zeta"), InstanceCount: 1, VolumeSizeInGB: "{{Parameters.Delta}}"}},
			AppSpecification:    AppSpecification{ImageUri: Param("Alpha"), ContainerArguments: []any{"{{Parameters.Beta}}", Param("Gamma")}},
		}}},
	}
	probs, err := CheckReferences(def)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, p := range probs {
		fields = append(fields, p.Field)
	}
	want := []string{"Arguments.AppSpecification.ContainerArguments[1]", "Arguments.AppSpecification.ImageUri", "Arguments.ProcessingResources.ClusterConfig.InstanceType"}
	if !slices.Equal(fields, want) {
		t.Errorf("problems at %q, want %q", fields, want)
	}
	var paths []string
	for _, b := range CheckReadiness(ReadinessInput{Result: &Result{Definition: def}}) {
		if b.Kind == BlockerUnresolvedReference || b.Kind == BlockerBadReference {
			paths = append(paths, b.Path)
		}
	}
	want = []string{"Steps[S].AppSpecification.ContainerArguments[0]", "Steps[S].ProcessingResources.ClusterConfig.VolumeSizeInGB",
		"Steps[S].Arguments.AppSpecification.ContainerArguments[1]", "Steps[S].Arguments.AppSpecification.ImageUri", "Steps[S].Arguments.ProcessingResources.ClusterConfig.InstanceType"}
	if !slices.Equal(paths, want) {
		t.Errorf("blockers at %q, want %q", paths, want)
	}
}

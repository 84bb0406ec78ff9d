package catalog

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// refusedAt reports whether parsing the file yields a problem whose field
// path starts with prefix.
func refusedAt(t *testing.T, file, body, prefix string) bool {
	t.Helper()
	_, err := ParseStepFile(file, []byte(body))
	for _, p := range Problems(err) {
		if strings.HasPrefix(p.Field, prefix) {
			return true
		}
	}
	return false
}

// TestExportedPatternsAreTheLoaders feeds sample names through the loader
// and checks it accepts exactly the names the exported pattern matches, so
// a tool that shows the patterns shows the rules in force.
func TestExportedPatternsAreTheLoaders(t *testing.T) {
	base := validExtraStep("Probe")
	training := strings.Replace(validTrainingStep("Probe"), "channels: [train, val]", "channels: [train, 'CHANNEL']", 1)
	cases := []struct {
		pattern string
		samples []string
		file    func(name string) (file, body, prefix string)
	}{
		{StepNamePattern, []string{"Probe", "Probe2", "P", "probe", "Probe_Step", "2Probe", "PröbeX", "Probe-X"}, func(n string) (string, string, string) {
			return n + StepFileSuffix, strings.Replace(base, "step: Probe\n", "step: '"+n+"'\n", 1), "step"
		}},
		{FieldNamePattern, []string{"extra", "extra_2", "e", "Extra", "_extra", "2x", "extra-x", "éx"}, func(n string) (string, string, string) {
			return "Probe" + StepFileSuffix, base + "  - {name: '" + n + "', type: string, tier: system, description: d}\n", "fields[2].name"
		}},
		{PortNamePattern, []string{"result", "DATA2", "out_x", "_x", "9x", "out-x", "out x"}, func(n string) (string, string, string) {
			return "Probe" + StepFileSuffix, strings.Replace(base, "  - name: processed_data\n", "  - name: '"+n+"'\n", 1), "outputs[0].name"
		}},
		{EnvNamePattern, []string{"KEY_COLS", "_X", "X2", "key_cols", "KEY-COLS", "9X", "KEY COLS"}, func(n string) (string, string, string) {
			return "Probe" + StepFileSuffix, strings.Replace(base, "{name: KEY_COLUMNS, required: true}", "{name: '"+n+"', required: true, field: key_columns}", 1), "contract.env[0].name"
		}},
		{JobTypePattern, []string{"training", "cal_2", "Training", "_x", "2x", "x-y"}, func(n string) (string, string, string) {
			return "Probe" + StepFileSuffix, strings.Replace(base, "keywords: [dedup, duplicates]\n", "keywords: [dedup, duplicates]\njob_types: ['"+n+"']\n", 1), "job_types[0]"
		}},
		{ScriptPattern, []string{"dedup.py", "sub/dedup.py", "_x.py", "a-b.py", "/abs.py", "dedup.sh", ".hidden.py", "x.py.txt"}, func(n string) (string, string, string) {
			b := strings.Replace(base, "entry_point: dedup.py", "entry_point: '"+n+"'", 1)
			return "Probe" + StepFileSuffix, strings.Replace(b, "default: dedup.py", "default: '"+n+"'", 1), "contract.entry_point"
		}},
		{ChannelPattern, []string{"val", "a.b-c_d", strings.Repeat("c", 64), strings.Repeat("c", 65), "bad channel", "a/b"}, func(n string) (string, string, string) {
			return "Probe" + StepFileSuffix, strings.Replace(training, "'CHANNEL'", "'"+n+"'", 1), "inputs[0].channels"
		}},
	}
	for _, c := range cases {
		re := regexp.MustCompile(c.pattern)
		for _, n := range c.samples {
			file, body, prefix := c.file(n)
			if refused, want := refusedAt(t, file, body, prefix), !re.MatchString(n); refused != want {
				t.Errorf("pattern %s, sample %q: loader refuses=%v, pattern refuses=%v", c.pattern, n, refused, want)
			}
		}
	}
}

// TestComputeKindsAndSDKClasses checks the exported tables against the
// loader: every listed kind and class is accepted, anything else refused,
// and the embedded steps use listed values only.
func TestComputeKindsAndSDKClasses(t *testing.T) {
	for _, v := range Verbs {
		if len(ComputeKinds(v)) == 0 {
			t.Errorf("verb %s has no compute kinds", v)
		}
	}
	k := ComputeKinds(VerbProcessing)
	k[0] = "mutated"
	if ComputeKinds(VerbProcessing)[0] == "mutated" {
		t.Error("ComputeKinds returns the internal slice")
	}
	if SDKClasses("sklearn") != nil || SDKClasses("estimator") == nil {
		t.Errorf("SDKClasses sklearn %v estimator %v", SDKClasses("sklearn"), SDKClasses("estimator"))
	}
	if got := strings.Join(ImageFrameworks(), ","); got != "none,pytorch,sklearn,xgboost" {
		t.Errorf("ImageFrameworks %s", got)
	}
	for _, s := range mustDefault(t).Steps() {
		if !slices.Contains(ComputeKinds(s.Verb), s.Compute.Kind) {
			t.Errorf("%s: kind %s not in ComputeKinds(%s)", s.Type, s.Compute.Kind, s.Verb)
		}
		if classes := SDKClasses(s.Compute.Kind); (classes == nil) != (s.Compute.SDKClass == "") || (classes != nil && !slices.Contains(classes, s.Compute.SDKClass)) {
			t.Errorf("%s: sdk_class %q vs SDKClasses(%s) %v", s.Type, s.Compute.SDKClass, s.Compute.Kind, classes)
		}
	}
	training := strings.Replace(validTrainingStep("Probe"), " channels: [train, val],", "", 1)
	file := func(kind, class string) string {
		return strings.Replace(training, "{kind: estimator, sdk_class: XGBoost}", "{kind: "+kind+", sdk_class: "+class+"}", 1)
	}
	for _, class := range SDKClasses("estimator") {
		if refusedAt(t, "Probe.step.yaml", file("estimator", class), "compute") {
			t.Errorf("estimator %s refused", class)
		}
	}
	for _, bad := range [][2]string{{"tuner", "XGBoost"}, {"estimator", "TensorFlow"}, {"estimator", "XGBoostModel"}} {
		if !refusedAt(t, "Probe.step.yaml", file(bad[0], bad[1]), "compute") {
			t.Errorf("Training with %s/%s accepted", bad[0], bad[1])
		}
	}
}

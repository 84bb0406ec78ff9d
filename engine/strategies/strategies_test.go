package strategies

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
)

func lib(t testing.TB) *Library {
	t.Helper()
	l, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestEveryStrategyNamesARealBuilder is the library's contract: it never
// describes a builder the compiler lacks, and it covers every builder.
func TestEveryStrategyNamesARealBuilder(t *testing.T) {
	l := lib(t)
	all, _ := l.List("")
	if len(all) == 0 {
		t.Fatal("empty library")
	}
	covered := map[catalog.Verb]bool{}
	for _, s := range all {
		b, ok := compiler.Builder(catalog.Verb(s.Verb))
		if !ok || b.Name != s.Handler || !compiler.HasBuilder(catalog.Verb(s.Verb)) {
			t.Errorf("strategy %s/%s names builder %q of verb %s, which the compiler does not have", s.Axis, s.Name, s.Handler, s.Verb)
			continue
		}
		if s.Axis == AxisStepAssembly && !slices.Contains(b.Assemblies, s.Name) {
			t.Errorf("assembly %s is not one %s accepts (%v)", s.Name, b.Name, b.Assemblies)
		}
		if s.DefinitionType != b.DefinitionType || s.APIRequest != b.APIRequest || !s.Routable || !s.Implemented {
			t.Errorf("strategy %s/%s disagrees with its builder: %+v", s.Axis, s.Name, s)
		}
		covered[b.Verb] = true
	}
	for _, b := range compiler.Builders() {
		if !covered[b.Verb] {
			t.Errorf("builder %s (%s) has no strategy", b.Name, b.Verb)
		}
	}
	// every catalog step type is routed to exactly one strategy
	cat, _ := catalog.Default()
	for _, st := range cat.Steps() {
		n := 0
		for _, s := range all {
			if slices.Contains(s.StepTypes, string(st.Type)) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("step type %s is routed to %d strategies", st.Type, n)
		}
	}
}

func TestListAndAxes(t *testing.T) {
	l := lib(t)
	axes := l.ListAxes()
	if len(axes) != 2 || axes[0].Axis != AxisSageMakerStepType || axes[1].Axis != AxisStepAssembly {
		t.Fatalf("axes %+v", axes)
	}
	var verbs []string
	for _, b := range compiler.Builders() {
		if b.Verb != catalog.VerbProcessing {
			verbs = append(verbs, string(b.Verb))
		}
	}
	slices.Sort(verbs)
	if axes[0].StrategyCount != len(verbs) || axes[1].StrategyCount != 2 {
		t.Fatalf("counts %+v", axes)
	}
	sm, err := l.List(AxisSageMakerStepType)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sm {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, verbs) {
		t.Fatalf("sagemaker_step_type strategies %v", names)
	}
	if got := l.Names(AxisStepAssembly); !slices.Equal(got, []string{"step_assembly/code", "step_assembly/step_args"}) {
		t.Fatalf("assemblies %v", got)
	}
	var ae *AxisError
	if _, err := l.List("colour"); !errors.As(err, &ae) {
		t.Fatalf("unknown axis: %v", err)
	}
}

func TestShow(t *testing.T) {
	l := lib(t)
	s, err := l.Show("training", "")
	if err != nil || s.Name != "Training" || s.Handler != "TrainingStepBuilder" || s.Verb != "Training" {
		t.Fatalf("show training: %+v %v", s, err)
	}
	if !slices.Contains(s.StepTypes, "XGBoostTraining") {
		t.Fatalf("Training step types %v", s.StepTypes)
	}
	code, _ := l.Show("code", AxisStepAssembly)
	if code.PresetKnobs["use_step_args"] != false || code.Knobs[0].Name != "patterns.step_assembly" {
		t.Fatalf("code: %+v", code)
	}
	args, _ := l.Show("step_args", "")
	if args.PresetKnobs["use_step_args"] != true {
		t.Fatalf("step_args preset: %+v", args.PresetKnobs)
	}
	_, err = l.Show("no-such-strategy", "")
	var nf *NotFoundError
	// One strategy per builder, the Processing builder's two assemblies counting twice.
	if want := len(compiler.Builders()) + 1; !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || len(nf.Available) != want {
		t.Fatalf("not found: %v", err)
	}
	if _, err := l.Show("Training", AxisStepAssembly); !errors.As(err, &nf) {
		t.Fatalf("wrong axis: %v", err)
	}
}

func TestAmbiguousAcrossAxes(t *testing.T) {
	cat, _ := catalog.Default()
	// a builder table where a Processing assembly is named like a verb
	bs := compiler.Builders()
	for i := range bs {
		if bs[i].Verb == catalog.VerbProcessing {
			bs[i].Assemblies = []string{"code", "Training"}
		}
	}
	l, err := New(bs, cat)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Show("Training", "")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !slices.Equal(amb.Axes, []string{AxisSageMakerStepType, AxisStepAssembly}) {
		t.Fatalf("want ambiguity, got %v", err)
	}
	if s, err := l.Show("Training", AxisStepAssembly); err != nil || s.Verb != "Processing" {
		t.Fatalf("axis resolves it: %v %v", s, err)
	}
	// two builders for one verb are refused
	if _, err := New(append(compiler.Builders(), compiler.Builders()[1]), cat); err == nil {
		t.Fatal("duplicate builder accepted")
	}
}

func TestKnobs(t *testing.T) {
	l := lib(t)
	knobs, s, err := l.Knobs(AxisSageMakerStepType, "Tuning")
	if err != nil || s.Name != "Tuning" {
		t.Fatal(err)
	}
	byName := map[string]Knob{}
	for _, k := range knobs {
		byName[k.Name] = k
		if k.Type == "" || k.Doc == "" || k.Source == "" {
			t.Errorf("incomplete knob %+v", k)
		}
	}
	// search_space is essential in every tuning step of the catalog; role is a base essential
	if !byName["search_space"].Required || !byName["role"].Required {
		t.Fatalf("required knobs: %+v %+v", byName["search_space"], byName["role"])
	}
	if byName["max_jobs"].Required || byName["max_jobs"].Default != 20 {
		t.Fatalf("max_jobs %+v", byName["max_jobs"])
	}
	var ae *AxisError
	if _, _, err := l.Knobs("", "Tuning"); !errors.As(err, &ae) {
		t.Fatalf("axis is required: %v", err)
	}
	var nf *NotFoundError
	if _, _, err := l.Knobs(AxisStepAssembly, "Tuning"); !errors.As(err, &nf) {
		t.Fatalf("wrong axis: %v", err)
	}
}

func TestForStepTypeRouting(t *testing.T) {
	l := lib(t)
	cases := []struct {
		typ, asm           string
		axis, name, verb   string
		stepType, noteWant string
	}{
		{"Processing", "", AxisStepAssembly, "code", "Processing", "", "defaults to code"},
		{"Processing", "step_args", AxisStepAssembly, "step_args", "Processing", "", ""},
		{"Training", "", AxisSageMakerStepType, "Training", "Training", "", ""},
		{"training", "code", AxisSageMakerStepType, "Training", "Training", "", "ignored"},
		{"Model", "", AxisSageMakerStepType, "CreateModel", "CreateModel", "", ""},
		{"Tuning", "", AxisSageMakerStepType, "Tuning", "Tuning", "", ""},
		{"XGBoostTraining", "", AxisSageMakerStepType, "Training", "Training", "XGBoostTraining", "is a Training step"},
		{"TabularPreprocessing_training", "", AxisStepAssembly, "code", "Processing", "TabularPreprocessing", "is a Processing step"},
		{"BatchTransform", "", AxisSageMakerStepType, "Transform", "Transform", "BatchTransform", ""},
		{"Registration", "", AxisSageMakerStepType, "RegisterModel", "RegisterModel", "Registration", ""},
	}
	for _, c := range cases {
		r, err := l.ForStepType(c.typ, c.asm)
		if err != nil {
			t.Errorf("%s/%s: %v", c.typ, c.asm, err)
			continue
		}
		if r.ResolvedAxis != c.axis || r.ResolvedName != c.name || r.Verb != c.verb || r.StepType != c.stepType || r.Strategy == nil || r.Strategy.Name != c.name {
			t.Errorf("%s/%s routed to %+v", c.typ, c.asm, r)
		}
		if c.noteWant != "" && !strings.Contains(strings.Join(r.Notes, " "), c.noteWant) {
			t.Errorf("%s/%s notes %v lack %q", c.typ, c.asm, r.Notes, c.noteWant)
		}
		// only an ignored assembly is a warning, and every warning is a note
		if ignored := c.noteWant == "ignored"; ignored != (len(r.Warnings) == 1) || (ignored && !slices.Contains(r.Notes, r.Warnings[0])) {
			t.Errorf("%s/%s warnings %v, notes %v", c.typ, c.asm, r.Warnings, r.Notes)
		}
	}
	for _, bad := range []string{"Base", "AutoML", "MimsModelRegistrationProcessing", "", "Frobnicate"} {
		_, err := l.ForStepType(bad, "")
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(nf.Error(), "no builder") || len(nf.Available) == 0 {
			t.Errorf("%q: want not found without a builder, got %v", bad, err)
		}
	}
	_, err := l.ForStepType("Processing", "lambda")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(nf.Error(), "unknown step assembly") {
		t.Fatalf("unknown assembly: %v", err)
	}
}

func BenchmarkForStepType(b *testing.B) {
	l := lib(b)
	for b.Loop() {
		if _, err := l.ForStepType("XGBoostTraining", ""); err != nil {
			b.Fatal(err)
		}
	}
}

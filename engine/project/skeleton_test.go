package project

import (
	"bytes"
	"strings"
	"testing"
	"text/template"

	"github.com/cursus-go/cursus/engine/catalog"
)

// The skeleton renderer renders templates/script.py.tmpl byte for byte as
// text/template does, for every catalog step and for views that turn every
// condition of the template on and off.
func TestSkeletonTemplateRendersAsTextTemplate(t *testing.T) {
	ref := template.Must(template.New("script.py.tmpl").Delims("<<", ">>").Funcs(template.FuncMap{"py": pyLiteral}).
		ParseFS(templates, "templates/script.py.tmpl"))
	tpl, err := scriptTemplate()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, v scriptView) {
		t.Helper()
		var want bytes.Buffer
		if err := ref.Execute(&want, v); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		if err := tpl.execute(&got, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.String() != want.String() {
			t.Fatalf("%s: the skeleton differs from text/template's:\n%s\n----\n%s", name, got.String(), want.String())
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, st := range cat.Steps() {
		if st.Contract.EntryPoint == "" {
			continue
		}
		v := skeletonView(st)
		kinds[v.Kind]++
		check(string(st.Type), v)
	}
	for _, k := range []string{KindSplit, KindTrain, KindEvaluate, KindPassthrough} {
		if kinds[k] == 0 {
			t.Errorf("no catalog step renders a %s skeleton", k)
		}
	}
	on := func(i, bit int, s string) string {
		if i>>bit&1 == 1 {
			return s
		}
		return ""
	}
	for i := range 1 << 12 {
		v := scriptView{Type: "T", EntryPoint: "e.py", Description: "d", Hook: "h", Kind: []string{KindSplit, KindTrain, KindEvaluate, KindPassthrough}[i%4],
			Behaviour: "b", Toolkit: i>>2&1 == 1, HyperInput: on(i, 3, "hp"), LabelEnv: on(i, 4, "LABEL"), IDEnv: on(i, 5, "ID"),
			TrainRatioEnv: on(i, 6, "TR"), TestValRatioEnv: on(i, 7, "TV"), MainOutput: on(i, 8, "main"), EvalOutput: on(i, 9, "ev"),
			DataInput: "data", ModelInput: "model", ModelOutput: "mo", RequiredInputs: []string{}}
		if i>>10&1 == 1 {
			v.Inputs = []portView{{"a", "/p/a", true}, {"b", "/p/b", false}}
			v.Env = []envView{{"E", "x", true}, {"F", "y", false}}
			v.Args = []argView{{"--f", "src"}}
			v.ExtraDataInputs, v.OtherOutputs, v.RequiredInputs = []string{"x1", "x2"}, []string{"o1"}, []string{"a"}
		}
		if i>>11&1 == 1 {
			v.Outputs = []portView{{Name: "m", Path: "/o/m"}}
		}
		check(v.Kind, v)
	}
}

func TestSkeletonTemplateLanguage(t *testing.T) {
	type item struct{ Name string }
	data := struct {
		Kind  string
		On    bool
		Items []item
		Names []string
	}{Kind: "b", On: true, Items: []item{{"x"}, {"y"}}, Names: []string{"p", "q"}}
	tpl, err := parseSkeleton(`[<<if eq .Kind "a">>A<<else if eq .Kind "b">>B<<else>>C<<end>>]` +
		"<<range .Items>>\n  <<- .Name>><<end>> <<py .Names>> <<if .On>>on<<end>><<range .Names>><<py .>><<end>>")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tpl.execute(&b, data); err != nil {
		t.Fatal(err)
	}
	if want := `[B]xy ["p", "q"] on"p""q"`; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	for _, bad := range []string{"<<if .On>>x", "<<end>>", "<<range .Items>>x<<else>>y<<end>>", "<<.Items.Name>>", "<<if eq .Kind a>>x<<end>>", "<<.On"} {
		if _, err := parseSkeleton(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for src, want := range map[string]string{"<<.Missing>>": "no field .Missing", "<<.On>>": "not a string", "<<range .Kind>><<end>>": "range .Kind"} {
		tpl, err := parseSkeleton(src)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tpl.execute(&b, data); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", src, err, want)
		}
	}
}

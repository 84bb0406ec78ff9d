package stages

import (
	"strings"
	"testing"
)

func TestDefaultLoads(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if s.Hub() != "orchestrator" {
		t.Errorf("hub = %q", s.Hub())
	}
	want := []string{"plan", "author_step", "configure", "validate", "compile"}
	if got := strings.Join(s.Sequence(), ","); got != strings.Join(want, ",") {
		t.Errorf("sequence = %s", got)
	}
	if got := strings.Join(s.Names(), ","); got != "orchestrator,"+strings.Join(want, ",") {
		t.Errorf("names = %s", got)
	}
	for _, st := range s.Stages() {
		if st.Description == "" || st.Prompt == "" || len(st.Checklist) == 0 {
			t.Errorf("stage %s: incomplete", st.Name)
		}
		if st.ModelTier != TierFast && st.ModelTier != TierStrong {
			t.Errorf("stage %s: tier %q", st.Name, st.ModelTier)
		}
		if st.Name != s.Hub() && len(st.Completion) == 0 {
			t.Errorf("stage %s: no completion test", st.Name)
		}
	}
	if st, _ := s.Stage("plan"); st.ModelTier != TierStrong {
		t.Errorf("plan should be strong, got %s", st.ModelTier)
	}
	if st, _ := s.Stage("configure"); st.ModelTier != TierFast {
		t.Errorf("configure should be fast, got %s", st.ModelTier)
	}
	// Default is built once.
	s2, _ := Default()
	if s2 != s {
		t.Error("Default returned a different set")
	}
}

func TestVisibility(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stage, tool string
		want        bool
	}{
		{"orchestrator", "workflow.start_stage", true},
		{"orchestrator", "tools.help", true},
		{"orchestrator", "compile.definition", false},
		{"plan", "workflow.status", true},
		{"plan", "pipeline_catalog.recommend", true},
		{"plan", "compile.with_report", false},
		{"compile", "compile.with_report", true},
		{"compile", "author.check_script", false},
		{"validate", "compile.validate", true},
		{"configure", "config.merge_save", true},
		{"author_step", "validate.step_interface", true},
		{"nope", "compile.dag", false},
	}
	for _, c := range cases {
		if got := s.Visible(c.stage, c.tool); got != c.want {
			t.Errorf("Visible(%s, %s) = %v, want %v", c.stage, c.tool, got, c.want)
		}
	}
	if got := strings.Join(s.Offering("compile.preview"), ","); got != "validate" {
		t.Errorf("Offering(compile.preview) = %s", got)
	}
	if got := strings.Join(s.Offering("catalog.search"), ","); got != "plan,author_step" {
		t.Errorf("Offering(catalog.search) = %s", got)
	}
	if got := len(s.Offering("workflow.status")); got != len(s.Names()) {
		t.Errorf("workflow.status offered in %d stages, want all %d", got, len(s.Names()))
	}
	if got := s.Offering("nothing.here"); got != nil {
		t.Errorf("Offering(unknown) = %v", got)
	}
	if _, err := s.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "orchestrator") {
		t.Errorf("Lookup(nope) = %v", err)
	}
	tools := s.Tools()
	for i := 1; i < len(tools); i++ {
		if tools[i-1] >= tools[i] {
			t.Fatalf("Tools not sorted/unique at %d: %v", i, tools)
		}
	}
}

const minimal = `
always_visible: [tools, workflow]
hub: hub
sequence: [one]
stages:
  - name: hub
    description: the hub
    model_tier: fast
    tools: []
    prompt: go
    checklist: [do]
  - name: one
    description: stage one
    model_tier: strong
    tools: [dag.construct, compile.validate]
    prompt: "work on {run_id} in {run_dir}"
    checklist: [do it]
    completion:
      - check: dag_valid
      - check: report
        tool: compile.validate
        require: [is_valid]
    record:
      - tool: compile.validate
`

func TestParseMinimal(t *testing.T) {
	s, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Names(), ","); got != "hub,one" {
		t.Errorf("names = %s", got)
	}
	st, _ := s.Stage("one")
	if _, ok := st.RecordFor("compile.validate"); !ok {
		t.Error("record missing")
	}
	if _, ok := st.RecordFor("dag.construct"); ok {
		t.Error("dag.construct is not recorded")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", "    prompt: go\n", "    prompt: go\n    promt: x\n", "field promt not found"},
		{"bad tier", "model_tier: strong", "model_tier: huge", `model_tier "huge"`},
		{"duplicate tool", "tools: [dag.construct, compile.validate]", "tools: [dag.construct, dag.construct, compile.validate]", "listed twice"},
		{"bad tool name", "tools: [dag.construct, compile.validate]", "tools: [Dag, compile.validate]", "not a dotted tool name"},
		{"always-visible tool", "tools: [dag.construct, compile.validate]", "tools: [tools.help, compile.validate]", "always-visible namespace"},
		{"unknown check", "- check: dag_valid", "- check: dag_ok", `unknown check "dag_ok"`},
		{"report without record", "    record:\n      - tool: compile.validate\n", "", "does not record"},
		{"record not listed", "tools: [dag.construct, compile.validate]", "tools: [dag.construct]", "does not list in tools"},
		{"unknown placeholder", "{run_dir}", "{run_folder}", "unknown placeholder {run_folder}"},
		{"empty checklist", "checklist: [do it]", "checklist: []", "checklist is empty"},
		{"hub missing", "hub: hub", "hub: nobody", `hub "nobody" is not a stage`},
		{"hub in sequence", "sequence: [one]", "sequence: [one, hub]", "cannot be in the sequence"},
		{"stage outside sequence", "sequence: [one]", "sequence: []", "neither the hub nor in the sequence"},
		{"bad stage name", "name: one", "name: One", "lower snake case"},
		{"capture to unknown file", "      - tool: compile.validate\n", "      - tool: compile.validate\n        capture: {field: x, file: secrets}\n", `capture file "secrets"`},
		{"check args on dag_valid", "- check: dag_valid", "- check: dag_valid\n        tool: x.y", "takes no tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(minimal, c.from, c.to, 1)
			if src == minimal {
				t.Fatalf("replacement %q did not apply", c.from)
			}
			_, err := Parse([]byte(src))
			if err == nil {
				t.Fatalf("Parse accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	r := &Run{ID: "r1", Root: "/p", Dir: "/p/runs/r1"}
	got := Expand("{run_id} {dag_file} {config_file} {definition_file} {reports_dir} {steps_dir} {run_dir}", r)
	want := "r1 /p/runs/r1/dag.json /p/runs/r1/config.json /p/runs/r1/pipeline.definition.json /p/runs/r1/reports /p/runs/r1/steps /p/runs/r1"
	if got != want {
		t.Errorf("Expand = %q", got)
	}
	if Expand("{run_id}", nil) != "{run_id}" {
		t.Error("Expand with nil run changed the text")
	}
}

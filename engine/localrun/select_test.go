package localrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A run of selected steps runs those only: the step they read is substituted from data (and must
// be given), the steps after them do not run, and an unknown step name is refused.
func TestSelectedStepsRunAlone(t *testing.T) {
	p, _ := chain(t)
	p.script("s3://bucket/code/after.py", "after.py", `print("after")`)
	p.step(processing("After", "after.py", [][3]string{{"result", outGet("Consume", "result"), "/opt/ml/processing/input/result"}}, []string{"done"}, nil, nil))

	_, err := Run(context.Background(), p.result(), Options{WorkDir: t.TempDir(), Steps: []string{"Consume", "Nope"}})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "steps" || !strings.Contains(err.Error(), `"Nope"`) || !strings.Contains(err.Error(), "Consume, Produce") {
		t.Fatalf("unknown step: %v", err)
	}

	needPython(t)
	rep := p.run(Options{Steps: []string{"Consume"}})
	s := wantStatus(t, rep, "Produce", StatusFailed)
	if !strings.Contains(s.Error, "Produce is not selected") || !strings.Contains(s.Error, `"Produce.data"`) {
		t.Errorf("without its data the step read fails naming the data key: %s", s.Error)
	}

	dir := filepath.Join(t.TempDir(), "given")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = p.run(Options{Steps: []string{"Consume"}, Data: map[string]string{"Produce.data": dir}})
	if !rep.Succeeded {
		t.Fatalf("run of Consume alone: %+v", rep.Failed)
	}
	wantStatus(t, rep, "Produce", StatusSubstituted)
	wantStatus(t, rep, "Consume", StatusSucceeded)
	if len(rep.Steps) != 2 || !slices.Equal(rep.NotSelected, []string{"After"}) {
		t.Errorf("steps %d, not selected %v; want After left out", len(rep.Steps), rep.NotSelected)
	}
}

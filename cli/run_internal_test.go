package cli

import (
	"bytes"
	"testing"
)

// A run's plots get a line each on stderr; a report without plots, none.
func TestPrintPlots(t *testing.T) {
	var w bytes.Buffer
	printPlots(&w, []byte(`{"steps": [], "plots": [{"step": "Eval", "output": "metrics", "name": "roc_curve.png", "path": "/r/roc_curve.png"},
		{"step": "Calibrate", "output": "plots", "name": "reliability.png", "path": "/r/reliability.png"}]}`))
	if got := w.String(); got != "plot of Eval: /r/roc_curve.png\nplot of Calibrate: /r/reliability.png\n" {
		t.Fatalf("lines %q", got)
	}
	w.Reset()
	printPlots(&w, []byte(`{"steps": []}`))
	if w.Len() != 0 {
		t.Fatalf("no plots, yet %q", w.String())
	}
}

// The line an interrupted run ends with names the running steps, the
// report and the run folder; with none running it says so.
func TestInterruptedLine(t *testing.T) {
	got := interrupted(map[string]any{"run_dir": "/w/local-1", "running": []any{"A", "B"}})
	if want := "interrupted: stopped while A, B ran; the run's report is /w/local-1/report.json, its folder /w/local-1"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if got := interrupted(map[string]any{"run_dir": "/w/x", "running": []string{}}); got != "interrupted: no step was running; the run's report is /w/x/report.json, its folder /w/x" {
		t.Fatalf("%q", got)
	}
}

package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/stages"
)

// Step is what a phase works with while it runs: the run's arguments and
// variables, the tool caller, and the bookkeeping of calls, artifacts and
// reports that end up in the run state.
type Step struct {
	r     *runner
	phase Phase
	ps    *PhaseState
}

// RunID is the run's id.
func (s *Step) RunID() string { return s.r.st.RunID }

// Root is the project root (absolute).
func (s *Step) Root() string { return s.r.root }

// RunDir is the run folder (absolute).
func (s *Step) RunDir() string { return RunDir(s.r.root, s.r.st.RunID) }

// RunPath returns a path inside the run folder, relative to the project
// root (what tools take: they resolve relative paths from the root).
func (s *Step) RunPath(elem ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{runs.Join("", s.r.st.RunID)}, elem...)...))
}

// FS is the file-access layer the run reads and writes through.
func (s *Step) FS() *safefs.FS { return s.r.opts.FS }

// Abs turns a path into an absolute one: relative paths are taken from the
// project root.
func (s *Step) Abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(s.r.root, filepath.FromSlash(p))
}

// Rel turns a path into one relative to the project root, with forward
// slashes; it fails for a path outside the root.
func (s *Step) Rel(p string) (string, error) {
	rel, err := filepath.Rel(s.r.root, s.Abs(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %s is outside the project root %s", p, s.r.root)
	}
	return filepath.ToSlash(rel), nil
}

// Args are the run's normalized arguments. Do not modify them.
func (s *Step) Args() map[string]any { return s.r.st.Args }

// ArgString returns a string argument, or "".
func (s *Step) ArgString(name string) string {
	v, _ := s.r.st.Args[name].(string)
	return v
}

// ArgBool returns a boolean argument, or false.
func (s *Step) ArgBool(name string) bool {
	v, _ := s.r.st.Args[name].(bool)
	return v
}

// ArgObject returns an object argument, or nil.
func (s *Step) ArgObject(name string) map[string]any {
	v, _ := s.r.st.Args[name].(map[string]any)
	return v
}

// Vars are the run's variables.
func (s *Step) Vars() Vars { return s.r.st.Vars }

// Set stores a variable for later phases (and for resumes).
func (s *Step) Set(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("variable %s: %w", key, err)
	}
	s.r.st.Vars[key] = b
	return nil
}

// Summary records a key fact of the phase in its outcome.
func (s *Step) Summary(key string, v any) {
	if s.ps.Summary == nil {
		s.ps.Summary = map[string]any{}
	}
	s.ps.Summary[key] = v
}

// Warn records a warning of the phase; the run's result lists it.
func (s *Step) Warn(format string, args ...any) {
	s.ps.Warnings = append(s.ps.Warnings, fmt.Sprintf(format, args...))
}

// Call calls a tool and records the call in the run state (written before
// the call, so a run killed mid-call shows it in flight). A tool failure is a Response
// with OK false; the error is non-nil only when the context was cancelled.
func (s *Step) Call(ctx context.Context, tool string, args any) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	s.ps.Calls = append(s.ps.Calls, CallRecord{Tool: tool, Status: "started"})
	idx := len(s.ps.Calls) - 1
	if err := s.r.save(); err != nil {
		return Response{}, err
	}
	resp := newResponse(tool, s.r.opts.Caller.CallTool(ctx, tool, args))
	rec := &s.ps.Calls[idx]
	rec.Status, rec.OK = "done", resp.OK
	if !resp.OK {
		rec.Code, rec.Error = resp.Code, truncate(resp.Error, 300)
	}
	// The outcome is written with the next save (the next call or the
	// phase's end), which every path out of a phase makes.
	if !resp.OK && ctx.Err() != nil {
		return resp, ctx.Err()
	}
	return resp, nil
}

// Require calls a tool whose success is part of the gate: a failure
// becomes a *GateFailure carrying the tool's envelope.
func (s *Step) Require(ctx context.Context, tool string, args any) (Response, error) {
	resp, err := s.Call(ctx, tool, args)
	if err != nil {
		return resp, err
	}
	if !resp.OK {
		return resp, &GateFailure{Tool: tool, Code: resp.Code, Message: resp.Error, Envelope: resp.Envelope}
	}
	return resp, nil
}

// RequireAndReport is Require followed, when the tool succeeds, by Report
// of its answer (under key, as Report takes it): the way a phase calls a
// gating tool whose answer the run keeps in reports/.
func (s *Step) RequireAndReport(ctx context.Context, tool string, args any, key ...string) (Response, error) {
	resp, err := s.Require(ctx, tool, args)
	if err != nil {
		return resp, err
	}
	if err := s.Report(tool, args, resp, key...); err != nil {
		return resp, err
	}
	return resp, nil
}

// Gate returns a *GateFailure for a check the workflow makes itself on a
// tool's answer (the answer's envelope is kept).
func Gate(tool string, resp Response, format string, args ...any) *GateFailure {
	return &GateFailure{Tool: tool, Code: envelope.CodeGateFailed, Message: fmt.Sprintf(format, args...), Envelope: resp.Envelope}
}

// Report records a tool call's answer in the run folder, in the guided
// stages' report format (stages.Report: tool, stage, recorded_at, work_dir,
// args, ok, result = the whole envelope), as reports/<tool>.json, or
// reports/<tool>.<key>.json for one of several calls of the same tool (one
// per node). The report is an output artifact of the phase.
func (s *Step) Report(tool string, args any, resp Response, key ...string) error {
	a, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("report %s: %w", tool, err)
	}
	rep := stages.Report{Tool: tool, Stage: s.phase.Stage, RecordedAt: time.Now().UTC(), WorkDir: s.r.root,
		Args: a, OK: resp.OK, Result: resp.Envelope}
	name := tool
	if len(key) > 0 && key[0] != "" {
		name += "." + key[0]
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("report %s: %w", tool, err)
	}
	return s.WriteFile(s.RunPath(stages.ReportsDir, name+".json"), append(b, '\n'))
}

// WriteFile writes a file (atomically) under the project root and records
// it as an output artifact of the phase.
func (s *Step) WriteFile(p string, data []byte) error {
	rel, err := s.Rel(p)
	if err != nil {
		return err
	}
	if err := s.FS().WriteFile(s.Abs(rel), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	s.addArtifact(rel, ArtifactOutput, hashBytes(data))
	return nil
}

// Record records a file a tool wrote as an output artifact: on resume, the
// phase passes again only while the file is unchanged.
func (s *Step) Record(p string) error {
	rel, err := s.Rel(p)
	if err != nil {
		return err
	}
	b, err := s.FS().ReadFile(s.Abs(rel), safefs.KindDocument)
	if err != nil {
		return fmt.Errorf("artifact %s: %w", rel, err)
	}
	s.addArtifact(rel, ArtifactOutput, hashBytes(b))
	return nil
}

// recordRead is Record of a file the phase has just read as b: the hash is
// of exactly what the phase judged, without reading the file again.
func (s *Step) recordRead(p string, b []byte) error {
	rel, err := s.Rel(p)
	if err != nil {
		return err
	}
	s.addArtifact(rel, ArtifactOutput, hashBytes(b))
	return nil
}

// Handoff records a file that a later phase or a person is expected to
// change (a script skeleton): on resume only its existence is checked.
func (s *Step) Handoff(p string) error {
	rel, err := s.Rel(p)
	if err != nil {
		return err
	}
	if _, err := s.FS().Stat(s.Abs(rel)); err != nil {
		return fmt.Errorf("handoff %s: %w", rel, err)
	}
	s.addArtifact(rel, ArtifactHandoff, "")
	return nil
}

// Watch records an answer file the phase looked for and did not find:
// when it appears, the phase (and every later one) runs again on resume.
func (s *Step) Watch(p string) error {
	rel, err := s.Rel(p)
	if err != nil {
		return err
	}
	s.addArtifact(rel, ArtifactAbsent, "")
	return nil
}

// ReadAnswer reads an answer file of the run (one a person writes before
// resuming a stopped phase, such as values.json). When the file exists,
// parse takes its content; if parse accepts it, the file is recorded
// (Record), so a later edit makes the phase run again, and found is true.
// When it does not exist, the phase watches for it (Watch).
func (s *Step) ReadAnswer(p string, parse func([]byte) error) (found bool, err error) {
	b, err := s.FS().ReadFile(s.Abs(p), safefs.KindDocument)
	switch {
	case err == nil:
		if err := parse(b); err != nil {
			return false, err
		}
		return true, s.recordRead(p, b)
	case errors.Is(err, fs.ErrNotExist):
		return false, s.Watch(p)
	}
	return false, err
}

func (s *Step) addArtifact(rel, kind, sum string) {
	for i, a := range s.ps.Artifacts {
		if a.Path == rel {
			s.ps.Artifacts[i] = Artifact{Path: rel, Kind: kind, SHA256: sum}
			return
		}
	}
	s.ps.Artifacts = append(s.ps.Artifacts, Artifact{Path: rel, Kind: kind, SHA256: sum})
}

// PreviousAttempts is the number of earlier attempts of this phase in this
// run (0 on the first).
func (s *Step) PreviousAttempts() int { return s.ps.Attempts - 1 }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Save writes the run state now (variables set so far included), so a run
// killed before the phase ends still knows what the phase did.
func (s *Step) Save() error { return s.r.save() }

package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/safefs"
)

// StateFile is the name of the run state file in a run folder.
const StateFile = "workflow.json"

// stateVersion is the version of the run state format.
const stateVersion = 1

// State is a run's state, kept in runs/<run_id>/workflow.json and rewritten
// (atomically) before and after every tool call and at every phase
// transition, so an interrupted run resumes where it was. Paths in it are
// relative to the project root, with forward slashes.
type State struct {
	Version  int            `json:"version"`
	RunID    string         `json:"run_id"`
	Workflow string         `json:"workflow"`
	Args     map[string]any `json:"args"`
	Status   string         `json:"status"`
	Halt
	Phases  []PhaseState   `json:"phases"`
	Vars    Vars           `json:"vars"`
	Outputs map[string]any `json:"outputs,omitempty"`
}

// Halt says why a run did not finish: where and why it stopped for
// judgment, or which gate failed and how to fix it (Reason also holds a
// cancellation's cause). The run state keeps it and a Result reports it;
// both encode its fields inline.
type Halt struct {
	// StoppedAt, Reason, ActionItems, ToolCalls and Files describe a stop
	// for judgment.
	StoppedAt   string     `json:"stopped_at,omitempty"`
	Reason      string     `json:"reason,omitempty"`
	ActionItems []string   `json:"action_items,omitempty"`
	ToolCalls   []ToolCall `json:"tool_calls,omitempty"`
	Files       []string   `json:"files,omitempty"`
	// FailedAt, FailedTool, Envelope and Remedy describe a failed gate.
	FailedAt   string          `json:"failed_at,omitempty"`
	FailedTool string          `json:"failed_tool,omitempty"`
	Envelope   json.RawMessage `json:"envelope,omitempty"`
	Remedy     string          `json:"remedy,omitempty"`
}

// PhaseState is the recorded outcome of one phase.
type PhaseState struct {
	Name      string         `json:"name"`
	Status    string         `json:"status"`
	Attempts  int            `json:"attempts"`
	Message   string         `json:"message,omitempty"`
	Calls     []CallRecord   `json:"calls,omitempty"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	Summary   map[string]any `json:"summary,omitempty"`
	Warnings  []string       `json:"warnings,omitempty"`
}

// CallRecord is one tool call a phase made. Status is "started" while the
// call is in flight (a run killed mid-call shows it), then "done".
type CallRecord struct {
	Tool   string        `json:"tool"`
	Status string        `json:"status"`
	OK     bool          `json:"ok"`
	Code   envelope.Code `json:"code,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// Artifact kinds.
const (
	// ArtifactOutput is a file a passed phase vouches for: on resume its
	// hash must still match, or the phase runs again.
	ArtifactOutput = "output"
	// ArtifactHandoff is a file a phase creates for a later phase (or a
	// person) to change, such as a script skeleton: only its existence is
	// checked; the later phase's gate verifies its content.
	ArtifactHandoff = "handoff"
	// ArtifactAbsent is an answer file a phase looked for and did not find
	// (values.json, dag_choice.json): once it exists, the phase runs again.
	ArtifactAbsent = "absent"
)

// Artifact is a file a phase wrote or vouched for.
type Artifact struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256,omitempty"`
}

// Vars are the values phases hand to later phases (a project's folder, the
// DAG file, the chosen DAG id), kept in the run state as JSON.
type Vars map[string]json.RawMessage

// Get decodes the variable into v and reports whether it was set.
func (v Vars) Get(key string, into any) bool {
	raw, ok := v[key]
	if !ok {
		return false
	}
	return json.Unmarshal(raw, into) == nil
}

// String returns a string variable, or "".
func (v Vars) String(key string) string {
	var s string
	v.Get(key, &s)
	return s
}

// Has reports whether the variable is set.
func (v Vars) Has(key string) bool {
	_, ok := v[key]
	return ok
}

// RunDir returns the folder of a run under the project root (the run
// folder's layout, runs/<id>/, shared with the guided stages).
func RunDir(root, runID string) string { return runs.Join(root, runID) }

// checkRunID is runs.CheckID as a *RunError (its cause the *runs.IDError,
// which says what a run id must be).
func checkRunID(runID string) error {
	if err := runs.CheckID(runID); err != nil {
		return &RunError{RunID: runID, Msg: "not a valid run id", Err: err}
	}
	return nil
}

// statePath is the run state file of a run under the project root.
func statePath(root, runID string) string { return filepath.Join(RunDir(root, runID), StateFile) }

// runNotFound is the *RunError of a run folder without a run state.
func runNotFound(runID string) error {
	return &RunError{RunID: runID, Msg: fmt.Sprintf("no %s under %s", StateFile, runs.Join("", runID)), Err: ErrRunNotFound}
}

// LoadState reads a run's state. A missing run is ErrRunNotFound (wrapped in
// a *RunError).
func LoadState(fsys *safefs.FS, root, runID string) (*State, error) {
	if err := checkRunID(runID); err != nil {
		return nil, err
	}
	b, err := fsys.ReadFile(statePath(root, runID), safefs.KindDocument)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, runNotFound(runID)
	}
	if err != nil {
		return nil, &RunError{RunID: runID, Msg: "cannot read the run state", Err: err}
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, &RunError{RunID: runID, Msg: "malformed " + StateFile, Err: err}
	}
	if st.Version != stateVersion {
		return nil, &RunError{RunID: runID, Msg: fmt.Sprintf("run state version %d, this engine reads %d", st.Version, stateVersion)}
	}
	if st.RunID != runID {
		return nil, &RunError{RunID: runID, Msg: fmt.Sprintf("the state names run %q", st.RunID)}
	}
	if st.Vars == nil {
		st.Vars = Vars{}
	}
	return &st, nil
}

func saveState(fsys *safefs.FS, root string, st *State) error {
	return fsys.WriteJSON(statePath(root, st.RunID), st)
}

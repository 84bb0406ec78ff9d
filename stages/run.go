package stages

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/safefs"
)

// The run folder layout (see the package doc).
const (
	StateFile      = "run.json"
	DAGFile        = "dag.json"
	ConfigFile     = "config.json"
	ReportsDir     = "reports"
	DefinitionFile = "pipeline.definition.json"
	StepsDir       = "steps"
)

// The artifact names (Run.Path, Capture.File).
const (
	ArtifactDAG        = "dag"
	ArtifactConfig     = "config"
	ArtifactDefinition = "definition"
)

// ArtifactNames lists the artifact names in pipeline order.
var ArtifactNames = []string{ArtifactDAG, ArtifactConfig, ArtifactDefinition}

var artifactFiles = map[string]string{
	ArtifactDAG:        DAGFile,
	ArtifactConfig:     ConfigFile,
	ArtifactDefinition: DefinitionFile,
}

// Errors of the run folder.
var (
	// ErrRunNotFound: no run folder with that id under the project root
	// (the run folder's own error, runs.ErrNotFound, which workflow
	// answers too).
	ErrRunNotFound = runs.ErrNotFound
	// ErrRunExists: a run folder with that id already exists.
	ErrRunExists = errors.New("run already exists")
	// ErrNoReport: the tool's report has not been recorded.
	ErrNoReport = errors.New("no report recorded")
)

// NewRunID returns a fresh run id: run-<UTC date>-<time>-<4 random hex>.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return "run-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Run is one run folder. Its methods read and write files under Dir only,
// through the file-access layer the run was opened with.
type Run struct {
	// ID is the run id (the folder's name).
	ID string `json:"run_id"`
	// Root is the project root the run lives under.
	Root string `json:"project_root"`
	// Dir is the absolute run folder: <Root>/runs/<ID>.
	Dir string `json:"run_dir"`

	fs *safefs.FS
}

// FS is the file-access layer the run reads and writes through.
func (r *Run) FS() *safefs.FS { return r.fs }

// WithFS returns the run reached through another file-access layer (a
// later call's, when a session keeps the run across calls).
func (r *Run) WithFS(fsys *safefs.FS) *Run {
	c := *r
	c.fs = fsys
	return &c
}

// State is the content of run.json.
type State struct {
	RunID     string       `json:"run_id"`
	CreatedAt time.Time    `json:"created_at"`
	Completed []Completion `json:"completed"`
}

// Completion records that a stage's completion test passed.
type Completion struct {
	Stage string    `json:"stage"`
	At    time.Time `json:"at"`
}

// CreateRun makes the run folder (and its reports folder) and writes
// run.json, through fsys (nil: the trusted layer). It fails with
// ErrRunExists when the folder exists.
func CreateRun(fsys *safefs.FS, root, id string, now time.Time) (*Run, error) {
	dir, err := runs.Path(fsys, root, id)
	if err != nil {
		return nil, err
	}
	if err := fsys.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if err := fsys.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: %s", ErrRunExists, dir)
		}
		return nil, err
	}
	r := &Run{ID: id, Root: filepath.Dir(filepath.Dir(dir)), Dir: dir, fs: fsys}
	if err := fsys.MkdirAll(r.ReportsPath(), 0o755); err != nil {
		return nil, err
	}
	if err := fsys.WriteJSON(filepath.Join(dir, StateFile), State{RunID: id, CreatedAt: now.UTC(), Completed: []Completion{}}); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenRun returns an existing run, reached through fsys (nil: the trusted
// layer); ErrRunNotFound when its folder is missing or fsys cannot reach it
// (a runs/<id> that is a symbolic link out of a confined root).
func OpenRun(fsys *safefs.FS, root, id string) (*Run, error) {
	dir, err := runs.Path(fsys, root, id)
	if err != nil {
		return nil, err
	}
	if !fsys.IsDir(dir) {
		return nil, fmt.Errorf("%w: %s", ErrRunNotFound, dir)
	}
	return &Run{ID: id, Root: filepath.Dir(filepath.Dir(dir)), Dir: dir, fs: fsys}, nil
}

// Path returns the absolute path of an artifact (ArtifactNames), or "".
func (r *Run) Path(artifact string) string {
	f, ok := artifactFiles[artifact]
	if !ok {
		return ""
	}
	return filepath.Join(r.Dir, f)
}

// DAGPath is <run>/dag.json.
func (r *Run) DAGPath() string { return filepath.Join(r.Dir, DAGFile) }

// ConfigPath is <run>/config.json.
func (r *Run) ConfigPath() string { return filepath.Join(r.Dir, ConfigFile) }

// DefinitionPath is <run>/pipeline.definition.json.
func (r *Run) DefinitionPath() string { return filepath.Join(r.Dir, DefinitionFile) }

// ReportsPath is <run>/reports.
func (r *Run) ReportsPath() string { return filepath.Join(r.Dir, ReportsDir) }

// StepsPath is <run>/steps, the run's step workspace.
func (r *Run) StepsPath() string { return filepath.Join(r.Dir, StepsDir) }

// ReportPath is <run>/reports/<tool>.json.
func (r *Run) ReportPath(tool string) (string, error) {
	if !toolNameRE().MatchString(tool) {
		return "", fmt.Errorf("report: %q is not a dotted tool name", tool)
	}
	return filepath.Join(r.ReportsPath(), tool+".json"), nil
}

// runLocks serialises read-modify-write of run.json within the process.
var runLocks sync.Map // dir -> *sync.Mutex

func (r *Run) lock() func() {
	m, _ := runLocks.LoadOrStore(r.Dir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// State reads run.json; a missing file gives an empty state.
func (r *Run) State() (*State, error) {
	b, err := r.fs.ReadFile(filepath.Join(r.Dir, StateFile), safefs.KindDocument)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{RunID: r.ID, Completed: []Completion{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", StateFile, err)
	}
	if s.Completed == nil {
		s.Completed = []Completion{}
	}
	return &s, nil
}

// MarkCompleted appends a completion of stage to run.json.
func (r *Run) MarkCompleted(stage string, at time.Time) error {
	defer r.lock()()
	s, err := r.State()
	if err != nil {
		return err
	}
	if s.RunID == "" {
		s.RunID = r.ID
	}
	s.Completed = append(s.Completed, Completion{Stage: stage, At: at.UTC()})
	return r.fs.WriteJSON(filepath.Join(r.Dir, StateFile), s)
}

// Report is a recorded tool result.
type Report struct {
	// Tool is the dotted name of the tool called.
	Tool string `json:"tool"`
	// Stage is the stage that was active.
	Stage string `json:"stage,omitempty"`
	// RecordedAt is when the result was recorded.
	RecordedAt time.Time `json:"recorded_at"`
	// WorkDir is the directory relative paths in Args are taken from.
	WorkDir string `json:"work_dir"`
	// Args are the arguments of the call, as sent.
	Args json.RawMessage `json:"args"`
	// OK is the result's ok.
	OK bool `json:"ok"`
	// Result is the whole result envelope (a captured field is replaced by
	// {"$artifact": "<file>"}).
	Result json.RawMessage `json:"result"`
}

// CaptureField takes data.<field> out of a result envelope's wire form, the
// way a Capture keeps a large field in a run artifact: it returns the
// field's JSON indented, with a final newline (the artifact's content),
// and the envelope with the field replaced by {"$artifact": ref} (what a
// Report's Result holds). The data must be an object holding the field.
func CaptureField(env []byte, field, ref string) (artifact, slim []byte, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(env, &m); err != nil {
		return nil, nil, fmt.Errorf("capture %s: %w", field, err)
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(m["data"], &data); err != nil || data == nil {
		return nil, nil, fmt.Errorf("capture %s: data is not an object", field)
	}
	raw, ok := data[field]
	if !ok {
		return nil, nil, fmt.Errorf("capture: the result has no %s", field)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, nil, fmt.Errorf("capture %s: %w", field, err)
	}
	buf.WriteByte('\n')
	data[field], _ = json.Marshal(map[string]string{"$artifact": ref})
	if m["data"], err = json.Marshal(data); err != nil {
		return nil, nil, err
	}
	if slim, err = json.Marshal(m); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), slim, nil
}

// WriteReport writes reports/<tool>.json atomically, replacing the previous one.
func (r *Run) WriteReport(rep *Report) error {
	p, err := r.ReportPath(rep.Tool)
	if err != nil {
		return err
	}
	return r.fs.WriteJSON(p, rep)
}

// ReadReport reads reports/<tool>.json; ErrNoReport when absent.
func (r *Run) ReadReport(tool string) (*Report, error) {
	p, err := r.ReportPath(tool)
	if err != nil {
		return nil, err
	}
	b, err := r.fs.ReadFile(p, safefs.KindDocument)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for %s", ErrNoReport, tool)
	}
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("report %s: %w", tool, err)
	}
	return &rep, nil
}

// WriteArtifact writes an artifact (ArtifactNames) atomically.
func (r *Run) WriteArtifact(artifact string, data []byte) error {
	p := r.Path(artifact)
	if p == "" {
		return fmt.Errorf("unknown artifact %q", artifact)
	}
	return r.fs.WriteFile(p, data, 0o644)
}

// Artifact describes one artifact file of a run.
type Artifact struct {
	Name     string    `json:"name"`
	Path     string    `json:"path"`
	Exists   bool      `json:"exists"`
	Size     int64     `json:"size,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
}

// Artifacts describes the run's artifacts (ArtifactNames order), then its
// reports (sorted by tool).
func (r *Run) Artifacts() []Artifact {
	var out []Artifact
	for _, n := range ArtifactNames {
		out = append(out, r.stat(n, r.Path(n)))
	}
	ents, err := r.fs.ReadDir(r.ReportsPath())
	if err == nil {
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			tool := strings.TrimSuffix(e.Name(), ".json")
			out = append(out, r.stat("report:"+tool, filepath.Join(r.ReportsPath(), e.Name())))
		}
	}
	return out
}

func (r *Run) stat(name, path string) Artifact {
	a := Artifact{Name: name, Path: path}
	if st, err := r.fs.Stat(path); err == nil && !st.IsDir() {
		a.Exists, a.Size, a.Modified = true, st.Size(), st.ModTime().UTC()
	}
	return a
}

package validation

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/proc"
	"github.com/cursus-go/cursus/internal/safefs"
)

//go:embed analyzer.py
var analyzerSource string

// EnvPython names the environment variable that, when set, is the Python
// interpreter to use instead of python3 on PATH (the local runner's).
const EnvPython = localrun.EnvPython

// ErrNoPython is returned (wrapped) when no Python 3 interpreter is found.
var ErrNoPython = localrun.ErrNoPython

// PythonInfo describes the interpreter script analysis and execution use.
type PythonInfo = localrun.Python

// Python finds the Python 3 interpreter ($CURSUS_PYTHON, else python3 on
// PATH) and returns what it found (probed once per value of the variable).
func Python() PythonInfo { return localrun.FindPython() }

func requirePython() (string, error) { return localrun.RequirePython() }

// Bounds of one analyzer run (every script of a call at once): the
// analyzer parses, it never runs the scripts, so a run that takes longer
// or more memory is an input that must be refused.
const (
	AnalyzerTimeout = 60 * time.Second
	AnalyzerMemory  = 1 << 30
	// AnalyzerMaxOutput caps the analyzer's answer (JSON lines).
	AnalyzerMaxOutput = 64 << 20
)

// analyzerMemory and analyzerTimeout are AnalyzerMemory and
// AnalyzerTimeout, lowered by tests.
var (
	analyzerMemory  int64 = AnalyzerMemory
	analyzerTimeout       = AnalyzerTimeout
)

// ScriptAnalysis is what the static analysis found in one script.
type ScriptAnalysis struct {
	Path string `json:"path"`
	// OK is false when the script could not be read or parsed; ErrorKind is
	// then "read" or "syntax" and Error says why.
	OK             bool        `json:"ok"`
	ErrorKind      string      `json:"error_kind,omitempty"`
	Error          string      `json:"error,omitempty"`
	ContainerPaths []StringRef `json:"container_paths"` // string constants (folded) that contain /opt/ml
	EnvReads       []EnvRead   `json:"env_reads"`
	EnvWrites      []NameRef   `json:"env_writes"`
	Argparse       []ArgFlag   `json:"argparse"`
	InputKeys      []NameRef   `json:"input_keys"`    // keys used on main's input_paths
	OutputKeys     []NameRef   `json:"output_keys"`   // keys used on main's output_paths
	JobArgAttrs    []NameRef   `json:"job_arg_attrs"` // attributes read from main's job_args
	HasMain        bool        `json:"has_main"`
	MainParams     []string    `json:"main_params"`
	Functions      []string    `json:"functions"`
	Imports        []string    `json:"imports"`
}

// StringRef is a string value found at a line.
type StringRef struct {
	Value string `json:"value"`
	Line  int    `json:"line"`
}

// NameRef is a name used at a line.
type NameRef struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

// EnvRead is one read of an environment variable.
type EnvRead struct {
	Name       string `json:"name"`
	Line       int    `json:"line"`
	Kind       string `json:"kind"` // subscript, get, setdefault, membership, environ_vars
	HasDefault bool   `json:"has_default"`
}

// ArgFlag is one argparse add_argument call with option flags.
type ArgFlag struct {
	Flags    []string `json:"flags"`
	Dest     string   `json:"dest"`
	Required bool     `json:"required"`
	Line     int      `json:"line"`
}

// AnalyzeScripts parses the scripts with python3's ast module (one
// interpreter for all of them) and returns one analysis per path, in
// order. The scripts are read here, through the context's file-access
// layer (safefs.From: confined, regular files only, the script size cap),
// and handed to the analyzer on its standard input, so the interpreter
// opens no file itself. A script that cannot be read or parsed yields an
// analysis with OK false, not an error; the error is for a missing
// interpreter or a failed run (errors.Is(err, ErrNoPython) for the former).
func AnalyzeScripts(ctx context.Context, paths ...string) ([]ScriptAnalysis, error) {
	return analyzeScripts(ctx, nil, paths...)
}

// analyzeScripts is AnalyzeScripts with the bytes of some scripts given
// (embedded code, by the name it is analysed under) instead of read.
func analyzeScripts(ctx context.Context, given embeddedScripts, paths ...string) ([]ScriptAnalysis, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	py, err := requirePython()
	if err != nil {
		return nil, err
	}
	fsys := safefs.From(ctx)
	out := make([]ScriptAnalysis, len(paths))
	var input bytes.Buffer
	var sent []int // indexes of the scripts handed to the analyzer
	for i, p := range paths {
		src, ok := given[p]
		var err error
		if !ok {
			src, err = fsys.ReadFile(p, safefs.KindScript)
		}
		if err != nil {
			out[i] = ScriptAnalysis{Path: p, ErrorKind: "read", Error: readReason(err)}
			continue
		}
		line, err := json.Marshal(analyzerRequest{Path: p, Source: strings.ToValidUTF8(string(src), "\uFFFD")})
		if err != nil {
			return nil, err
		}
		input.Write(line)
		input.WriteByte('\n')
		sent = append(sent, i)
	}
	if len(sent) == 0 {
		return out, nil
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: py, Args: []string{"-I", "-c", analyzerSource}, Env: []string{"LANG=C.UTF-8"}, Stdin: input.Bytes(),
		Timeout: analyzerTimeout, MemoryBytes: analyzerMemory, MaxOutput: AnalyzerMaxOutput, FailOnOverflow: true})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("script analyzer failed: %w", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if n >= len(sent) {
			return nil, fmt.Errorf("script analyzer returned more results than the %d scripts it was given", len(sent))
		}
		var a ScriptAnalysis
		if err := json.Unmarshal(line, &a); err != nil {
			return nil, fmt.Errorf("script analyzer printed unreadable output: %v", err)
		}
		out[sent[n]] = a
		n++
	}
	if n != len(sent) {
		return nil, fmt.Errorf("script analyzer returned %d results for %d scripts", n, len(sent))
	}
	return out, nil
}

// analyzerRequest is one line of the analyzer's input.
type analyzerRequest struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// readReason is why a script could not be read, without the path (the
// analysis names it).
func readReason(err error) string {
	var pe *safefs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

package validation

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/internal/proc"
	"github.com/cursus-go/cursus/internal/safefs"
)

// PlatformPaths are container paths SageMaker itself provides; a script may
// use them without declaring them (reported as INFO).
var PlatformPaths = []string{
	"/opt/ml/input/config",
	"/opt/ml/processing/input/code",
	"/opt/ml/code",
	"/opt/ml/output/failure",
	"/opt/ml/output/intermediate",
	"/opt/ml/errors",
}

// PlatformEnvPrefixes and PlatformEnv are environment variables the
// container runtime sets; a script may read them without declaring them.
var (
	PlatformEnvPrefixes = []string{"SM_", "SAGEMAKER_", "AWS_"}
	PlatformEnv         = []string{"PATH", "HOME", "PYTHONPATH", "TMPDIR", "HOSTNAME", "LANG", "USER", "PWD"}
)

// HasScript reports whether the step runs a script of its own that level 1
// checks: a step of a verb whose jobs run its script
// (catalog.ScriptRequired: Processing, Training, Tuning) with an entry point.
func HasScript(s *catalog.Step) bool {
	return s.Info().Script == catalog.ScriptRequired && s.Contract.EntryPoint != ""
}

// ScriptDirs returns the directories searched for step scripts: the
// explicit ones, then for every workspace directory W of the catalog: W,
// W/scripts and W/../scripts (a project keeps its step files in steps/ and
// its scripts in scripts/, side by side). Duplicates are dropped.
func ScriptDirs(cat *catalog.Catalog, extra ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if strings.TrimSpace(d) == "" {
			return
		}
		abs, err := filepath.Abs(d)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		out = append(out, abs)
	}
	for _, d := range extra {
		add(d)
	}
	if cat != nil {
		for _, w := range cat.Workspaces() {
			add(w)
			add(filepath.Join(w, "scripts"))
			add(filepath.Join(filepath.Dir(w), "scripts"))
		}
	}
	return out
}

// FindScript returns the first existing file named like the step's entry
// point in dirs, as fsys sees them (nil: the trusted file-access layer; ""
// when none), and every path it tried.
func FindScript(fsys *safefs.FS, s *catalog.Step, dirs []string) (string, []string) {
	entry := s.Contract.EntryPoint
	if entry == "" {
		return "", nil
	}
	var tried []string
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(entry))
		tried = append(tried, p)
		if fsys.IsFile(p) {
			return p, tried
		}
	}
	return "", tried
}

// embeddedScripts holds the embedded scripts a check analyses, by the
// name they are reported under (embedded:scripts/<entry>): the analyzer
// gets their bytes from the binary, workspace scripts are read from disk.
type embeddedScripts map[string][]byte

// file returns the name to analyse the code's file under: its own path
// for workspace code, its embedded name (holding its bytes) for embedded
// code.
func (t embeddedScripts) file(code catalog.StepCode) (string, error) {
	if code.LocalPath != "" {
		return code.LocalPath, nil
	}
	data, err := code.ReadFile(code.Files[0])
	if err != nil {
		return "", err
	}
	t[code.Source()] = data
	return code.Source(), nil
}

func underPath(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

func platformEnv(name string) bool {
	for _, p := range PlatformEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, n := range PlatformEnv {
		if n == name {
			return true
		}
	}
	return false
}

// declaredPath is one container path the contract declares.
type declaredPath struct {
	path     string
	logical  string
	output   bool
	required bool
}

func declaredPaths(s *catalog.Step) []declaredPath {
	var out []declaredPath
	for _, in := range s.Inputs {
		if in.ContainerPath != "" {
			out = append(out, declaredPath{path: strings.TrimSuffix(in.ContainerPath, "/"), logical: in.LogicalName, required: in.Required})
		}
	}
	for _, o := range s.Outputs {
		if o.ContainerPath != "" {
			out = append(out, declaredPath{path: strings.TrimSuffix(o.ContainerPath, "/"), logical: o.LogicalName, output: true, required: true})
		}
	}
	return out
}

// CheckScriptAnalysis compares a script's analysis with the step's contract
// in both directions and returns the issues, most severe first:
//
//   - every container path the script names must be a declared input or
//     output path, lie under one, be an ancestor of one (a root the script
//     joins onto) or be a platform path; otherwise ERROR;
//   - every declared output and required input path must be named by the
//     script (or its logical name used on main's input_paths/output_paths);
//     otherwise ERROR (WARNING for an optional input);
//   - every environment variable read must be declared (platform variables
//     excepted); otherwise ERROR; a declared required variable not read is
//     an ERROR, an optional one a WARNING;
//   - every job argument flag declared must be parsed by argparse
//     (ERROR); a flag the script parses but the contract does not pass is an
//     ERROR when required, else a WARNING; job_args.<attr> must be a
//     declared argument (WARNING);
//   - keys used on main's input_paths / output_paths must be declared
//     logical names (ERROR).
func CheckScriptAnalysis(s *catalog.Step, a *ScriptAnalysis) []Issue {
	var issues []Issue
	add := func(sev Severity, cat, rec, format string, args ...any) *Issue {
		issues = append(issues, Issue{Severity: sev, Category: cat, Message: fmt.Sprintf(format, args...), Recommendation: rec})
		return &issues[len(issues)-1]
	}
	decl := declaredPaths(s)
	used := map[string]bool{} // declared path -> referenced
	reported := map[string]bool{}
	for _, ref := range a.ContainerPaths {
		v := strings.TrimSuffix(strings.TrimSpace(ref.Value), "/")
		if !strings.HasPrefix(v, "/opt/ml") {
			continue
		}
		matched, ancestor := false, false
		for _, d := range decl {
			if underPath(v, d.path) {
				used[d.path] = true
				matched = true
			} else if underPath(d.path, v) {
				ancestor = true
			}
		}
		if matched || ancestor || reported[v] {
			continue
		}
		platform := false
		for _, p := range PlatformPaths {
			if underPath(v, p) {
				platform = true
				break
			}
		}
		reported[v] = true
		if platform {
			add(SeverityInfo, CatPlatformPath, "", "script uses platform path %s (line %d), which SageMaker provides", v, ref.Line)
			continue
		}
		add(SeverityError, CatUndeclaredContainerPath,
			"declare it as an input or output port of the step (with this path), or stop using it",
			"script uses container path %s (line %d), which the contract of %s does not declare", v, ref.Line, s.Type).
			Details = map[string]any{"path": v, "line": ref.Line}
	}
	usedLogical := map[string]bool{}
	for _, k := range a.InputKeys {
		if in, ok := s.Input(k.Name); ok {
			usedLogical["in:"+in.LogicalName] = true
			continue
		}
		add(SeverityError, CatUndeclaredInputPath, "use a declared input name: "+strings.Join(inputNames(s), ", "),
			"script reads input_paths[%q] (line %d), which is not an input of %s", k.Name, k.Line, s.Type)
	}
	for _, k := range a.OutputKeys {
		if o, ok := s.Output(k.Name); ok {
			usedLogical["out:"+o.LogicalName] = true
			continue
		}
		add(SeverityError, CatUndeclaredOutputPath, "use a declared output name: "+strings.Join(outputNames(s), ", "),
			"script writes output_paths[%q] (line %d), which is not an output of %s", k.Name, k.Line, s.Type)
	}
	for _, d := range decl {
		key := "in:" + d.logical
		if d.output {
			key = "out:" + d.logical
		}
		if used[d.path] || usedLogical[key] {
			continue
		}
		switch {
		case d.output:
			add(SeverityError, CatMissingContainerPath, "write the output to "+d.path,
				"script never names output %s's path %s; SageMaker uploads an empty folder", d.logical, d.path)
		case d.required:
			add(SeverityError, CatMissingContainerPath, "read the input from "+d.path,
				"script never names required input %s's path %s", d.logical, d.path)
		default:
			add(SeverityWarning, CatMissingContainerPath, "read the optional input from "+d.path+" when it exists, or drop the port",
				"script never names optional input %s's path %s", d.logical, d.path)
		}
	}

	// Environment variables.
	read := map[string]EnvRead{}
	for _, r := range a.EnvReads {
		if _, ok := read[r.Name]; !ok {
			read[r.Name] = r
		}
	}
	for _, name := range sortedEnvNames(read) {
		r := read[name]
		if _, ok := s.Contract.EnvVar(name); ok || platformEnv(name) {
			continue
		}
		add(SeverityError, CatUndeclaredEnvVar, "declare "+name+" under contract.env (with the config field it reads), or stop reading it",
			"script reads environment variable %s (line %d), which the contract of %s does not declare", name, r.Line, s.Type).
			Details = map[string]any{"name": name, "line": r.Line}
	}
	for _, e := range s.Contract.Env {
		if _, ok := read[e.Name]; ok {
			continue
		}
		if e.Required {
			add(SeverityError, CatMissingEnvVar, "read "+e.Name+" from os.environ",
				"script never reads required environment variable %s", e.Name)
		} else {
			add(SeverityWarning, CatUnusedEnvVar, "read "+e.Name+" or drop it from contract.env",
				"script never reads optional environment variable %s", e.Name)
		}
	}

	// Job arguments.
	parsed := map[string]ArgFlag{}
	dests := map[string]bool{}
	for _, f := range a.Argparse {
		for _, fl := range f.Flags {
			parsed[fl] = f
		}
		dests[f.Dest] = true
	}
	declFlags := map[string]bool{}
	declDests := map[string]bool{}
	for _, ja := range s.Contract.JobArguments {
		declFlags[ja.Flag] = true
		declDests[strings.ReplaceAll(strings.TrimLeft(ja.Flag, "-"), "-", "_")] = true
		if _, ok := parsed[ja.Flag]; !ok {
			add(SeverityError, CatMissingJobArg, fmt.Sprintf("add parser.add_argument(%q)", ja.Flag),
				"the step passes %s (from config field %s) but the script does not parse it; argparse would reject the call", ja.Flag, ja.Source)
		}
	}
	for _, f := range a.Argparse {
		declared := false
		for _, fl := range f.Flags {
			if declFlags[fl] {
				declared = true
			}
		}
		if declared {
			continue
		}
		sev := SeverityWarning
		if f.Required {
			sev = SeverityError
		}
		add(sev, CatUndeclaredJobArg, "declare it under contract.job_arguments, or give it a default",
			"script parses %s (line %d), which the contract of %s does not pass", strings.Join(f.Flags, "/"), f.Line, s.Type)
	}
	seenAttr := map[string]bool{}
	for _, at := range a.JobArgAttrs {
		if declDests[at.Name] || dests[at.Name] || seenAttr[at.Name] {
			continue
		}
		seenAttr[at.Name] = true
		add(SeverityWarning, CatUndeclaredJobArg, "declare --"+at.Name+" under contract.job_arguments",
			"script reads job_args.%s (line %d), which is not a declared job argument", at.Name, at.Line)
	}
	if !a.HasMain {
		add(SeverityInfo, CatScriptStructure, "define main(input_paths, output_paths, environ_vars, job_args) so tests can call it",
			"script has no main function")
	}
	sortIssues(issues)
	return nonNilIssues(issues)
}

func sortedEnvNames(m map[string]EnvRead) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func inputNames(s *catalog.Step) []string {
	out := make([]string, len(s.Inputs))
	for i, in := range s.Inputs {
		out[i] = in.LogicalName
	}
	return out
}

func outputNames(s *catalog.Step) []string {
	out := make([]string, len(s.Outputs))
	for i, o := range s.Outputs {
		out[i] = o.LogicalName
	}
	return out
}

// ScriptCheck is the outcome of checking one step's script.
type ScriptCheck struct {
	StepName          string   `json:"step_name"`
	SageMakerStepType string   `json:"sagemaker_step_type"`
	Status            string   `json:"status"` // checked | skipped
	Reason            string   `json:"reason,omitempty"`
	Script            string   `json:"script,omitempty"`
	Searched          []string `json:"searched,omitempty"`
	Passed            bool     `json:"passed"`
	Issues            []Issue  `json:"issues"`
}

// Script check statuses.
const (
	ScriptChecked = "checked"
	ScriptSkipped = "skipped"
)

// ScriptAnalysisError reports a script that could not be read or parsed.
type ScriptAnalysisError struct {
	Path string
	// Failure is what failed: read or syntax.
	Failure string
	Reason  string
}

// Error implements error.
func (e *ScriptAnalysisError) Error() string {
	return fmt.Sprintf("cannot analyse %s: %s", e.Path, e.Reason)
}

// Kind implements errkind.Kinded.
func (e *ScriptAnalysisError) Kind() errkind.Kind { return errkind.ScriptAnalysis }

// Details implements errkind.Detailer: the script, what failed (read or
// syntax) and why.
func (e *ScriptAnalysisError) Details() map[string]any {
	return map[string]any{"script": e.Path, "kind": e.Failure, "reason": e.Reason}
}

// AnalyzerStoppedError reports that the script analyzer stopped before it
// answered: it ran past one of its limits (AnalyzerTimeout,
// AnalyzerMemory, AnalyzerMaxOutput) or exited with an error.
type AnalyzerStoppedError struct {
	Err error
}

// Error implements error.
func (e *AnalyzerStoppedError) Error() string {
	return fmt.Sprintf("the script analyzer stopped: %v", e.Err)
}

// Unwrap returns the analyzer process's error.
func (e *AnalyzerStoppedError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded.
func (e *AnalyzerStoppedError) Kind() errkind.Kind { return errkind.ScriptAnalysis }

// Details implements errkind.Detailer: the analyzer's limits.
func (e *AnalyzerStoppedError) Details() map[string]any {
	return map[string]any{"time_limit_seconds": AnalyzerTimeout.Seconds(), "memory_limit_bytes": AnalyzerMemory, "output_limit_bytes": AnalyzerMaxOutput}
}

// CheckScript checks one step's script against its contract. script is
// the script path; when empty it is searched in dirs (see FindScript),
// then the catalog's script is used (catalog.Step.Script, reported as
// embedded:scripts/<entry>). A step that runs no script, or has none, is skipped
// (Passed true, Reason says why). A script that cannot be parsed is a
// *ScriptAnalysisError, an analyzer stopped at its limits an
// *AnalyzerStoppedError; a missing interpreter wraps ErrNoPython (with the
// kind ScriptAnalysis, as the other two).
func CheckScript(ctx context.Context, s *catalog.Step, script string, dirs []string) (*ScriptCheck, error) {
	res := &ScriptCheck{StepName: string(s.Type), SageMakerStepType: string(s.Verb), Issues: []Issue{}}
	if !HasScript(s) {
		res.Status, res.Passed = ScriptSkipped, true
		if s.Contract.EntryPoint == "" {
			res.Reason = fmt.Sprintf("%s declares no entry point: a %s step runs no script of its own", s.Type, s.Verb)
		} else {
			res.Reason = fmt.Sprintf("%s steps run no processing or training script (entry point %s is an inference handler)", s.Verb, s.Contract.EntryPoint)
		}
		return res, nil
	}
	shown := script
	embedded := embeddedScripts{}
	if script == "" {
		script, res.Searched = FindScript(safefs.From(ctx), s, dirs)
		shown = script
		if script == "" {
			code, ok := s.Script()
			if !ok {
				res.Status, res.Passed = ScriptSkipped, true
				res.Reason = fmt.Sprintf("no script %s on disk (searched %d director%s), and the catalog ships none: pass script_dirs or workspace_dirs where it lives", s.Contract.EntryPoint, len(dirs), plural(len(dirs), "y", "ies"))
				return res, nil
			}
			var err error
			if script, err = embedded.file(code); err != nil {
				return nil, err
			}
			shown = code.Source()
		}
	}
	res.Script = shown
	as, err := analyzeScripts(ctx, embedded, script)
	switch {
	case err == nil:
	case errors.Is(err, ErrNoPython):
		return nil, errkind.Wrap(errkind.ScriptAnalysis, err)
	case errors.Is(err, proc.ErrTimeout), errors.Is(err, proc.ErrOutputLimit), errors.As(err, new(*proc.ExitError)):
		return nil, &AnalyzerStoppedError{Err: err}
	default:
		return nil, err
	}
	a := as[0]
	if !a.OK {
		return nil, &ScriptAnalysisError{Path: shown, Failure: a.ErrorKind, Reason: a.Error}
	}
	res.Status = ScriptChecked
	res.Issues = CheckScriptAnalysis(s, &a)
	res.Passed = !HasBlocking(res.Issues)
	return res, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

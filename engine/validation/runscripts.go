package validation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/proc"
	"github.com/cursus-go/cursus/internal/safefs"
)

// DefaultScriptTimeout bounds one script's run when RunOptions.Timeout is 0.
const DefaultScriptTimeout = 5 * time.Minute

// RunOptions describes a local run of a DAG's scripts.
type RunOptions struct {
	Catalog    *catalog.Catalog // nil: catalog.Default()
	DAG        *dag.PipelineDAG
	ConfigPath string      // config.json with a config for every node
	Configs    *config.Set // alternatively, configs already loaded (wins)
	// Workspace is the directory a fresh run directory (run-*) is created
	// in; it is created when missing.
	Workspace string
	// UseDependencyResolution binds inputs to upstream outputs with the
	// dependency resolver (deps.Resolve); otherwise an input takes the
	// output of a parent whose logical name or an alias equals its name.
	UseDependencyResolution bool
	// ScriptDirs are searched for entry points before the config's source
	// directory (relative to the config file's project folder).
	ScriptDirs []string
	// InputData gives local data for inputs nothing upstream feeds and the
	// config does not (config-sourced inputs are mounted from the config,
	// as the compiler mounts them): node -> logical input -> file or
	// directory.
	InputData map[catalog.NodeName]map[string]string
	// Timeout bounds each script (DefaultScriptTimeout when 0).
	Timeout time.Duration
}

// ScriptResult is the outcome of one node.
type ScriptResult struct {
	Node          catalog.NodeName  `json:"node"`
	StepType      catalog.StepType  `json:"step_type"`
	Status        string            `json:"status"` // success | failed | skipped
	Success       bool              `json:"success"`
	Script        string            `json:"script,omitempty"`
	Args          []string          `json:"args"`
	EnvVars       []string          `json:"env_vars"` // names set for the script (values come from the config)
	Inputs        map[string]string `json:"inputs"`   // logical input -> where its data came from
	Outputs       map[string]string `json:"outputs"`  // logical output -> local folder
	OutputFiles   []string          `json:"output_files"`
	ErrorMessage  string            `json:"error_message,omitempty"`
	ExitCode      int               `json:"exit_code"`
	ExecutionTime float64           `json:"execution_time"` // seconds
	Stdout        string            `json:"stdout_tail,omitempty"`
	Stderr        string            `json:"stderr_tail,omitempty"`
	Warnings      []string          `json:"warnings"`
}

// Script statuses.
const (
	RunSuccess = "success"
	RunFailed  = "failed"
	RunSkipped = "skipped"
)

// Message is one hand-over of data from an output to an input.
type Message struct {
	From   catalog.NodeName `json:"from_node"`
	Output string           `json:"from_output"`
	To     catalog.NodeName `json:"to_node"`
	Input  string           `json:"to_input"`
	Score  float64          `json:"score,omitempty"`
	Path   string           `json:"path"`
}

// RunSummary counts a run's nodes and scripts by status and times them.
type RunSummary struct {
	TotalNodes        int     `json:"total_nodes"`
	TotalScripts      int     `json:"total_scripts"`
	Successful        int     `json:"successful"`
	Failed            int     `json:"failed"`
	Skipped           int     `json:"skipped"`
	ScriptTimeSeconds float64 `json:"script_time_seconds"`
	WallTimeSeconds   float64 `json:"wall_time_seconds"`
	// Python is the interpreter's version.
	Python string `json:"python"`
}

// RunReport is the outcome of RunScripts.
type RunReport struct {
	PipelineSuccess bool `json:"pipeline_success"`
	// Sandbox is the local runner's sandbox the scripts ran in
	// (bubblewrap, or path-rewrite where bubblewrap cannot run, with
	// SandboxNote saying why).
	Sandbox               string                             `json:"sandbox"`
	SandboxNote           string                             `json:"sandbox_note,omitempty"`
	ExecutionOrder        []catalog.NodeName                 `json:"execution_order"`
	TotalScripts          int                                `json:"total_scripts"`
	SuccessfulScripts     int                                `json:"successful_scripts"`
	ScriptResults         map[catalog.NodeName]*ScriptResult `json:"script_results"`
	ExecutionSummary      RunSummary                         `json:"execution_summary"`
	MessagePassingHistory []Message                          `json:"message_passing_history"`
	RunDir                string                             `json:"run_dir"`
	Warnings              []string                           `json:"warnings"`
}

// RunScripts runs the scripts of a DAG's nodes with python3 in
// topological order, each in its own local container root under a fresh
// run directory of opts.Workspace (see the package doc for how container
// paths are mapped). A node that fails stops the nodes that depend on it
// (they are skipped); the others still run. Cancelling ctx kills the
// running script and returns ctx's error. Errors are returned for inputs
// that prevent any run: no python3 (wraps ErrNoPython), a cyclic DAG,
// unreadable configs, nodes without a config. Every error carries a kind
// (errkind): no python3 is Unsupported; a DAG without nodes or with a
// cycle, and configs that do not load or resolve, are InvalidInput; any
// other failure is RunFailed.
func RunScripts(ctx context.Context, opts RunOptions) (*RunReport, error) {
	rep, err := runScripts(ctx, opts)
	if err == nil {
		return rep, nil
	}
	switch {
	case errkind.Of(err) != errkind.Unknown:
		return nil, err
	case errors.Is(err, dag.ErrNotSortable):
		return nil, errkind.Errorf(errkind.InvalidInput, "the DAG cannot be ordered: %w", err)
	}
	return nil, errkind.Errorf(errkind.RunFailed, "script run failed: %w", err)
}

func runScripts(ctx context.Context, opts RunOptions) (*RunReport, error) {
	if _, err := requirePython(); err != nil {
		return nil, err
	}
	var err error
	fsys := safefs.From(ctx)
	cat := opts.Catalog
	if cat == nil {
		if cat, err = catalog.Default(); err != nil {
			return nil, err
		}
	}
	if opts.DAG == nil || opts.DAG.NodeCount() == 0 {
		return nil, errkind.New(errkind.InvalidInput, "the DAG has no nodes")
	}
	order, err := opts.DAG.TopologicalSort()
	if err != nil {
		return nil, err
	}
	set := opts.Configs
	if set == nil {
		schema, err := config.FromCatalog(cat)
		if err != nil {
			return nil, err
		}
		if set, err = config.Load(fsys, schema, opts.ConfigPath); err != nil {
			return nil, err
		}
	}
	nodes := opts.DAG.Nodes()
	resolved, err := set.Resolve(nodes, config.ResolveOptions{})
	if err != nil {
		return nil, err
	}
	cfgs := map[catalog.NodeName]*config.Config{}
	views := map[catalog.NodeName]*catalog.Step{}
	for _, r := range resolved {
		st, ok := cat.Step(r.Config.StepType())
		if !ok {
			return nil, fmt.Errorf("node %s: step type %s of config %s is not in the catalog", r.Node, r.Config.StepType(), r.Config.Key)
		}
		cfgs[r.Node] = r.Config
		views[r.Node] = st.ForJobType(r.Config.JobType())
	}

	// Absolute, like every path a script is handed: scripts run in their
	// node's work folder.
	workspace, err := fsys.Abs(opts.Workspace)
	if err != nil {
		return nil, err
	}
	if err := fsys.MkdirAll(workspace, 0o755); err != nil {
		return nil, err
	}
	runDir, err := fsys.MkdirTemp(workspace, "run-", 0o700)
	if err != nil {
		return nil, err
	}
	runner, err := localrun.NewRunner(filepath.Join(runDir, ".cursus"), "", "")
	if err != nil {
		return nil, err
	}
	sandbox, note := runner.Sandbox()
	rep := &RunReport{Sandbox: string(sandbox), SandboxNote: note, ExecutionOrder: order, ScriptResults: map[catalog.NodeName]*ScriptResult{}, MessagePassingHistory: []Message{},
		RunDir: runDir, Warnings: []string{}}

	// Bindings: consumer -> input -> (provider, output, score).
	type bind struct {
		provider catalog.NodeName
		output   string
		score    float64
	}
	bindings := map[catalog.NodeName]map[string]bind{}
	if opts.UseDependencyResolution {
		res, err := deps.NewResolver().Resolve(ctx, opts.DAG, func(node catalog.NodeName) (*catalog.Step, error) { return views[node], nil })
		var ue *deps.UnresolvedError
		if err != nil && !errors.As(err, &ue) {
			return nil, err
		}
		for _, c := range res.Consumers {
			m := map[string]bind{}
			for _, b := range c.Bindings {
				m[b.Input] = bind{b.Provider, b.Output, b.Score}
			}
			bindings[c.Node] = m
		}
	} else {
		for _, n := range nodes {
			m := map[string]bind{}
			for _, in := range views[n].Inputs {
				for _, p := range opts.DAG.DeclaredParents(n) {
					if o := matchByName(views[p], &in); o != "" {
						m[in.LogicalName] = bind{provider: p, output: o}
						break
					}
				}
			}
			bindings[n] = m
		}
	}

	// Absolute, so the script path and config paths stay valid in the
	// node's work folder, where the script runs.
	baseDir := configBaseDir(opts.ConfigPath)
	if abs, err := filepath.Abs(baseDir); err == nil {
		baseDir = abs
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultScriptTimeout
	}
	failed := map[catalog.NodeName]string{} // node -> why it has no outputs
	start := time.Now()
	for _, n := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, cfg := views[n], cfgs[n]
		r := &ScriptResult{Node: n, StepType: st.Type, Args: []string{}, EnvVars: []string{}, Inputs: map[string]string{},
			Outputs: map[string]string{}, OutputFiles: []string{}, Warnings: []string{}}
		rep.ScriptResults[n] = r
		root := filepath.Join(runDir, safeName(n), "root")
		work := filepath.Join(runDir, safeName(n), "work")
		for _, o := range st.Outputs {
			if o.ContainerPath != "" {
				r.Outputs[o.LogicalName] = localPath(root, o.ContainerPath)
			}
		}
		if !HasScript(st) {
			r.Status = RunSkipped
			r.ErrorMessage = fmt.Sprintf("%s is a %s step: it runs no script of its own", st.Type, st.Verb)
			failed[n] = r.ErrorMessage
			continue
		}
		rep.TotalScripts++
		// Upstream failures stop the node.
		var blocked []string
		for in, b := range bindings[n] {
			if why, bad := failed[b.provider]; bad {
				if p, ok := st.Input(in); ok && p.Required {
					blocked = append(blocked, fmt.Sprintf("%s (input %s: %s)", b.provider, in, why))
				}
			}
		}
		if len(blocked) > 0 {
			sort.Strings(blocked)
			r.Status = RunSkipped
			r.ErrorMessage = "upstream step did not produce its outputs: " + strings.Join(blocked, "; ")
			failed[n] = "skipped"
			continue
		}
		if err := prepareNode(fsys, root, work, st, r); err != nil {
			return nil, err
		}
		// Inputs.
		for _, in := range st.Inputs {
			if in.ContainerPath == "" {
				continue
			}
			dst := localPath(root, in.ContainerPath)
			// A config-sourced input is mounted from the config, as the
			// compiler does: an object or list written as <field>.json, a
			// local file or directory copied.
			if from, err := configInput(fsys, st, in, cfg, dst, sourceDir(st, cfg, baseDir), baseDir); err != nil {
				return nil, fmt.Errorf("node %s: input %s from config field %s: %w", n, in.LogicalName, in.ConfigSource, err)
			} else if from != "" {
				r.Inputs[in.LogicalName] = from
				if _, given := opts.InputData[n][in.LogicalName]; given {
					r.Warnings = append(r.Warnings, fmt.Sprintf("input_data for %s is not used: the input comes from config field %s (%s), as in the compiled pipeline", in.LogicalName, in.ConfigSource, from))
				}
				continue
			}
			if b, ok := bindings[n][in.LogicalName]; ok {
				src := rep.ScriptResults[b.provider].Outputs[b.output]
				if src == "" {
					r.Warnings = append(r.Warnings, fmt.Sprintf("input %s is bound to %s.%s, which has no local folder", in.LogicalName, b.provider, b.output))
					continue
				}
				// The provider's job wrote src: it is read through a root on
				// the provider's container root, so that no link it made
				// leads the copy to a host file.
				if err := copyJobOutput(fsys, filepath.Join(runDir, safeName(b.provider), "root"), src, dst); err != nil {
					return nil, fmt.Errorf("node %s: copy %s.%s to input %s: %w", n, b.provider, b.output, in.LogicalName, err)
				}
				r.Inputs[in.LogicalName] = string(b.provider) + "." + b.output
				rep.MessagePassingHistory = append(rep.MessagePassingHistory, Message{From: b.provider, Output: b.output, To: n, Input: in.LogicalName, Score: round4(b.score), Path: src})
				continue
			}
			if src, ok := opts.InputData[n][in.LogicalName]; ok {
				if err := copyInto(fsys, src, dst); err != nil {
					return nil, fmt.Errorf("node %s: input data for %s: %w", n, in.LogicalName, err)
				}
				r.Inputs[in.LogicalName] = src
				continue
			}
			if in.Required {
				r.Warnings = append(r.Warnings, fmt.Sprintf("required input %s is fed by nothing: no upstream output is bound and input_data gives no path; the script sees an empty folder", in.LogicalName))
			}
		}
		for in := range opts.InputData[n] {
			if _, ok := st.Input(in); !ok {
				r.Warnings = append(r.Warnings, fmt.Sprintf("input_data names %s, which is not an input of %s", in, st.Type))
			}
		}
		// Script, environment, arguments.
		script, tried := locateScript(fsys, st, cfg, opts.ScriptDirs, baseDir)
		srcDir := sourceDir(st, cfg, baseDir)
		bundle := false
		if script == "" {
			// The catalog's own script, as the compiler would upload it: with
			// the helper modules it imports beside it, so the whole folder is
			// the job's code.
			dir := filepath.Join(work, "catalog-code", safeName(n))
			if script, err = catalogScript(fsys, st, cfg, dir); err != nil {
				return nil, fmt.Errorf("node %s: %w", n, err)
			}
			if script != "" && strings.HasPrefix(script, dir+string(filepath.Separator)) {
				srcDir, bundle = dir, true
			}
		}
		if script == "" {
			r.Status = RunFailed
			r.ErrorMessage = fmt.Sprintf("script %s not found (tried %s)", st.Contract.EntryPoint, strings.Join(tried, ", "))
			failed[n] = "no script"
			continue
		}
		r.Script = script
		env, args, problems := scriptEnvArgs(st, cfg)
		for k := range env {
			r.EnvVars = append(r.EnvVars, k)
		}
		sort.Strings(r.EnvVars)
		r.Args = args
		if len(problems) > 0 {
			r.Status = RunFailed
			r.ErrorMessage = strings.Join(problems, "; ")
			failed[n] = "bad config"
			continue
		}
		j, err := containerJob(fsys, st, cfg, n, script, srcDir, bundle, root, env, args)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", n, err)
		}
		j.Timeout, j.Scratch = timeout, filepath.Dir(work)
		if err := runOne(ctx, fsys, runner, j, r); err != nil {
			return nil, err
		}
		if !r.Success {
			failed[n] = "script failed"
		}
		r.OutputFiles = listOutputs(fsys, r.Outputs)
	}
	for _, r := range rep.ScriptResults {
		if r.Success {
			rep.SuccessfulScripts++
		}
	}
	rep.PipelineSuccess = rep.TotalScripts > 0 && rep.SuccessfulScripts == rep.TotalScripts
	counts := map[string]int{RunSuccess: 0, RunFailed: 0, RunSkipped: 0}
	var total float64
	for _, r := range rep.ScriptResults {
		counts[r.Status]++
		total += r.ExecutionTime
	}
	rep.ExecutionSummary = RunSummary{
		TotalNodes: len(order), TotalScripts: rep.TotalScripts, Successful: counts[RunSuccess], Failed: counts[RunFailed],
		Skipped: counts[RunSkipped], ScriptTimeSeconds: round4(total), WallTimeSeconds: round4(time.Since(start).Seconds()),
		Python: Python().Version,
	}
	if rep.TotalScripts == 0 {
		rep.Warnings = append(rep.Warnings, "no node of the DAG runs a script")
	}
	return rep, nil
}

// matchByName returns the output of a provider whose logical name or an
// alias equals the input's name (or one of the input's aliases).
func matchByName(p *catalog.Step, in *catalog.InputPort) string {
	names := append([]string{in.LogicalName}, in.Aliases...)
	for _, n := range names {
		if o, ok := p.OutputByAlias(n); ok {
			return o.LogicalName
		}
	}
	return ""
}

// configBaseDir is where relative source directories are resolved: the
// config file's directory, or its parent when that is named
// pipeline_config(s) (the compiler's rule).
func configBaseDir(configPath string) string {
	if configPath == "" {
		wd, _ := os.Getwd()
		return wd
	}
	dir := filepath.Dir(configPath)
	if b := filepath.Base(dir); b == "pipeline_config" || b == "pipeline_configs" {
		return filepath.Dir(dir)
	}
	return dir
}

func safeName(n catalog.NodeName) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, string(n))
}

// localPath maps a container path to its place under a node's root.
func localPath(root, containerPath string) string {
	return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path.Clean(containerPath), "/")))
}

// isFilePath reports whether a container path names a file (its last
// segment has an extension), e.g. .../hyperparameters.json.
func isFilePath(p string) bool {
	return path.Ext(path.Base(p)) != ""
}

func prepareNode(fsys *safefs.FS, root, work string, st *catalog.Step, r *ScriptResult) error {
	for _, d := range []string{root, work} {
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, o := range st.Outputs {
		if o.ContainerPath != "" {
			if err := fsys.MkdirAll(localPath(root, o.ContainerPath), 0o755); err != nil {
				return err
			}
		}
	}
	for _, in := range st.Inputs {
		if in.ContainerPath == "" {
			continue
		}
		d := localPath(root, in.ContainerPath)
		if isFilePath(in.ContainerPath) {
			d = filepath.Dir(d)
		}
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// hyperparameters returns a Training or Tuning node's hyperparameters as
// SageMaker gives them in /opt/ml/input/config/hyperparameters.json:
// every hyperparameter field with a value (and the keys of a free-form
// hyperparameters field, for a step that still declares one), each value
// a string holding its JSON encoding, as the SDK's framework estimators
// pass them and SageMaker writes them.
func hyperparameters(st *catalog.Step, cfg *config.Config) (map[string]string, error) {
	hp := map[string]string{}
	put := func(k string, x any) error {
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("hyperparameter %s: %w", k, err)
		}
		hp[k] = string(b)
		return nil
	}
	for _, f := range st.Hyperparameters() {
		if v, ok := cfg.Get(f.Name); ok && v != nil {
			if err := put(f.Name, v); err != nil {
				return nil, err
			}
		}
	}
	if _, free := st.Field(config.LegacyHyperparametersKey); free {
		if m, ok := cfg.Values[config.LegacyHyperparametersKey].(map[string]any); ok {
			for k, x := range m {
				if err := put(k, x); err != nil {
					return nil, err
				}
			}
		}
	}
	return hp, nil
}

// sourceDir is a node's local source directory: the contract's
// source-dir field, effective_source_dir or source_dir, relative ones
// against baseDir ("" when none is set or it is in S3).
func sourceDir(st *catalog.Step, cfg *config.Config, baseDir string) string {
	for _, f := range []string{st.Contract.SourceDirField, "effective_source_dir", "source_dir"} {
		if f == "" {
			continue
		}
		if v := cfg.String(f); v != "" && !strings.HasPrefix(v, "s3://") {
			if !filepath.IsAbs(v) {
				v = filepath.Join(baseDir, v)
			}
			return v
		}
	}
	return ""
}

// configInput mounts a config-sourced input the way the compiler does and
// returns where the data came from ("" when the config gives nothing to
// mount locally): an object or list value is written as JSON to
// <input folder>/<field>.json (the compiler uploads <field>.json and
// mounts it at the input's path); a string naming a local file or
// directory (relative to the source directory when it exists there, else
// to baseDir) is copied. S3 URIs and pipeline-parameter references are left
// to input_data.
func configInput(fsys *safefs.FS, st *catalog.Step, in catalog.InputPort, cfg *config.Config, dst, srcDir, baseDir string) (string, error) {
	if in.ConfigSource == "" {
		return "", nil
	}
	v, ok := cfg.Get(in.ConfigSource)
	if !ok || v == nil {
		return "", nil
	}
	switch v.(type) {
	case map[string]any, []any:
		content, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", err
		}
		file := filepath.Join(dst, in.ConfigSource+".json")
		if isFilePath(in.ContainerPath) {
			file = dst
		}
		if err := fsys.WriteFile(file, append(content, '\n'), 0o644); err != nil {
			return "", err
		}
		return "config:" + in.ConfigSource, nil
	case string:
	default:
		return "", nil
	}
	s := v.(string)
	if s == "" || strings.HasPrefix(s, "s3://") || strings.HasPrefix(s, "https://") {
		return "", nil
	}
	if _, ref := catalog.ParameterRef(strings.TrimSpace(s)); ref {
		return "", nil
	}
	src := s
	if !filepath.IsAbs(src) {
		src = filepath.Join(baseDir, filepath.FromSlash(s))
		if srcDir != "" {
			if cand := filepath.Join(srcDir, filepath.FromSlash(s)); fsys.Exists(cand) {
				src = cand
			}
		}
	}
	if !fsys.Exists(src) {
		// The catalog's code the compiler would upload instead (Package's
		// inference_scripts_dir: inference/<framework>).
		if filepath.IsAbs(s) {
			return "", nil
		}
		isDir := strings.HasSuffix(s, "/") || filepath.Ext(s) == ""
		code, ok := st.LookupConfigCode(s, st.ServingFramework(cfg.String), isDir)
		if !ok {
			return "", nil
		}
		if !isDir {
			dst = filepath.Join(dst, path.Base(code.Path))
			if code.LocalPath != "" {
				return code.LocalPath, copyInto(fsys, code.LocalPath, dst)
			}
			data, err := code.ReadFile(code.Files[0])
			if err != nil {
				return "", err
			}
			return code.Source(), fsys.WriteFile(dst, data, 0o644)
		}
		if code.LocalPath != "" {
			return code.LocalPath, copyInto(fsys, code.LocalPath, dst)
		}
		_, err := writeCode(fsys, code, dst)
		return code.Source(), err
	}
	if err := copyInto(fsys, src, dst); err != nil {
		return "", err
	}
	return src, nil
}

// locateScript finds a node's script: the config's entry point in the
// explicit script dirs, then in the config's source directory. The path is
// absolute (the script runs with its node's work folder as the working
// directory).
func locateScript(fsys *safefs.FS, st *catalog.Step, cfg *config.Config, dirs []string, baseDir string) (string, []string) {
	entry := entryPointOf(st, cfg)
	search := append([]string(nil), dirs...)
	if d := sourceDir(st, cfg, baseDir); d != "" {
		search = append(search, d)
	}
	var tried []string
	for _, d := range search {
		p := filepath.Join(d, filepath.FromSlash(entry))
		if abs, err := fsys.Abs(p); err == nil {
			p = abs
		}
		tried = append(tried, p)
		if fsys.IsFile(p) {
			return p, tried
		}
	}
	return "", tried
}

// entryPointOf is the node's entry point: its config's entry-point field,
// else the contract's.
func entryPointOf(st *catalog.Step, cfg *config.Config) string {
	entry := st.Contract.EntryPoint
	if f := st.Contract.EntryPointField; f != "" {
		if v := cfg.String(f); v != "" {
			entry = v
		}
	}
	return entry
}

// catalogScript writes the catalog's script for the node's entry point
// (catalog.Step.LookupCode) into dir and returns its path ("" when the
// catalog ships none).
func catalogScript(fsys *safefs.FS, st *catalog.Step, cfg *config.Config, dir string) (string, error) {
	code, ok := st.LookupCode(entryPointOf(st, cfg))
	if !ok || code.Dir {
		return "", nil
	}
	if code.LocalPath != "" {
		return code.LocalPath, nil
	}
	code = catalog.Bundle(code) // with the helpers it imports, as the compiler uploads it
	if _, err := writeCode(fsys, code, dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, path.Base(code.Path)), nil
}

// writeCode writes embedded code into dir: a file as dir/<name> (its path
// returned), a directory's files below dir (dir returned).
func writeCode(fsys *safefs.FS, code catalog.StepCode, dir string) (string, error) {
	for _, rel := range code.Files {
		data, err := code.ReadFile(rel)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := fsys.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := fsys.WriteFile(dst, data, 0o644); err != nil {
			return "", err
		}
	}
	if code.Dir {
		return dir, nil
	}
	return filepath.Join(dir, code.Files[0]), nil
}

// scriptEnvArgs computes the environment and arguments the compiler
// gives the container (container paths stay container paths: the script
// runs in the local runner's sandbox).
func scriptEnvArgs(st *catalog.Step, cfg *config.Config) (map[string]string, []string, []string) {
	env := map[string]string{}
	var problems []string
	for _, e := range st.Contract.Env {
		val, set := "", false
		if e.Field != "" {
			if v, ok := cfg.Get(e.Field); ok && v != nil {
				val, set = catalog.EnvValue(v), true
			}
		}
		if !set && !e.Required {
			val, set = e.Default, true
		}
		if !set || (e.Required && val == "") {
			problems = append(problems, fmt.Sprintf("required environment variable %s has no value: set config field %s", e.Name, e.Field))
			continue
		}
		env[e.Name] = val
	}
	if extra, ok := cfg.Get("env"); ok {
		if m, ok := extra.(map[string]any); ok {
			for k, v := range m {
				env[k] = catalog.EnvValue(v)
			}
		}
	}
	var args []string
	for _, ja := range st.Contract.JobArguments {
		v, ok := cfg.Get(ja.Source)
		if !ok || v == nil || catalog.EnvValue(v) == "" {
			problems = append(problems, fmt.Sprintf("job argument %s has no value: set config field %s", ja.Flag, ja.Source))
			continue
		}
		args = append(args, ja.Flag, catalog.EnvValue(v))
	}
	if extra, ok := cfg.Get("processing_script_arguments"); ok {
		if l, ok := extra.([]any); ok {
			for _, v := range l {
				args = append(args, catalog.EnvValue(v))
			}
		}
	}
	if args == nil {
		args = []string{}
	}
	return env, args, problems
}

// containerJob stages a node's code in its container root and returns the
// job the local runner runs: the root's opt/ml at /opt/ml. A processing
// script runs as the compiled job runs it (python3
// /opt/ml/processing/input/code/<entry> <job arguments>, its source
// directory there too when the contract ships it, and the catalog's bundle
// (the script and the helper modules it imports, bundle true) likewise); a
// training script as
// the training toolkit starts it (the source in /opt/ml/code, the
// hyperparameters as --key value arguments and in hyperparameters.json,
// each folder of /opt/ml/input/data a channel).
func containerJob(fsys *safefs.FS, st *catalog.Step, cfg *config.Config, node catalog.NodeName, script, srcDir string, bundle bool, root string, env map[string]string, args []string) (localrun.Job, error) {
	ml := localPath(root, "/opt/ml")
	j := localrun.Job{Env: env, Mounts: []localrun.Mount{{Container: "/opt/ml", Host: ml, Writable: true}}}
	inSrc := srcDir != "" && strings.HasPrefix(script, srcDir+string(filepath.Separator))
	if st.Info().Training {
		code := filepath.Join(ml, "code")
		program := filepath.Base(script)
		if inSrc {
			if err := copyInto(fsys, srcDir, code); err != nil {
				return j, err
			}
			program, _ = filepath.Rel(srcDir, script)
		} else if err := copyFile(fsys, script, filepath.Join(code, program)); err != nil {
			return j, err
		}
		hp, err := hyperparameters(st, cfg)
		if err != nil {
			return j, err
		}
		hp["sagemaker_program"] = strconv.Quote(filepath.ToSlash(program))
		hp["sagemaker_submit_directory"] = strconv.Quote("file:///opt/ml/code")
		channels := map[string]string{}
		if ents, err := os.ReadDir(filepath.Join(ml, "input", "data")); err == nil {
			for _, e := range ents {
				if e.IsDir() {
					channels[e.Name()] = ""
				}
			}
		}
		for _, d := range []string{"model", "output"} {
			if err := fsys.MkdirAll(filepath.Join(ml, d), 0o755); err != nil {
				return j, err
			}
		}
		if err := localrun.WriteToolkitConfig(filepath.Join(ml, "input", "config"), hp, channels, "", string(node)); err != nil {
			return j, err
		}
		j.Command, j.Dir = localrun.TrainingToolkitCommand(), "/opt/ml/code"
		return j, nil
	}
	entry := filepath.Base(script)
	codeDir := filepath.Join(ml, "processing", "input", "code")
	if (st.Contract.SourceDir || bundle) && inSrc {
		if err := copyInto(fsys, srcDir, codeDir); err != nil {
			return j, err
		}
		entry, _ = filepath.Rel(srcDir, script)
	} else if err := copyFile(fsys, script, filepath.Join(codeDir, entry)); err != nil {
		return j, err
	}
	j.Command = append([]string{"python3", "/opt/ml/processing/input/code/" + filepath.ToSlash(entry)}, args...)
	j.Dir = "/opt/ml/processing"
	return j, nil
}

// runOne runs one node's job in the local runner's sandbox and fills the
// result; its log (stdout and stderr as one) is kept in the node's
// log.txt.
func runOne(ctx context.Context, fsys *safefs.FS, runner *localrun.Runner, j localrun.Job, r *ScriptResult) error {
	res, err := runner.Run(ctx, j)
	if res != nil {
		r.ExecutionTime = round4(res.Duration.Seconds())
		r.Stdout = proc.Tail(res.Stdout, 4096)
		_ = fsys.WriteFile(filepath.Join(j.Scratch, "log.txt"), res.Stdout, 0o644)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		r.Status, r.Success = RunSuccess, true
		return nil
	}
	r.Status = RunFailed
	var ee *proc.ExitError
	switch {
	case errors.Is(err, proc.ErrTimeout):
		r.ExitCode = -1
		r.ErrorMessage = fmt.Sprintf("timed out after %s", j.Timeout)
	case errors.As(err, &ee):
		r.ExitCode = res.ExitCode
		r.ErrorMessage = proc.LastLine(ee.Tail)
		if r.ErrorMessage == "" {
			r.ErrorMessage = ee.Error()
		}
	default:
		return fmt.Errorf("run %s: %w", r.Script, err)
	}
	return nil
}

// copyInto copies a file or a directory tree to dst. A directory source
// whose destination is a file path (an input like hyperparameters.json)
// copies the file of the same name, or the only file it holds.
func copyInto(fsys *safefs.FS, src, dst string) error { return copyBetween(fsys, fsys, src, dst) }

// copyJobOutput copies what a job wrote under its container root (src,
// under root) to dst: read through a FS confined to root (a link leading
// out of it reads as absent, only regular files are read), written
// through fsys.
func copyJobOutput(fsys *safefs.FS, root, src, dst string) error {
	from, err := safefs.New(safefs.Options{Root: root})
	if err != nil {
		return err
	}
	defer from.Close()
	return copyBetween(from, fsys, src, dst)
}

// copyBetween is copyInto reading through from and writing through to.
func copyBetween(from, to *safefs.FS, src, dst string) error {
	fi, err := from.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if isFilePath(dst) {
			return copyFile2(from, to, src, dst)
		}
		return copyFile2(from, to, src, filepath.Join(dst, filepath.Base(src)))
	}
	if isFilePath(dst) {
		if _, err := from.Stat(filepath.Join(src, filepath.Base(dst))); err == nil {
			return copyFile2(from, to, filepath.Join(src, filepath.Base(dst)), dst)
		}
		var files []string
		_ = from.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 1 {
			return copyFile2(from, to, files[0], dst)
		}
		return fmt.Errorf("%s names a file but %s holds %d files", dst, src, len(files))
	}
	return from.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return to.MkdirAll(target, 0o755)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // links are not followed out of the data
		}
		return copyFile2(from, to, p, target)
	})
}

// copyFile copies a regular file through fsys, streamed.
func copyFile(fsys *safefs.FS, src, dst string) error { return copyFile2(fsys, fsys, src, dst) }

// copyFile2 copies a regular file read through from to dst written
// through to, streamed.
func copyFile2(from, to *safefs.FS, src, dst string) error {
	in, err := from.Open(src, safefs.KindData)
	if err != nil {
		return err
	}
	defer in.Close()
	return to.WriteFrom(dst, in, 0o644)
}

// listOutputs lists the files of each output folder as
// "<output>/<relative path>", sorted.
func listOutputs(fsys *safefs.FS, outputs map[string]string) []string {
	out := []string{}
	for name, dir := range outputs {
		_ = fsys.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(dir, p)
			if err == nil {
				out = append(out, name+"/"+filepath.ToSlash(rel))
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

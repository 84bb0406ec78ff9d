package workflow

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
)

// init-project variables.
const (
	varProjectName    = "project_name"
	varProjectDAG     = "project_dag_file"
	varProjectConfig  = "project_config_file"
	varScriptsDir     = "scripts_dir"
	varCustomSteps    = "custom_steps"
	varProjectCreated = "project_created_by_run"
	varLedger         = "ledger_file"
)

// LedgerFile is the action-item ledger project.init writes in a project.
const LedgerFile = "ACTION_ITEMS.md"

func initProject() *Workflow {
	return &Workflow{
		Name: "init-project",
		Description: "Scaffold a new pipeline project with project.init (custom step, script skeletons, DAG, config, sample data, README), " +
			"check its action-item ledger names every placeholder, and verify the scaffold: the DAG and config load, the custom step's " +
			"interface and script pass their gates, and the project compiles.",
		Args:   projectArgs(),
		Phases: initPhases(),
		Result: initOutputs,
	}
}

func projectArgs() []Arg {
	return []Arg{
		{Name: "name", Type: "string", Required: true, Description: "Project name: letters, digits, _ and -, starting with a letter; the folder is <target_dir>/<name>_<framework>."},
		{Name: "framework", Type: "string", Required: true, Enum: []string{"xgboost", "pytorch", "lightgbm"}, Description: "Model framework."},
		{Name: "target_dir", Type: "string", Default: "projects", Description: "Folder the project is created in, relative to the project root."},
		{Name: "overwrite", Type: "boolean", Default: false, Description: "Replace an existing project folder."},
	}
}

func initPhases() []Phase {
	return []Phase{
		{
			Name: "scaffold", Title: "Scaffold the project", Stage: "plan",
			Detail: "project.init writes the project folder: steps/ (custom step), scripts/ (skeletons matching their contracts), pipeline_config/dag.json and config.json, data/, README.md and ACTION_ITEMS.md.",
			Gate:   "project.init succeeds and every file it lists exists",
			Tools:  []string{"project.init"},
			Run:    phaseScaffold,
		},
		{
			Name: "ledger", Title: "Check the ledger", Stage: "plan",
			Detail: "Read ACTION_ITEMS.md: it must list open action items and name every placeholder config value project.init filled in.",
			Gate:   "the ledger exists, has open items and names every placeholder",
			Run:    phaseLedger,
		},
		{
			Name: "verify", Title: "Verify the scaffold", Stage: "validate",
			Detail: "dag.deserialize and config.load read the project's DAG and config; validate.step_interface and author.check_script gate each custom step; compile.validate checks the project compiles.",
			Gate:   "the DAG and config load and are valid, every custom step passes its interface and script checks, compile.validate is valid",
			Tools:  []string{"dag.deserialize", "config.load", "validate.step_interface", "author.check_script", "compile.validate"},
			Run:    phaseVerify,
		},
	}
}

func phaseScaffold(ctx context.Context, s *Step) error {
	name := strings.TrimSpace(s.ArgString("name"))
	fw := s.ArgString("framework")
	target := s.ArgString("target_dir")
	projDir := path.Join(strings.Trim(target, "/"), name+"_"+fw)
	overwrite := s.ArgBool("overwrite")
	// A project this run created (an attempt interrupted after project.init,
	// or a scaffold whose files changed) is regenerated, never refused.
	if s.Vars().String(varProjectCreated) == projDir {
		overwrite = true
	} else if _, err := s.FS().Lstat(s.Abs(projDir)); err != nil {
		// The folder does not exist: whatever appears there from now on is
		// this run's, even if the run is interrupted inside project.init.
		if err := s.Set(varProjectCreated, projDir); err != nil {
			return err
		}
		if err := s.Save(); err != nil {
			return err
		}
	}
	args := map[string]any{"name": name, "framework": fw, "target_dir": target, "overwrite": overwrite}
	resp, err := s.Require(ctx, "project.init", args)
	if err != nil {
		return err
	}
	// project.init's data is the engine's project.Result (with ready).
	var r project.Result
	if err := resp.Decode(&r); err != nil {
		return Gate("project.init", resp, "unexpected answer: %v", err)
	}
	rel := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		return s.Rel(p)
	}
	dir, err := rel(r.TargetPath)
	if err != nil {
		return Gate("project.init", resp, "%v", err)
	}
	ws, _ := rel(r.WorkspaceDir)
	scripts, _ := rel(r.ScriptsDir)
	dagFile, _ := rel(r.DAGFile)
	cfgFile, _ := rel(r.ConfigFile)
	var missing []string
	for _, f := range r.FilesWritten {
		p := path.Join(dir, f)
		if _, err := s.FS().Stat(s.Abs(p)); err != nil {
			missing = append(missing, f)
			continue
		}
		// Files later phases or people are meant to change are handed
		// over; the rest are vouched for by hash.
		switch {
		case strings.HasPrefix(f, "pipeline_config/"), strings.HasPrefix(f, "scripts/"), strings.HasPrefix(f, "steps/"),
			f == "README.md", f == LedgerFile:
			err = s.Handoff(p)
		default:
			err = s.Record(p)
		}
		if err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		return Gate("project.init", resp, "project.init lists files that do not exist: %s", strings.Join(missing, ", "))
	}
	if err := firstError(
		s.Set(varProjectDir, dir), s.Set(varProjectName, name), s.Set(varWorkspace, []string{ws}), s.Set(varScriptsDir, scripts),
		s.Set(varProjectDAG, dagFile), s.Set(varProjectConfig, cfgFile), s.Set(varCustomSteps, r.CustomSteps),
		s.Set("project_placeholders", r.Placeholders), s.Set(varLedger, path.Join(dir, LedgerFile)),
	); err != nil {
		return err
	}
	s.Summary("project_dir", dir)
	s.Summary("files", len(r.FilesWritten))
	return nil
}

func phaseLedger(_ context.Context, s *Step) error {
	ledger := s.Vars().String(varLedger)
	b, err := s.FS().ReadFile(s.Abs(ledger), safefs.KindDocument)
	if err != nil {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: fmt.Sprintf("the ledger %s cannot be read: %v", ledger, err),
			Remedy: "re-run project.init (resume this run) to write it"}
	}
	text := string(b)
	var open, done []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "- [ ] "):
			open = append(open, strings.TrimPrefix(l, "- [ ] "))
		case strings.HasPrefix(l, "- [x] "), strings.HasPrefix(l, "- [X] "):
			done = append(done, l[6:])
		}
	}
	var placeholders map[string]any
	s.Vars().Get("project_placeholders", &placeholders)
	var unnamed []string
	for _, k := range slices.Sorted(maps.Keys(placeholders)) {
		if !strings.Contains(text, "`"+k+"`") {
			unnamed = append(unnamed, k)
		}
	}
	if len(open)+len(done) == 0 {
		return &GateFailure{Code: envelope.CodeGateFailed, Message: ledger + " has no action items (\"- [ ]\" lines)"}
	}
	if len(unnamed) > 0 {
		sort.Strings(unnamed)
		return &GateFailure{Code: envelope.CodeGateFailed, Message: fmt.Sprintf("%s does not name the placeholder(s) %s", ledger, strings.Join(unnamed, ", ")),
			Remedy: "add an action item for each placeholder value to the ledger"}
	}
	if err := s.Set("action_items", open); err != nil {
		return err
	}
	s.Summary("open_items", len(open))
	s.Summary("done_items", len(done))
	return nil
}

func phaseVerify(ctx context.Context, s *Step) error {
	dagFile := s.Vars().String(varProjectDAG)
	cfgFile := s.Vars().String(varProjectConfig)
	d, err := loadDAGFile(ctx, s, dagFile)
	if err != nil {
		return err
	}
	if len(d.Nodes) == 0 {
		return &GateFailure{Tool: "dag.deserialize", Code: envelope.CodeGateFailed, Message: dagFile + " has no nodes"}
	}
	var custom []string
	s.Vars().Get(varCustomSteps, &custom)
	// A project's config holds its custom steps' configs: tools that cannot
	// be given the project's workspace cannot read it.
	canRead := func(tool string) bool { return len(custom) == 0 || acceptsArg(s, tool, "workspace_dirs") }
	if canRead("config.load") {
		largs := withWorkspace(s, "config.load", map[string]any{"config_file": s.Abs(cfgFile)})
		load, err := s.Require(ctx, "config.load", largs)
		if err != nil {
			return err
		}
		var l struct {
			Valid *bool `json:"valid"`
		}
		if err := load.Decode(&l); err != nil {
			return Gate("config.load", load, "unexpected answer: %v", err)
		}
		if l.Valid != nil && !*l.Valid {
			return Gate("config.load", load, "%s holds invalid values", cfgFile)
		}
		s.Summary("config_load", "valid")
	} else {
		s.Warn("config.load skipped on %s: it holds custom step configs and config.load takes no workspace_dirs yet", cfgFile)
		s.Summary("config_load", "skipped: no workspace_dirs argument")
	}
	for _, st := range custom {
		args := withWorkspace(s, "validate.step_interface", map[string]any{"step_name": st})
		if _, err := s.RequireAndReport(ctx, "validate.step_interface", args, st); err != nil {
			return err
		}
		cargs := withWorkspace(s, "author.check_script", map[string]any{"step_name": st})
		if _, err := s.RequireAndReport(ctx, "author.check_script", cargs, st); err != nil {
			return err
		}
	}
	args := map[string]any{"dag_file": s.Abs(dagFile), "config_file": s.Abs(cfgFile)}
	if len(custom) > 0 {
		if !canRead("compile.validate") {
			s.Warn("compile.validate skipped on %s: the DAG has custom steps and compile.validate takes no workspace_dirs yet", dagFile)
			s.Summary("compile_validate", "skipped: no workspace_dirs argument")
			return nil
		}
		args = withWorkspace(s, "compile.validate", args)
	}
	cv, vr, err := compileValidate(ctx, s, args, "project")
	if err != nil {
		return err
	}
	if !vr.IsValid {
		return Gate("compile.validate", cv, "the scaffolded project does not validate: %s", vr.Summary)
	}
	s.Summary("compile_validate", "valid")
	return nil
}

func initOutputs(v Vars) map[string]any {
	var items []string
	v.Get("action_items", &items)
	var ws []string
	v.Get(varWorkspace, &ws)
	return map[string]any{
		"project_dir": v.String(varProjectDir), "dag_file": v.String(varProjectDAG), "config_file": v.String(varProjectConfig),
		"workspace_dirs": ws, "scripts_dir": v.String(varScriptsDir), "ledger": v.String(varLedger), "action_items": items,
	}
}

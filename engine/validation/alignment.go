package validation

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"
)

// Level statuses.
const (
	StatusPassed   = "PASSED"
	StatusFailed   = "FAILED"
	StatusSkipped  = "SKIPPED"
	StatusNoScript = "NO_SCRIPT"
)

// The alignment levels.
const (
	LevelScriptContract    = 1
	LevelContractPorts     = 2
	LevelPortsDependencies = 3
	LevelBuilderConfig     = 4
)

// LevelNames names each level (validation_type).
var LevelNames = map[int]string{
	LevelScriptContract:    "script_contract",
	LevelContractPorts:     "contract_ports",
	LevelPortsDependencies: "ports_dependencies",
	LevelBuilderConfig:     "builder_config",
}

// LevelDescriptions say what each level checks.
var LevelDescriptions = map[int]string{
	LevelScriptContract:    "the step's script reads exactly the container paths and environment variables its contract declares and parses exactly its job arguments (python3 ast analysis)",
	LevelContractPorts:     "every port of a container verb has a distinct container path under the verb's roots; env vars and job arguments read declared config fields",
	LevelPortsDependencies: fmt.Sprintf("every required input not supplied from config has a provider in the catalog whose output scores above the resolver threshold %.1f", deps.Threshold),
	LevelBuilderConfig:     "every config field the builder reads is declared by the step's config class, and the builder builds the step from a default config",
}

// EnabledLevels returns the levels that apply to a verb.
func EnabledLevels(v catalog.Verb) []int {
	if vi, ok := catalog.VerbInfoOf(v); ok && vi.Script == catalog.ScriptRequired {
		return []int{1, 2, 3, 4}
	}
	return []int{2, 3, 4}
}

// LevelResult is the result of one level for one step.
type LevelResult struct {
	Level          int     `json:"level"`
	ValidationType string  `json:"validation_type"`
	Status         string  `json:"status"`
	Passed         bool    `json:"passed"` // PASSED, SKIPPED and NO_SCRIPT count as passed
	Reason         string  `json:"reason,omitempty"`
	Script         string  `json:"script,omitempty"`
	Issues         []Issue `json:"issues"`
}

// StepAlignment is the alignment report of one step.
type StepAlignment struct {
	StepName          string                  `json:"step_name"`
	SageMakerStepType string                  `json:"sagemaker_step_type"`
	Category          string                  `json:"category"` // script | no_script (the step runs no script of its own)
	Source            string                  `json:"source"`
	EnabledLevels     []int                   `json:"enabled_levels"`
	Levels            map[string]*LevelResult `json:"validation_results"`
	OverallStatus     string                  `json:"overall_status"`
}

// Passed reports whether no level failed.
func (s *StepAlignment) Passed() bool { return s.OverallStatus == StatusPassed }

// Issues returns every issue of every level.
func (s *StepAlignment) Issues() []Issue {
	var out []Issue
	for _, l := range s.EnabledLevels {
		if r := s.Levels[levelKey(l)]; r != nil {
			out = append(out, r.Issues...)
		}
	}
	return out
}

func levelKey(l int) string { return fmt.Sprintf("level_%d", l) }

// TypeBreakdown counts results per SageMaker step type.
type TypeBreakdown struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// LevelSummary counts results of one level over all steps.
type LevelSummary struct {
	Level          int     `json:"level"`
	ValidationType string  `json:"validation_type"`
	Checked        int     `json:"checked"` // steps where the level ran (not skipped, not no-script)
	Passed         int     `json:"passed"`
	Failed         int     `json:"failed"`
	Skipped        int     `json:"skipped"`
	NoScript       int     `json:"no_script,omitempty"`
	PassRate       float64 `json:"pass_rate"` // passed / checked (1 when none checked)
}

// CriticalIssue is a blocking issue with the step and level it came from.
type CriticalIssue struct {
	StepName string `json:"step_name"`
	Level    int    `json:"level"`
	Issue
}

// AlignmentReport is the outcome of Align.
type AlignmentReport struct {
	TotalSteps        int                       `json:"total_steps"`
	PassedSteps       int                       `json:"passed_steps"`
	FailedSteps       int                       `json:"failed_steps"`
	ExcludedSteps     int                       `json:"excluded_steps"`
	PassRate          float64                   `json:"pass_rate"`
	StepTypeBreakdown map[string]*TypeBreakdown `json:"step_type_breakdown"`
	LevelSummary      map[string]*LevelSummary  `json:"level_summary"`
	CriticalIssues    []CriticalIssue           `json:"critical_issues"`
	ScriptsChecked    int                       `json:"scripts_checked"`
	ScriptDirs        []string                  `json:"script_dirs"`
	Python            PythonInfo                `json:"python"`
	Steps             []*StepAlignment          `json:"detailed_results"`
}

// AlignOptions selects what Align checks.
type AlignOptions struct {
	Catalog    *catalog.Catalog // required
	Steps      []catalog.StepType
	ScriptDirs []string // searched for scripts before the catalog's workspace dirs (see ScriptDirs)
	// SkipBuild leaves out level 4's dry build (static field checks only).
	SkipBuild bool
}

// UnknownStepsError lists requested steps the catalog does not know.
type UnknownStepsError struct {
	Names       []string
	Suggestions map[string][]catalog.StepType
}

// Error implements error.
func (e *UnknownStepsError) Error() string {
	return "unknown step type(s): " + strings.Join(e.Names, ", ")
}

// Is makes errors.Is(err, catalog.ErrUnknownStep) true.
func (e *UnknownStepsError) Is(target error) bool { return target == catalog.ErrUnknownStep }

// Align checks every selected step (all steps when none are selected) at
// the levels its verb enables and summarises the results. Scripts are found
// in ScriptDirs(cat, opts.ScriptDirs...) and analysed in one python3 run.
func Align(ctx context.Context, opts AlignOptions) (*AlignmentReport, error) {
	cat := opts.Catalog
	if cat == nil {
		return nil, errors.New("validation.Align: no catalog")
	}
	var steps []*catalog.Step
	if len(opts.Steps) == 0 {
		steps = cat.Steps()
	} else {
		var unknown []string
		sugg := map[string][]catalog.StepType{}
		seen := map[catalog.StepType]bool{}
		for _, n := range opts.Steps {
			st, _, err := LookupStep(cat, string(n))
			if err != nil {
				unknown = append(unknown, string(n))
				var nf *catalog.NotFoundError
				if errors.As(err, &nf) {
					sugg[string(n)] = nf.Suggestions
				}
				continue
			}
			if !seen[st.Type] {
				seen[st.Type] = true
				steps = append(steps, st)
			}
		}
		if len(unknown) > 0 {
			return nil, &UnknownStepsError{Names: unknown, Suggestions: sugg}
		}
	}
	dirs := ScriptDirs(cat, opts.ScriptDirs...)
	rep := &AlignmentReport{StepTypeBreakdown: map[string]*TypeBreakdown{}, LevelSummary: map[string]*LevelSummary{},
		CriticalIssues: []CriticalIssue{}, ScriptDirs: nonNilStrings(dirs), Python: Python()}

	// Level 1 inputs: find every script, analyse them in one run.
	// scripts maps a step to the file analysed, shown maps that file to
	// the name reported (an embedded script is handed to the analyzer from
	// the binary and reported as embedded:scripts/<entry>).
	scripts := map[catalog.StepType]string{}
	shown := map[string]string{}
	var paths []string
	tmp := embeddedScripts{}
	for _, st := range steps {
		if !HasScript(st) {
			continue
		}
		p, _ := FindScript(safefs.From(ctx), st, dirs)
		if p == "" {
			code, ok := st.Script()
			if !ok {
				continue
			}
			var err error
			if p, err = tmp.file(code); err != nil {
				return nil, err
			}
			shown[p] = code.Source()
		}
		scripts[st.Type] = p
		paths = append(paths, p)
	}
	analyses := map[string]*ScriptAnalysis{}
	var analysisErr error
	if len(paths) > 0 && rep.Python.Available {
		uniq := strlist.Unique(paths)
		as, err := analyzeScripts(ctx, tmp, uniq...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			analysisErr = err
		} else {
			for i := range as {
				analyses[uniq[i]] = &as[i]
			}
		}
	}

	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sa := &StepAlignment{StepName: string(st.Type), SageMakerStepType: string(st.Verb), Source: st.Source,
			EnabledLevels: EnabledLevels(st.Verb), Levels: map[string]*LevelResult{}, Category: "script"}
		if !HasScript(st) {
			sa.Category = "no_script"
		}
		for _, l := range sa.EnabledLevels {
			lr := &LevelResult{Level: l, ValidationType: LevelNames[l]}
			switch l {
			case LevelScriptContract:
				p := scripts[st.Type]
				name := p
				if s, ok := shown[p]; ok {
					name = s
				}
				switch {
				case p == "":
					lr.Status, lr.Reason = StatusNoScript, fmt.Sprintf("no script %s in the script directories, and the catalog ships none", st.Contract.EntryPoint)
				case !rep.Python.Available:
					lr.Status, lr.Reason, lr.Script = StatusSkipped, "script analysis needs python3: "+rep.Python.Reason, name
				case analysisErr != nil:
					lr.Status, lr.Reason, lr.Script = StatusSkipped, "script analysis failed: "+analysisErr.Error(), name
				default:
					lr.Script = name
					rep.ScriptsChecked++
					a := analyses[p]
					if !a.OK {
						lr.Issues = []Issue{{Severity: SeverityCritical, Category: "script_analysis", Message: fmt.Sprintf("cannot analyse %s: %s", name, a.Error),
							Recommendation: "fix the script so python3 can parse it"}}
					} else {
						lr.Issues = CheckScriptAnalysis(st, a)
						if HasBlocking(lr.Issues) {
							if owner := sharedOwner(cat, st, a); owner != "" {
								lr.Status = StatusSkipped
								lr.Reason = fmt.Sprintf("%s matches the contract of %s, which shares the entry point %s; it is that step's script", name, owner, st.Contract.EntryPoint)
								lr.Issues = []Issue{{Severity: SeverityWarning, Category: CatContractField, Message: lr.Reason,
									Recommendation: "give the steps the same contract or different entry points (see level 2)"}}
							}
						}
					}
				}
			case LevelContractPorts:
				lr.Issues = append(checkContractPorts(st), sharedEntryIssues(cat, st)...)
			case LevelPortsDependencies:
				lr.Issues = checkPortsResolvable(cat, st)
			case LevelBuilderConfig:
				lr.Issues = checkBuilderFields(cat, st)
				if !opts.SkipBuild && !HasBlocking(lr.Issues) {
					lr.Issues = append(lr.Issues, dryBuildIssues(ctx, cat, st)...)
				}
			}
			finishLevel(lr)
			sa.Levels[levelKey(l)] = lr
		}
		sa.OverallStatus = StatusPassed
		for _, l := range sa.EnabledLevels {
			if sa.Levels[levelKey(l)].Status == StatusFailed {
				sa.OverallStatus = StatusFailed
			}
		}
		rep.Steps = append(rep.Steps, sa)
	}
	summarise(rep)
	return rep, nil
}

func finishLevel(lr *LevelResult) {
	lr.Issues = nonNilIssues(lr.Issues)
	sortIssues(lr.Issues)
	if lr.Status == "" {
		if HasBlocking(lr.Issues) {
			lr.Status = StatusFailed
		} else {
			lr.Status = StatusPassed
		}
	}
	lr.Passed = lr.Status != StatusFailed
}

func summarise(rep *AlignmentReport) {
	for _, l := range []int{1, 2, 3, 4} {
		rep.LevelSummary[levelKey(l)] = &LevelSummary{Level: l, ValidationType: LevelNames[l]}
	}
	for _, sa := range rep.Steps {
		rep.TotalSteps++
		tb := rep.StepTypeBreakdown[sa.SageMakerStepType]
		if tb == nil {
			tb = &TypeBreakdown{}
			rep.StepTypeBreakdown[sa.SageMakerStepType] = tb
		}
		tb.Total++
		if sa.Passed() {
			rep.PassedSteps++
			tb.Passed++
		} else {
			rep.FailedSteps++
			tb.Failed++
		}
		for _, l := range sa.EnabledLevels {
			lr := sa.Levels[levelKey(l)]
			ls := rep.LevelSummary[levelKey(l)]
			switch lr.Status {
			case StatusPassed:
				ls.Checked++
				ls.Passed++
			case StatusFailed:
				ls.Checked++
				ls.Failed++
			case StatusSkipped:
				ls.Skipped++
			case StatusNoScript:
				ls.NoScript++
			}
			for _, is := range lr.Issues {
				if is.Severity.Blocking() {
					rep.CriticalIssues = append(rep.CriticalIssues, CriticalIssue{StepName: sa.StepName, Level: l, Issue: is})
				}
			}
		}
	}
	for _, ls := range rep.LevelSummary {
		ls.PassRate = 1
		if ls.Checked > 0 {
			ls.PassRate = round4(float64(ls.Passed) / float64(ls.Checked))
		}
	}
	if rep.TotalSteps > 0 {
		rep.PassRate = round4(float64(rep.PassedSteps) / float64(rep.TotalSteps))
	}
	if rep.Steps == nil {
		rep.Steps = []*StepAlignment{}
	}
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }

// checkContractPorts is level 2.
func checkContractPorts(st *catalog.Step) []Issue {
	var issues []Issue
	add := func(sev Severity, cat, format string, args ...any) {
		issues = append(issues, Issue{Severity: sev, Category: cat, Message: fmt.Sprintf(format, args...)})
	}
	inRoots, outRoots := catalog.InputRoots(st.Verb), catalog.OutputRoots(st.Verb)
	type pathUse struct{ what, path string }
	var used []pathUse
	for _, in := range st.Inputs {
		if in.ConfigSource != "" && in.ContainerPath == "" && inRoots != nil {
			add(SeverityError, CatPortPath, "input %s (from config field %s) has no container path; the job cannot mount it", in.LogicalName, in.ConfigSource)
			continue
		}
		switch {
		case inRoots == nil && in.ContainerPath != "":
			add(SeverityWarning, CatPortPath, "input %s has container path %s, but a %s step has no container of its own; the path is ignored", in.LogicalName, in.ContainerPath, st.Verb)
		case inRoots != nil && in.ContainerPath == "":
			add(SeverityError, CatPortPath, "input %s has no container path; a %s step mounts every input", in.LogicalName, st.Verb)
		case inRoots != nil && !underAnyRoot(in.ContainerPath, inRoots):
			add(SeverityError, CatPortPath, "input %s path %s is not under %s", in.LogicalName, in.ContainerPath, strings.Join(inRoots, " or "))
		case in.ContainerPath != "":
			used = append(used, pathUse{"input " + in.LogicalName, in.ContainerPath})
		}
		if in.ConfigSource != "" {
			if _, ok := st.Field(in.ConfigSource); !ok {
				add(SeverityError, CatContractField, "input %s is supplied from config field %s, which the step does not declare", in.LogicalName, in.ConfigSource)
			}
		}
	}
	for _, o := range st.Outputs {
		if o.ContainerPath == "" && st.Verb == catalog.VerbTuning {
			continue // a tuning job's outputs are its best training job's
		}
		switch {
		case outRoots == nil && o.ContainerPath != "":
			add(SeverityWarning, CatPortPath, "output %s has container path %s, but a %s step has no container of its own", o.LogicalName, o.ContainerPath, st.Verb)
		case outRoots != nil && o.ContainerPath == "":
			add(SeverityError, CatPortPath, "output %s has no container path; a %s step uploads outputs from the container", o.LogicalName, st.Verb)
		case outRoots != nil && !underAnyRoot(o.ContainerPath, outRoots):
			add(SeverityError, CatPortPath, "output %s path %s is not under %s", o.LogicalName, o.ContainerPath, strings.Join(outRoots, " or "))
		case o.ContainerPath != "":
			used = append(used, pathUse{"output " + o.LogicalName, o.ContainerPath})
		}
	}
	for i := range used {
		for j := i + 1; j < len(used); j++ {
			a, b := strings.TrimSuffix(used[i].path, "/"), strings.TrimSuffix(used[j].path, "/")
			aOut, bOut := strings.HasPrefix(used[i].what, "output"), strings.HasPrefix(used[j].what, "output")
			switch {
			case a == b:
				add(SeverityError, CatPortPath, "%s and %s share container path %s", used[i].what, used[j].what, a)
			case (underPath(a, b) || underPath(b, a)) && (aOut || bOut):
				add(SeverityError, CatPortPath, "%s (%s) and %s (%s) nest inside each other; an output must not overlap another port", used[i].what, a, used[j].what, b)
			case underPath(a, b) || underPath(b, a):
				add(SeverityInfo, CatPortPath, "%s (%s) is mounted inside %s (%s)", used[i].what, a, used[j].what, b)
			}
		}
	}
	for _, e := range st.Contract.Env {
		if e.Field == "" {
			continue
		}
		if _, ok := st.Field(e.Field); !ok {
			add(SeverityError, CatContractField, "environment variable %s reads config field %s, which the step does not declare", e.Name, e.Field)
		}
	}
	for _, ja := range st.Contract.JobArguments {
		if _, ok := st.Field(ja.Source); !ok {
			add(SeverityError, CatContractField, "job argument %s reads config field %s, which the step does not declare", ja.Flag, ja.Source)
		}
	}
	return issues
}

// contractSignature summarises what a script of the step must read: its
// container paths, environment variables and job arguments.
func contractSignature(st *catalog.Step) string {
	var parts []string
	for _, d := range declaredPaths(st) {
		parts = append(parts, "p:"+d.path)
	}
	for _, e := range st.Contract.Env {
		parts = append(parts, "e:"+e.Name)
	}
	for _, a := range st.Contract.JobArguments {
		parts = append(parts, "a:"+a.Flag)
	}
	sort.Strings(parts)
	return strings.Join(parts, "|")
}

// sharedEntryIssues warns when another step shares the step's entry point
// with a different contract: one script file cannot match both.
func sharedEntryIssues(cat *catalog.Catalog, st *catalog.Step) []Issue {
	if !HasScript(st) {
		return nil
	}
	var issues []Issue
	sig := contractSignature(st)
	for _, o := range cat.Steps() {
		if o.Type == st.Type || !HasScript(o) || o.Contract.EntryPoint != st.Contract.EntryPoint {
			continue
		}
		if contractSignature(o) != sig {
			issues = append(issues, Issue{Severity: SeverityWarning, Category: CatContractField,
				Message:        fmt.Sprintf("entry point %s is shared with %s, whose contract declares other paths, env vars or job arguments: one script cannot match both", st.Contract.EntryPoint, o.Type),
				Details:        map[string]any{"entry_point": st.Contract.EntryPoint, "other_step": string(o.Type)},
				Recommendation: "give the steps the same contract, or different entry points"})
		}
	}
	return issues
}

// sharedOwner returns another step with the same entry point whose
// contract the script matches without blocking issues ("" when none).
func sharedOwner(cat *catalog.Catalog, st *catalog.Step, a *ScriptAnalysis) string {
	for _, o := range cat.Steps() {
		if o.Type == st.Type || !HasScript(o) || o.Contract.EntryPoint != st.Contract.EntryPoint {
			continue
		}
		if !HasBlocking(CheckScriptAnalysis(o, a)) {
			return string(o.Type)
		}
	}
	return ""
}

func underAnyRoot(p string, roots []string) bool {
	for _, r := range roots {
		if underPath(strings.TrimSuffix(p, "/"), r) {
			return true
		}
	}
	return false
}

// candidate is a provider output scored against an input.
type candidate struct {
	Provider string  `json:"provider"`
	Output   string  `json:"output"`
	Score    float64 `json:"score"`
}

// checkPortsResolvable is level 3: every required input (base step and
// each job-type variant) not supplied from config has a provider above the
// threshold among the other steps of the catalog.
func checkPortsResolvable(cat *catalog.Catalog, st *catalog.Step) []Issue {
	var issues []Issue
	views := []*catalog.Step{st}
	for _, jt := range mapkeys.Sorted(st.Variants) {
		views = append(views, st.ForJobType(jt))
	}
	providers := cat.Steps()
	checked := map[string]bool{}
	for _, v := range views {
		for i := range v.Inputs {
			in := &v.Inputs[i]
			key := fmt.Sprintf("%s|%v|%v", in.LogicalName, in.Required, in.CompatibleSources)
			if checked[key] || in.ConfigSource != "" {
				continue
			}
			checked[key] = true
			var cands []candidate
			for _, p := range providers {
				if p.Type == st.Type {
					continue
				}
				for j := range p.Outputs {
					if s := deps.Score(in, &p.Outputs[j], p); s > 0 {
						cands = append(cands, candidate{Provider: string(p.Type), Output: p.Outputs[j].LogicalName, Score: round4(s)})
					}
				}
			}
			sort.SliceStable(cands, func(a, b int) bool { return cands[a].Score > cands[b].Score })
			top := cands
			if len(top) > 3 {
				top = top[:3]
			}
			where := ""
			if v.JobType != "" {
				where = fmt.Sprintf(" (job type %s)", v.JobType)
			}
			viable := len(cands) > 0 && cands[0].Score > deps.Threshold
			switch {
			case viable:
				issues = append(issues, Issue{Severity: SeverityInfo, Category: CatDependencyResolution,
					Message: fmt.Sprintf("input %s%s resolves from %s.%s (score %.4f)", in.LogicalName, where, cands[0].Provider, cands[0].Output, cands[0].Score),
					Details: map[string]any{"input": in.LogicalName, "best": cands[0]}})
			case in.Required:
				msg := fmt.Sprintf("required input %s%s has no provider in the catalog above the threshold %.1f", in.LogicalName, where, deps.Threshold)
				if len(cands) > 0 {
					msg += fmt.Sprintf("; the best is %s.%s at %.4f", cands[0].Provider, cands[0].Output, cands[0].Score)
				}
				issues = append(issues, Issue{Severity: SeverityCritical, Category: CatDependencyResolution, Message: msg,
					Details:        map[string]any{"input": in.LogicalName, "job_type": v.JobType, "alternatives": top},
					Recommendation: "list the intended provider in compatible_sources, align the input's type and name with its output (or add the input name to that output's aliases), or supply it from config (config_source)"})
			default:
				sev := SeverityInfo
				msg := fmt.Sprintf("optional input %s%s has no provider above the threshold", in.LogicalName, where)
				if len(cands) > 0 {
					msg += fmt.Sprintf(" (best %s.%s at %.4f)", cands[0].Provider, cands[0].Output, cands[0].Score)
				}
				issues = append(issues, Issue{Severity: sev, Category: CatDependencyCompatibility, Message: msg, Details: map[string]any{"input": in.LogicalName, "alternatives": top}})
			}
		}
	}
	return issues
}

// FieldRead is one config field a step's builder reads.
type FieldRead struct {
	Field  string `json:"field"`
	Reader string `json:"reader"` // what reads it: compute.instance_type_field, contract.env[LABEL_FIELD], ...
	// Required fields must be declared by the config class; the others
	// fall back to a builder default when absent.
	Required bool `json:"required"`
}

// FieldsRead lists the config fields a step's builder reads: the fields
// the step file names for compute, entry point, source dir, env vars, job
// arguments, config-sourced inputs and the name suffix (all required to be
// declared), and the builder's own config knobs (compiler.Builder; role and
// region required, the rest optional with builder defaults).
func FieldsRead(st *catalog.Step) []FieldRead {
	var out []FieldRead
	seen := map[string]bool{}
	add := func(field, reader string, required bool) {
		if field == "" || seen[field+"|"+reader] {
			return
		}
		seen[field+"|"+reader] = true
		out = append(out, FieldRead{Field: field, Reader: reader, Required: required})
	}
	c := st.Compute
	for _, f := range []struct{ field, reader string }{
		{c.FrameworkField, "compute.framework_field"},
		{c.FrameworkVersionField, "compute.framework_version_field"},
		{c.PyVersionField, "compute.py_version_field"},
		{c.ImageURIField, "compute.image_uri_field"},
		{c.InstanceTypeField, "compute.instance_type_field"},
		{c.LargeInstanceTypeField, "compute.large_instance_type_field"},
		{c.SmallInstanceTypeField, "compute.small_instance_type_field"},
		{c.UseLargeInstanceField, "compute.use_large_instance_field"},
		{c.InstanceCountField, "compute.instance_count_field"},
		{c.VolumeSizeField, "compute.volume_size_field"},
		{c.MaxRuntimeField, "compute.max_runtime_field"},
		{st.Contract.EntryPointField, "contract.entry_point_field"},
		{st.Contract.SourceDirField, "contract.source_dir_field"},
		{st.Patterns.NameSuffixField, "patterns.name_suffix_field"},
	} {
		add(f.field, f.reader, true)
	}
	for _, e := range st.Contract.Env {
		add(e.Field, "contract.env["+e.Name+"]", e.Required)
	}
	for _, ja := range st.Contract.JobArguments {
		add(ja.Source, "contract.job_arguments["+ja.Flag+"]", true)
	}
	for _, in := range st.Inputs {
		add(in.ConfigSource, "inputs["+in.LogicalName+"].config_source", true)
	}
	if b, ok := compiler.Builder(st.Verb); ok {
		for _, k := range b.Knobs {
			if k.Source != "config" || strings.Contains(k.Name, "<") {
				continue
			}
			add(k.Name, b.Name, k.Name == "role" || k.Name == "region")
		}
	}
	return out
}

// checkBuilderFields is level 4's static part.
func checkBuilderFields(cat *catalog.Catalog, st *catalog.Step) []Issue {
	var issues []Issue
	if !compiler.HasBuilder(st.Verb) {
		return []Issue{{Severity: SeverityCritical, Category: CatBuilder, Message: fmt.Sprintf("no builder for SageMaker step type %s", st.Verb),
			Recommendation: "use one of the verbs the compiler builds: " + verbList()}}
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		return []Issue{{Severity: SeverityCritical, Category: CatMissingConfigField, Message: "the config schema could not be built: " + err.Error()}}
	}
	class, ok := schema.ClassForStep(st.Type)
	if !ok {
		return []Issue{{Severity: SeverityCritical, Category: CatMissingConfigField, Message: fmt.Sprintf("no config class for %s", st.Type)}}
	}
	for _, fr := range FieldsRead(st) {
		if class.HasField(fr.Field) {
			continue
		}
		if fr.Required {
			issues = append(issues, Issue{Severity: SeverityError, Category: CatMissingConfigField,
				Message:        fmt.Sprintf("%s reads config field %s, which %s does not declare", fr.Reader, fr.Field, class.Name),
				Recommendation: "declare the field in the step file (fields:) or in a field set it extends"})
		}
	}
	return issues
}

func verbList() string {
	var s []string
	for _, v := range catalog.Verbs {
		if compiler.HasBuilder(v) {
			s = append(s, string(v))
		}
	}
	return strings.Join(s, ", ")
}

// dryBuildIssues is level 4's dynamic part: the step built from a default
// config.
func dryBuildIssues(ctx context.Context, cat *catalog.Catalog, st *catalog.Step) []Issue {
	b, err := BuildStep(ctx, cat, st, "")
	if err != nil {
		return []Issue{{Severity: SeverityError, Category: CatBuild, Message: "default config: " + err.Error()}}
	}
	if b.Built {
		return []Issue{{Severity: SeverityInfo, Category: CatBuild, Message: fmt.Sprintf("builds %s from a default config", b.StepName)}}
	}
	is := Issue{Severity: SeverityError, Category: CatBuild, Message: "the builder fails on a default config: " + b.Error,
		Recommendation: "give the field a default, or fix the declaration the builder reads"}
	if b.Field != "" {
		is.Details = map[string]any{"field": b.Field}
	}
	return []Issue{is}
}

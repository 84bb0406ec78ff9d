package validation

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/safefs"
)

// InterfaceOptions selects what CheckInterfaces validates.
type InterfaceOptions struct {
	StepName      string   // one step (a canonical name; file-style and node names are resolved)
	All           bool     // every step of the catalog
	JobType       string   // optional: validate the job-type view of each step
	WorkspaceDirs []string // directories of *.step.yaml files that add or replace steps
	// FS reads the workspace files (nil: the trusted file-access layer).
	FS *safefs.FS
}

// InterfaceResult is the verdict on one step file.
type InterfaceResult struct {
	Step     string   `json:"step"`
	JobType  *string  `json:"job_type"` // null when no job type was given
	File     string   `json:"file,omitempty"`
	OK       bool     `json:"ok"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
}

// InterfaceReport is the outcome of CheckInterfaces.
type InterfaceReport struct {
	Validated int               `json:"validated"`
	Errors    int               `json:"errors"`   // number of blocking errors over all results
	Warnings  int               `json:"warnings"` // number of warnings over all results
	Results   []InterfaceResult `json:"results"`
}

// Blocking reports whether any result has an error.
func (r *InterfaceReport) Blocking() bool { return r.Errors > 0 }

// ErrNoSelection is returned when neither a step name nor All is given.
var ErrNoSelection = errkind.New(errkind.InvalidInput, "give a step_name or all: true")

// CheckInterfaces validates step-interface files: the schema and
// invariants the catalog loader enforces (every problem, with file and
// field), and registry parity over the loaded catalog (config class, name
// round trips, builder for the verb, job type). A step name the catalog
// does not know yields a failed result naming the closest steps, not an
// error. Errors are returned only for a bad selection or an unreadable
// workspace directory that is not a step-file problem.
func CheckInterfaces(opts InterfaceOptions) (*InterfaceReport, error) {
	name := strings.TrimSpace(opts.StepName)
	if name == "" && !opts.All {
		return nil, ErrNoSelection
	}
	var jt *string
	if j := strings.TrimSpace(opts.JobType); j != "" {
		jt = &j
	}
	rep := &InterfaceReport{Results: []InterfaceResult{}}
	cat, loadErr := catalog.Load(opts.FS, opts.WorkspaceDirs...)
	var failed map[string][]string // file -> errors, when the catalog did not load
	if loadErr != nil {
		probs := catalog.Problems(loadErr)
		if len(probs) == 0 {
			return nil, loadErr
		}
		failed = map[string][]string{}
		for _, p := range probs {
			failed[p.File] = append(failed[p.File], problemText(p))
		}
		// Validate what still loads: the embedded catalog (when the
		// problems are in workspace files only).
		base, err := catalog.Default()
		if err == nil {
			cat = base
		} else {
			cat = nil
		}
	}
	var globalWarn []string
	if failed != nil && cat != nil {
		for _, f := range mapkeys.Sorted(failed) {
			globalWarn = append(globalWarn, fmt.Sprintf("workspace file %s failed to load, so the workspace was not applied", f))
		}
	}

	var targets []*catalog.Step
	var targetJT []string
	matchedFailed := map[string]bool{}
	if opts.All {
		if cat != nil {
			targets = cat.Steps()
			targetJT = make([]string, len(targets))
		}
		for _, f := range mapkeys.Sorted(failed) {
			matchedFailed[f] = true
		}
	} else {
		for _, f := range mapkeys.Sorted(failed) {
			if fileNames(opts.FS, f, name) {
				matchedFailed[f] = true
			}
		}
		if len(matchedFailed) == 0 {
			st, suffix, err := lookupStep(cat, name)
			if err != nil {
				msg := fmt.Sprintf("step %q not found in the catalog", name)
				var nf *catalog.NotFoundError
				if errors.As(err, &nf) && len(nf.Suggestions) > 0 {
					msg += fmt.Sprintf(" (closest: %s)", joinTypes(nf.Suggestions))
				}
				errs := []string{msg}
				if cat == nil && failed != nil {
					errs = append(errs, "the catalog did not load: "+loadErr.Error())
				}
				rep.Results = append(rep.Results, InterfaceResult{Step: name, JobType: jt, Errors: errs, Warnings: nonNilStrings(globalWarn)})
			} else {
				targets = []*catalog.Step{st}
				targetJT = []string{suffix}
			}
		}
	}
	for _, f := range mapkeys.Sorted(matchedFailed) {
		rep.Results = append(rep.Results, InterfaceResult{Step: stepNameOfFile(opts.FS, f), JobType: jt, File: f, Errors: failed[f], Warnings: []string{}})
	}
	var schema *config.Schema
	var schemaErr error
	if len(targets) > 0 {
		schema, schemaErr = config.FromCatalog(cat)
	}
	for i, st := range targets {
		j := opts.JobType
		if strings.TrimSpace(j) == "" {
			j = targetJT[i]
		}
		r := checkStep(cat, schema, schemaErr, st, strings.TrimSpace(j))
		r.JobType = jt
		if jt == nil && targetJT[i] != "" {
			s := targetJT[i]
			r.JobType = &s
		}
		r.Warnings = append(r.Warnings, globalWarn...)
		rep.Results = append(rep.Results, r)
	}
	sort.SliceStable(rep.Results, func(i, j int) bool { return rep.Results[i].Step < rep.Results[j].Step })
	for i := range rep.Results {
		r := &rep.Results[i]
		r.OK = len(r.Errors) == 0
		if r.Errors == nil {
			r.Errors = []string{}
		}
		if r.Warnings == nil {
			r.Warnings = []string{}
		}
		rep.Errors += len(r.Errors)
		rep.Warnings += len(r.Warnings)
	}
	rep.Validated = len(rep.Results)
	return rep, nil
}

// lookupStep finds a step by exact name, then loosely (file-style names,
// node names with a job-type suffix).
func lookupStep(cat *catalog.Catalog, name string) (*catalog.Step, string, error) {
	if cat == nil {
		return nil, "", &catalog.NotFoundError{Name: name}
	}
	if st, ok := cat.Step(catalog.StepType(name)); ok {
		return st, "", nil
	}
	st, suffix, err := cat.Lookup(name)
	if err == nil {
		return st, suffix, nil
	}
	if t, ok := cat.ResolveFileName(name); ok {
		st, _ := cat.Step(t)
		return st, "", nil
	}
	return nil, "", err
}

// LookupStep finds a step in a catalog by exact, file-style or node name
// and returns it with the job type a node-name suffix carried. Unknown
// names yield a *catalog.NotFoundError with suggestions.
func LookupStep(cat *catalog.Catalog, name string) (*catalog.Step, string, error) {
	return lookupStep(cat, strings.TrimSpace(name))
}

func problemText(p *catalog.FileError) string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	} else if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// fileNames reports whether a step file path names the step.
func fileNames(fsys *safefs.FS, file, name string) bool {
	stem := strings.TrimSuffix(filepath.Base(file), catalog.StepFileSuffix)
	if stem == name || catalog.CanonicalKey(stem) == catalog.CanonicalKey(name) {
		return true
	}
	return catalog.CanonicalKey(stepNameOfFile(fsys, file)) == catalog.CanonicalKey(name)
}

// stepNameOfFile reads the step name a file declares (its `step:` line),
// falling back to the file stem.
func stepNameOfFile(fsys *safefs.FS, file string) string {
	stem := strings.TrimSuffix(filepath.Base(file), catalog.StepFileSuffix)
	data, err := fsys.ReadFile(file, safefs.KindStep)
	if err != nil {
		return stem
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "step:"); ok {
			if v := strings.Trim(strings.TrimSpace(rest), `"'`); v != "" {
				return v
			}
		}
	}
	return stem
}

// checkStep runs the parity checks of one loaded step.
func checkStep(cat *catalog.Catalog, schema *config.Schema, schemaErr error, st *catalog.Step, jobType string) InterfaceResult {
	r := InterfaceResult{Step: string(st.Type), File: strings.TrimPrefix(st.Source, "embedded:")}
	errf := func(format string, args ...any) { r.Errors = append(r.Errors, fmt.Sprintf(format, args...)) }
	warnf := func(format string, args ...any) { r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...)) }

	// Config class parity.
	switch {
	case schemaErr != nil:
		var se *config.SchemaError
		if errors.As(schemaErr, &se) {
			for _, p := range se.Problems {
				if strings.Contains(p, string(st.Type)) || strings.Contains(p, st.ConfigClass) {
					errf("registry parity: config schema: %s", p)
				}
			}
		} else {
			errf("registry parity: config schema could not be built: %v", schemaErr)
		}
	default:
		c, ok := schema.ClassForStep(st.Type)
		switch {
		case !ok:
			errf("registry parity: no config class for %s in the config schema", st.Type)
		case c.Name != st.ConfigClass:
			errf("registry parity: the catalog names config class %s but the schema has %s", st.ConfigClass, c.Name)
		}
	}
	// Name round trips.
	if t, suffix, ok := cat.ResolveNode(catalog.NodeName(st.Type)); !ok || t != st.Type || suffix != "" {
		errf("registry parity: node name %s does not resolve back to step %s (got %q)", st.Type, st.Type, t)
	}
	for _, j := range st.JobTypes {
		node := string(st.Type) + "_" + j
		if t, suffix, ok := cat.ResolveNode(catalog.NodeName(node)); !ok || t != st.Type || !strings.EqualFold(suffix, j) {
			errf("registry parity: node name %s resolves to (%s, %q), not (%s, %q)", node, t, suffix, st.Type, j)
		}
	}
	snake := catalog.CanonicalToSnake(st.Type)
	if t, ok := cat.ResolveFileName(snake); !ok || t != st.Type {
		warnf("file-style name %s resolves to %q, not %s: tools that take file names will not find the step by it", snake, t, st.Type)
	}
	// Builder routability.
	if !compiler.HasBuilder(st.Verb) {
		errf("routability: no builder for SageMaker step type %s", st.Verb)
	}
	// Job type.
	if jobType != "" {
		f, hasField := st.Field("job_type")
		switch {
		case !hasField:
			warnf("%s has no job_type field: job type %q does not change its config key or step name", st.Type, jobType)
		case f.CheckValue(jobType) != "":
			errf("job_type %q is not allowed for %s: %s", jobType, st.Type, f.CheckValue(jobType))
		}
		if len(st.Variants) > 0 && !st.HasVariant(jobType) {
			warnf("%s has no variant for job type %q (variants: %s); the base interface applies", st.Type, jobType, strings.Join(mapkeys.Sorted(st.Variants), ", "))
		}
	}
	// Non-blocking findings.
	for _, in := range st.Inputs {
		if len(in.CompatibleSources) == 0 && in.ConfigSource == "" {
			warnf("input %s lists no compatible_sources: the resolver gives no provider a source bonus", in.LogicalName)
		}
	}
	if st.Overrides != "" {
		warnf("%s (%s) replaces the step declared by %s", st.Type, st.Source, st.Overrides)
	}
	return r
}

func joinTypes(ts []catalog.StepType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string(nil), s...)
}

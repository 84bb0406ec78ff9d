package execdoc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// Severity of an Issue.
type Severity string

// Severities: an error makes a document invalid; a warning does not.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Issue kinds.
const (
	KindNotObject     = "not_object"        // the document is not a JSON object
	KindMissingKey    = "missing_key"       // no PIPELINE_STEP_CONFIGS
	KindWrongType     = "wrong_type"        // a top-level key of the wrong type
	KindEmpty         = "empty_document"    // PIPELINE_STEP_CONFIGS has no step
	KindBadStep       = "bad_step"          // a step entry that is not an object
	KindMissingType   = "missing_step_type" // no STEP_TYPE (a warning)
	KindBadType       = "bad_step_type"     // STEP_TYPE neither a string nor a list of strings
	KindMissingConfig = "missing_config"    // no STEP_CONFIG
	KindBadConfig     = "bad_config"        // STEP_CONFIG not an object
	KindEmptyConfig   = "empty_config"      // STEP_CONFIG empty for a step that needs runtime configuration
	KindUnknownStep   = "unknown_step"      // a step the DAG does not produce
	KindUnknownType   = "unknown_step_type" // a step name that names no step type of the catalog
	KindMissingStep   = "missing_step"      // a step of the DAG that takes runtime configuration, absent from the document
	KindUnknownKey    = "unknown_key"       // a key the format does not define
)

// Issue is one problem found in a document.
type Issue struct {
	Severity    Severity `json:"severity"`
	Kind        string   `json:"kind"`
	Path        string   `json:"path"`
	Step        string   `json:"step,omitempty"`
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions,omitempty"`
}

// Options adds checks to Validate.
type Options struct {
	// Steps are the step names the document is meant for (the SageMaker
	// step names of a DAG). When set, a document step not among them is an
	// unknown_step error.
	Steps []string
	// NeedConfig are steps that take runtime configuration (steps a helper
	// of Generate fills): a missing entry is a missing_step warning, an
	// empty STEP_CONFIG an empty_config warning. Other steps may be left
	// out of a document.
	NeedConfig []string
	// Catalog, when set and Steps is not, warns about step names whose
	// type part (before the first "-") names no step type.
	Catalog *catalog.Catalog
}

// Report is the result of Validate.
type Report struct {
	Valid     bool    `json:"valid"`
	Issues    []Issue `json:"issues"`
	StepCount int     `json:"step_count"`
	Errors    int     `json:"error_count"`
	Warnings  int     `json:"warning_count"`
}

var stepKeys = map[string]bool{KeyStepType: true, KeyStepConfig: true}

// Validate checks a decoded document and lists every problem: structure
// first, then each step in name order. It never stops at the first one.
func Validate(doc any, opts Options) *Report {
	r := &Report{Issues: []Issue{}}
	add := func(sev Severity, kind, path, step, msg string, sugg ...string) {
		r.Issues = append(r.Issues, Issue{Severity: sev, Kind: kind, Path: path, Step: step, Message: msg, Suggestions: sugg})
	}
	defer func() {
		for _, is := range r.Issues {
			if is.Severity == SeverityError {
				r.Errors++
			} else {
				r.Warnings++
			}
		}
		r.Valid = r.Errors == 0
	}()

	m, ok := doc.(map[string]any)
	if !ok {
		add(SeverityError, KindNotObject, "", "", "execution_document must be a JSON object, got "+jsonKind(doc))
		return r
	}
	for _, k := range mapkeys.Sorted(m) {
		if k != KeyStepConfigs && k != KeyAdditionalParams {
			add(SeverityWarning, KindUnknownKey, k, "", fmt.Sprintf("unknown top-level key %q (the format defines %s and %s)", k, KeyStepConfigs, KeyAdditionalParams))
		}
	}
	if p, ok := m[KeyAdditionalParams]; ok {
		if _, isObj := p.(map[string]any); !isObj {
			add(SeverityError, KindWrongType, KeyAdditionalParams, "", KeyAdditionalParams+" must be an object, got "+jsonKind(p))
		}
	}
	raw, ok := m[KeyStepConfigs]
	if !ok {
		add(SeverityError, KindMissingKey, KeyStepConfigs, "", "missing "+KeyStepConfigs+" (an object keyed by SageMaker step name)")
		return r
	}
	steps, ok := raw.(map[string]any)
	if !ok {
		add(SeverityError, KindWrongType, KeyStepConfigs, "", KeyStepConfigs+" must be an object keyed by step name, got "+jsonKind(raw))
		return r
	}
	r.StepCount = len(steps)
	if len(steps) == 0 {
		add(SeverityWarning, KindEmpty, KeyStepConfigs, "", KeyStepConfigs+" has no step")
	}

	known := map[string]bool{}
	for _, s := range opts.Steps {
		known[s] = true
	}
	needCfg := map[string]bool{}
	for _, s := range opts.NeedConfig {
		needCfg[s] = true
	}
	for _, name := range mapkeys.Sorted(steps) {
		path := KeyStepConfigs + "." + name
		if strings.TrimSpace(name) == "" {
			add(SeverityError, KindBadStep, path, name, "blank step name")
		}
		if len(known) > 0 && !known[name] {
			add(SeverityError, KindUnknownStep, path, name, fmt.Sprintf("step %q is not a step of the DAG", name), closeNames(name, opts.Steps)...)
		} else if len(known) == 0 && opts.Catalog != nil {
			base := name
			if i := strings.Index(name, "-"); i > 0 {
				base = name[:i]
			}
			if _, _, err := opts.Catalog.Lookup(base); err != nil {
				var sugg []string
				for _, t := range opts.Catalog.Closest(base, 3) {
					sugg = append(sugg, string(t))
				}
				add(SeverityWarning, KindUnknownType, path, name, fmt.Sprintf("step name %q does not start with a step type of the catalog (<StepType>[-<JobType>])", name), sugg...)
			}
		}
		entry, ok := steps[name].(map[string]any)
		if !ok {
			add(SeverityError, KindBadStep, path, name, "a step entry must be an object with STEP_TYPE and STEP_CONFIG, got "+jsonKind(steps[name]))
			continue
		}
		if st, ok := entry[KeyStepType]; !ok {
			add(SeverityWarning, KindMissingType, path+"."+KeyStepType, name, "missing STEP_TYPE (e.g. [\"PROCESSING_STEP\"]); the runtime has to guess the step's kind")
		} else if !validStepType(st) {
			add(SeverityError, KindBadType, path+"."+KeyStepType, name, "STEP_TYPE must be a non-empty string or a non-empty list of non-empty strings, got "+jsonKind(st))
		}
		if cfg, ok := entry[KeyStepConfig]; !ok {
			add(SeverityError, KindMissingConfig, path+"."+KeyStepConfig, name, "missing STEP_CONFIG (an object; {} when the step needs no runtime configuration)")
		} else if obj, isObj := cfg.(map[string]any); !isObj {
			add(SeverityError, KindBadConfig, path+"."+KeyStepConfig, name, "STEP_CONFIG must be an object, got "+jsonKind(cfg))
		} else if len(obj) == 0 && needCfg[name] {
			add(SeverityWarning, KindEmptyConfig, path+"."+KeyStepConfig, name, "STEP_CONFIG is empty but this step takes runtime configuration; fill it with execdoc.generate")
		}
		for _, k := range mapkeys.Sorted(entry) {
			if !stepKeys[k] {
				add(SeverityWarning, KindUnknownKey, path+"."+k, name, fmt.Sprintf("unknown key %q in a step entry (the format defines STEP_TYPE and STEP_CONFIG)", k))
			}
		}
	}
	for _, s := range opts.NeedConfig {
		if _, ok := steps[s]; !ok {
			add(SeverityWarning, KindMissingStep, KeyStepConfigs+"."+s, s, fmt.Sprintf("step %q of the DAG takes runtime configuration but has no entry", s))
		}
	}
	return r
}

func validStepType(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		if len(x) == 0 {
			return false
		}
		for _, e := range x {
			s, ok := e.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return false
			}
		}
		return true
	case []string:
		if len(x) == 0 {
			return false
		}
		for _, s := range x {
			if strings.TrimSpace(s) == "" {
				return false
			}
		}
		return true
	}
	return false
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any, []string:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int64, int32:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// closeNames returns up to three names of list that share the most with
// name (case-insensitive prefix or containment first).
func closeNames(name string, list []string) []string {
	type c struct {
		s     string
		score int
	}
	ln := strings.ToLower(name)
	var cs []c
	for _, s := range list {
		ls := strings.ToLower(s)
		score := 0
		switch {
		case ls == ln:
			score = 4
		case strings.HasPrefix(ls, ln) || strings.HasPrefix(ln, ls):
			score = 3
		case strings.Contains(ls, ln) || strings.Contains(ln, ls):
			score = 2
		default:
			a, b := ln, ls
			if i := strings.Index(a, "-"); i > 0 {
				a = a[:i]
			}
			if i := strings.Index(b, "-"); i > 0 {
				b = b[:i]
			}
			if a == b {
				score = 1
			}
		}
		if score > 0 {
			cs = append(cs, c{s, score})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

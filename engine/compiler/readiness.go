package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/safefs"
)

// The readiness gate.
//
// A definition that compiles can still fail on its first SageMaker run: a
// value is a placeholder, a script does not exist, a parameter has no
// default, a key is misspelt and silently ignored. Each such reason is a
// [Blocker]; a pipeline is deployable when it has none. Compile fills
// Result.Blockers (the compile stops at errors: an unbound input or an
// unknown image is an error there), Validate fills ValidationResult.Blockers
// with every problem it finds, errors included ([ErrorBlockers]). Both run
// the same checks ([CheckReadiness]); a new kind of check is one more
// function in readinessChecks.

// Blocker kinds.
const (
	// BlockerPlaceholder: a config value is a placeholder (config.IsPlaceholder:
	// replace-me, TODO, <slot>) or an essential field is blank.
	BlockerPlaceholder = "placeholder"
	// BlockerUnknownKey: a config key no config class declares and the
	// compiler does not read; it would be ignored.
	BlockerUnknownKey = "unknown_key"
	// BlockerMissingCode: a script or source directory the definition
	// refers to does not exist, so nothing can be uploaded for it.
	BlockerMissingCode = "missing_code"
	// BlockerSkeletonCode: the project's own script is still the untouched
	// skeleton the scaffolder wrote (catalog.IsSkeletonScript): it runs, but
	// does none of the step's work.
	BlockerSkeletonCode = "skeleton_code"
	// BlockerUnsetParameter: a pipeline parameter some step uses has no
	// default, so every execution would have to pass it.
	BlockerUnsetParameter = "unset_parameter"
	// BlockerUnresolvedReference: a "{{...}}" reference reached the
	// definition as literal text.
	BlockerUnresolvedReference = "unresolved_reference"
	// BlockerUnboundInput: a required input of a step is bound to nothing.
	BlockerUnboundInput = "unbound_input"
	// BlockerNoImage: no container image exists for the step's framework,
	// version, region (and Python version or instance type).
	BlockerNoImage = "no_image"
	// BlockerMissingField: an essential config field has no value.
	BlockerMissingField = "missing_field"
	// BlockerInvalidValue: a config value breaks its declaration (type,
	// allowed values, bounds, pattern).
	BlockerInvalidValue = "invalid_value"
	// BlockerBuildError: a step cannot be built from its config for another
	// reason (the field at fault is named when there is one).
	BlockerBuildError = "build_error"
	// BlockerMissingConfig: a DAG node resolves to no config.
	BlockerMissingConfig = "missing_config"
	// BlockerUnknownStep: a node's step type is unknown or has no builder.
	BlockerUnknownStep = "unknown_step"
	// BlockerDAG: the DAG cannot be ordered (a cycle, an undeclared node).
	BlockerDAG = "dag"
	// BlockerBadReference: a reference in the definition cannot resolve: a
	// Get names no earlier step, no property of that step's type, no
	// declared output, parameter or property file ([CheckReferences]).
	BlockerBadReference = "bad_reference"
	// BlockerPrefixForObject: a field that needs one S3 object (a model's
	// ModelDataUrl, a sourcedir.tar.gz) is given a prefix.
	BlockerPrefixForObject = "prefix_for_object"
)

// Blocker is one reason a compiled pipeline would not run on SageMaker as
// it is, with what to do about it.
type Blocker struct {
	Kind       string           `json:"kind"`
	Node       catalog.NodeName `json:"node,omitempty"`       // the DAG node at fault; "" for the whole pipeline or a shared value
	Field      string           `json:"field,omitempty"`      // the config field (or input, or parameter) at fault
	Path       string           `json:"path,omitempty"`       // where: "<config key>.<field>[.key]", "shared.<field>", a local file, a definition path
	Problem    string           `json:"problem"`              // what is wrong
	Fix        string           `json:"fix"`                  // what to do
	Tool       string           `json:"tool,omitempty"`       // the tool that helps with the fix
	Suggestion string           `json:"suggestion,omitempty"` // did-you-mean: the field an unknown key probably means
}

// String renders a blocker on one line, for terminals and summaries.
func (b Blocker) String() string {
	where := b.Path
	if where == "" {
		where = b.Field
	}
	if node := string(b.Node); node != "" && !strings.HasPrefix(where, node+".") {
		if where == "" {
			where = node
		} else {
			where = node + ": " + where
		}
	}
	s := b.Problem
	if where != "" {
		s = where + ": " + s
	}
	if b.Fix != "" {
		s += " (fix: " + b.Fix + ")"
	}
	return s
}

// BlockerSummary renders the first three blockers on one line (each as
// Blocker.String, without its fix) and counts the rest: what a terminal
// shows instead of a bare count.
func BlockerSummary(bs []Blocker) string {
	if len(bs) == 0 {
		return "no blockers"
	}
	var parts []string
	for i, b := range bs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(bs)-3))
			break
		}
		b.Fix = ""
		parts = append(parts, b.String())
	}
	return fmt.Sprintf("%d blocker(s): %s", len(bs), strings.Join(parts, "; "))
}

// Deployable reports whether the compile found no blocker.
func (r *Result) Deployable() bool { return len(r.Blockers) == 0 }

// ReadinessInput is what the readiness checks look at.
type ReadinessInput struct {
	// Configs are the pipeline's configs.
	Configs *config.Set
	// Nodes maps each config key the DAG uses to its node; only these
	// configs are checked (a config.json may hold configs no node uses).
	// Nil checks every config, under its key.
	Nodes map[catalog.ConfigKey]catalog.NodeName
	// Steps maps config keys to their step types in the catalog (for the
	// skip_<input> keys the compiler reads); may be nil.
	Steps map[catalog.ConfigKey]*catalog.Step
	// Result is the compiled pipeline, nil when it could not be built
	// (then only the config checks run).
	Result *Result
	// FS reads the project's code for the skeleton check; nil: the trusted
	// file-access layer.
	FS *safefs.FS
	// DAG is the pipeline's DAG, for the checks that follow its edges (a
	// label a downstream step reads); nil skips them.
	DAG *dag.PipelineDAG

	enc *encodedDefinition // the definition's encoding, made once for the checks that read its JSON
}

// encoded returns the definition's encoding (made by the compile, or now).
func (in ReadinessInput) encoded() *encodedDefinition {
	if in.enc != nil {
		return in.enc
	}
	return encodeDefinition(in.Result.Definition)
}

// readinessChecks are the checks CheckReadiness runs, in order.
var readinessChecks = []func(ReadinessInput) []Blocker{
	placeholderBlockers,
	unknownKeyBlockers,
	missingCodeBlockers,
	skeletonCodeBlockers,
	parameterBlockers,
	definitionTextBlockers,
	referenceBlockers,
	instanceTypeBlockers,
	imageBlockers,
	featureBlockers,
	labelBlockers,
	installBlockers,
}

// CheckReadiness returns every blocker of a pipeline: placeholder values,
// unknown config keys, missing code, project scripts still skeletons,
// parameters without a default,
// references left as text in the definition, references that cannot
// resolve or prefixes where one object is needed (CheckReferences),
// instance types the job's API does not take, image URIs that are not ECR
// images of the pipeline's region, trainers without feature columns,
// labels a step reads that its upstream step drops, and isolated jobs whose
// code must pip-install a requirements.txt on a looked-up image. Errors that stop a
// compile are turned into blockers by ErrorBlockers. Example values are
// not blockers but confirm items (CheckConfirm).
func CheckReadiness(in ReadinessInput) []Blocker {
	if in.enc == nil && in.Result != nil && in.Result.Definition != nil {
		in.enc = encodeDefinition(in.Result.Definition)
	}
	var out []Blocker
	for _, check := range readinessChecks {
		out = append(out, check(in)...)
	}
	return out
}

// checkedConfigs returns the configs the checks look at, in key order,
// with the node each belongs to.
func (in ReadinessInput) checkedConfigs() []nodeConfig {
	if in.Configs == nil {
		return nil
	}
	var out []nodeConfig
	for _, c := range in.Configs.Configs() {
		node := catalog.NodeName(c.Key) // without a DAG, a config is its own node
		if in.Nodes != nil {
			n, used := in.Nodes[c.Key]
			if !used {
				continue
			}
			node = n
		}
		out = append(out, nodeConfig{node: node, cfg: c})
	}
	return out
}

type nodeConfig struct {
	node catalog.NodeName
	cfg  *config.Config
}

// placeholderBlockers reports each placeholder value once: a value found
// at the same path in every checked config (a shared value such as author)
// as shared.<path>, any other per config.
func placeholderBlockers(in ReadinessInput) []Blocker {
	cs := in.checkedConfigs()
	type hit struct {
		node catalog.NodeName
		key  catalog.ConfigKey
		ph   config.PlaceholderField
	}
	byPath := map[string][]hit{}
	var paths []string
	for _, nc := range cs {
		for _, ph := range nc.cfg.PlaceholderFields() {
			if _, seen := byPath[ph.Path]; !seen {
				paths = append(paths, ph.Path)
			}
			byPath[ph.Path] = append(byPath[ph.Path], hit{nc.node, nc.cfg.Key, ph})
		}
	}
	sort.Strings(paths)
	var out []Blocker
	for _, p := range paths {
		hits := byPath[p]
		same := len(hits) > 1 && len(hits) == countDeclaring(cs, hits[0].ph.Field)
		for _, h := range hits[1:] {
			if same && canonical(h.ph.Value) != canonical(hits[0].ph.Value) {
				same = false
			}
		}
		if same {
			out = append(out, placeholderBlocker("", "shared."+p, hits[0].ph, len(hits)))
			continue
		}
		for _, h := range hits {
			out = append(out, placeholderBlocker(h.node, string(h.key)+"."+p, h.ph, 1))
		}
	}
	return out
}

func countDeclaring(cs []nodeConfig, field string) int {
	n := 0
	for _, nc := range cs {
		if _, ok := nc.cfg.Values[field]; ok {
			n++
		}
	}
	return n
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func placeholderBlocker(node catalog.NodeName, path string, ph config.PlaceholderField, configs int) Blocker {
	b := Blocker{Kind: BlockerPlaceholder, Node: node, Field: ph.Field, Path: path, Tool: "config.merge_save"}
	where := "in config.json"
	if configs > 1 {
		where = fmt.Sprintf("in every config (%d), i.e. configuration.shared", configs)
	}
	if ph.Empty {
		b.Problem = fmt.Sprintf("essential field %s is blank", ph.Field)
		b.Fix = fmt.Sprintf("set %s to a real value %s", ph.Field, where)
		return b
	}
	b.Problem = fmt.Sprintf("%s is a placeholder (%s), not a real value", ph.Path, canonical(ph.Value))
	b.Fix = fmt.Sprintf("replace it with the real value %s", where)
	return b
}

// compilerKeys are keys no config class declares that the compiler reads
// from any config: the pipeline keys of engine/config, the env map, the
// cache expiry, and the older names of the model package's type lists.
var compilerKeys = map[string]bool{
	"env": true, "cache_expire_after": true,
	"content_types": true, "response_types": true, "supported_content_types": true,
	"supported_response_types": true, "supported_realtime_instance_types": true,
}

// knownKey reports whether the compiler reads key from a config of class c
// whose step is st (nil: unknown).
func knownKey(c *config.Config, st *catalog.Step, key string) bool {
	if c.Class.HasField(key) || config.PipelineKeys[key] || compilerKeys[key] {
		return true
	}
	if port, ok := strings.CutPrefix(key, "skip_"); ok && st != nil {
		if _, ok := st.Input(port); ok {
			return true
		}
	}
	return false
}

// unknownKeyBlockers reports every config key nothing reads: an unknown
// key of a config (config.Config.UnknownKeys: a key of a legacy
// hyperparameters object that is no typed field comes as
// hyperparameters.<key>) and a shared key no config class of the file
// declares.
func unknownKeyBlockers(in ReadinessInput) []Blocker {
	var out []Blocker
	cs := in.checkedConfigs()
	for _, nc := range cs {
		c := nc.cfg
		st := in.Steps[c.Key]
		for _, key := range c.UnknownKeys() {
			if knownKey(c, st, key) {
				continue
			}
			out = append(out, unknownKeyBlocker(nc.node, string(c.Key), key, closestKey(c, strings.TrimPrefix(key, config.LegacyHyperparametersKey+".")), c.Class.Name))
		}
	}
	if in.Configs != nil && len(cs) > 0 {
		for _, key := range in.Configs.IgnoredShared {
			out = append(out, unknownKeyBlocker("", "shared", key, cs[0].cfg.Class.ClosestField(key), ""))
		}
	}
	return out
}

// closestKey is the did-you-mean of an unknown key of config c: the
// nearest field of its class, or of the keys of its hyperparameters
// object when the class still declares one (as hyperparameters.<key>).
func closestKey(c *config.Config, key string) string {
	var names []string
	for _, f := range c.Class.Fields {
		if f.Tier != catalog.TierDerived {
			names = append(names, f.Name)
		}
	}
	byName := map[string]string{}
	if hp, ok := c.Values["hyperparameters"].(map[string]any); ok && c.Class.HasField("hyperparameters") {
		for _, k := range mapkeys.Sorted(hp) {
			names = append(names, k)
			byName[k] = "hyperparameters." + k
		}
	}
	near := config.ClosestName(key, names)
	if full, ok := byName[near]; ok && !c.Class.HasField(near) {
		return full
	}
	return near
}

func unknownKeyBlocker(node catalog.NodeName, owner, key, near, class string) Blocker {
	b := Blocker{Kind: BlockerUnknownKey, Node: node, Field: key, Path: owner + "." + key, Tool: "config.field_info", Suggestion: near}
	of := "any config class of this pipeline"
	if class != "" {
		of = class
	}
	if near != "" {
		b.Problem = fmt.Sprintf("%s is not a field of %s (did you mean %s?); the compiler ignores it", key, of, near)
		b.Fix = fmt.Sprintf("rename %s to %s (or remove it)", key, near)
	} else {
		b.Problem = fmt.Sprintf("%s is not a field of %s; the compiler ignores it", key, of)
		b.Fix = "remove the key, or use a field the step declares (config.field_info lists them)"
	}
	return b
}

// missingCodeBlockers reports every artefact of the upload manifest that
// does not exist locally: a script, a source directory, a config-sourced
// input file.
func missingCodeBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil {
		return nil
	}
	nodeOf := stepNodes(in.Result)
	var out []Blocker
	for _, a := range in.Result.Manifest {
		if !a.Missing {
			continue
		}
		var node catalog.NodeName
		if len(a.Steps) > 0 {
			node = nodeOf[a.Steps[0]]
		}
		what := map[string]string{KindFile: "script", KindDirectory: "source directory", KindSourceTarball: "code"}[a.Kind]
		if what == "" {
			what = "file"
		}
		out = append(out, Blocker{
			Kind: BlockerMissingCode, Node: node, Path: a.LocalPath, Tool: "validate.alignment",
			Problem: fmt.Sprintf("%s %s does not exist; the definition refers to %s, which cannot be uploaded", what, a.LocalPath, a.S3URI),
			Fix:     "write it there, or point the step's entry point / source directory fields at the code that exists",
		})
	}
	return out
}

// skeletonCodeBlockers reports each of the project's own Python files the
// definition uploads that is still an untouched skeleton. The catalog's
// embedded code is real code and is not looked at; a file that cannot be
// read is left to the upload, which reports it.
func skeletonCodeBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil {
		return nil
	}
	nodeOf := stepNodes(in.Result)
	var out []Blocker
	for _, a := range in.Result.Manifest {
		if a.Missing || a.Embedded || a.Kind == KindGenerated {
			continue
		}
		files := a.Files
		if a.Kind == KindFile {
			files = []string{""}
		}
		for _, rel := range files {
			name := a.LocalPath
			if rel != "" {
				if !strings.HasSuffix(rel, ".py") {
					continue
				}
				name = filepath.Join(a.LocalPath, filepath.FromSlash(rel))
			}
			b, err := a.ReadFile(in.FS, rel)
			if err != nil || !catalog.IsSkeletonScript(b) {
				continue
			}
			var node catalog.NodeName
			if len(a.Steps) > 0 {
				node = nodeOf[a.Steps[0]]
			}
			out = append(out, Blocker{
				Kind: BlockerSkeletonCode, Node: node, Path: name, Tool: "author.check_script",
				Problem: fmt.Sprintf("%s is still the skeleton the scaffolder wrote; it runs but does none of the step's work", name),
				Fix:     "write the step's logic in place of the skeleton's TODO hook (remove the TODO line), or delete the file to use the catalog's own script when the step has one",
			})
		}
	}
	return out
}

// stepNodes maps SageMaker step names to DAG nodes.
func stepNodes(r *Result) map[catalog.SageMakerStepName]catalog.NodeName {
	out := map[catalog.SageMakerStepName]catalog.NodeName{}
	if r.Report != nil {
		for _, n := range r.Report.Nodes {
			out[n.StepName] = n.Node
			for _, a := range n.AddedSteps {
				out[a] = n.Node
			}
		}
	}
	return out
}

// parameterBlockers reports every declared pipeline parameter without a
// default: StartPipelineExecution would have to pass it, and an execution
// started without parameters fails.
func parameterBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil || in.Result.Definition == nil {
		return nil
	}
	var out []Blocker
	for _, p := range in.Result.Definition.Parameters {
		if p.DefaultValue != nil {
			continue
		}
		out = append(out, Blocker{
			Kind: BlockerUnsetParameter, Field: p.Name, Path: "Parameters." + p.Name, Tool: "config.merge_save",
			Problem: fmt.Sprintf("pipeline parameter %s is used by a step but has no default, so every execution must pass it", p.Name),
			Fix:     fmt.Sprintf("give %s a default_value in pipeline_parameters, or write the literal value in the config field that refers to it", p.Name),
		})
	}
	return out
}

// definitionTextBlockers walks the definition's strings (in its
// encoding: what SageMaker reads): a "{{...}}" reference left as text is a
// blocker, and so is a placeholder the config checks did not already
// report (one that came from somewhere else).
func definitionTextBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil || in.Result.Definition == nil {
		return nil
	}
	enc := in.encoded()
	if enc.err != nil {
		return nil
	}
	configPlaceholders := -1 // whether the configs hold a placeholder, found out when it matters
	hasConfigPlaceholders := func() bool {
		if configPlaceholders < 0 {
			configPlaceholders = 0
			for _, nc := range in.checkedConfigs() {
				if len(nc.cfg.PlaceholderFields()) > 0 {
					configPlaceholders = 1
					break
				}
			}
		}
		return configPlaceholders == 1
	}
	type hit struct {
		path jsonPath
		b    Blocker
	}
	var out []Blocker
	nodeOf := stepNodes(in.Result) // once: per step it made the check quadratic
	steps, _ := enc.root().get("Steps")
	path := newPath()
	steps.elems(func(_ int, step jv) {
		name := step.getString("Name")
		node := nodeOf[catalog.SageMakerStepName(name)]
		args, _ := step.get("Arguments")
		var hits []hit
		walkDocStrings(args, path, func(p jsonPath, text string) {
			switch {
			case strings.Contains(text, "{{") && strings.Contains(text, "}}"):
				hits = append(hits, hit{slices.Clone(p), Blocker{Kind: BlockerUnresolvedReference, Node: node, Path: p.render("Steps[" + name + "]"), Tool: "config.field_info",
					Problem: fmt.Sprintf("%q reaches the definition as literal text; SageMaker would not resolve it", text),
					Fix:     "write {{Parameters.<declared name>}} or {{Execution.<variable>}} as the whole value of a field that takes an expression, or a literal value"}})
			case config.IsPlaceholder(text) && !hasConfigPlaceholders():
				hits = append(hits, hit{slices.Clone(p), Blocker{Kind: BlockerPlaceholder, Node: node, Path: p.render("Steps[" + name + "]"), Tool: "compile.with_report",
					Problem: fmt.Sprintf("the definition holds the placeholder %q", text),
					Fix:     "find where the value comes from (compile.with_report) and set a real one"}})
			}
		})
		sortedByPath(hits, func(h hit) jsonPath { return h.path }) // in key order, as the check always reported them
		for _, h := range hits {
			out = append(out, h.b)
		}
	})
	return out
}

// walkStrings calls fn with every string under v (a config value: strings,
// lists and objects as decoded), members in no particular order, with the
// path to it, rendered only by the calls of fn that use it.
func walkStrings(v any, path jsonPath, fn func(path jsonPath, text string)) {
	switch t := v.(type) {
	case string:
		fn(path, t)
	case []any:
		for i, e := range t {
			walkStrings(e, path.at(i), fn)
		}
	case map[string]any:
		for k, e := range t {
			walkStrings(e, path.key(k), fn)
		}
	}
}

// ErrorBlockers turns a compile error into blockers: each bad config field
// of a *config.ValidationError, each unbound input of an
// *UnboundInputsError, a step that cannot be built (no_image when its image
// cannot be found), a missing config, an unknown step, a DAG problem. An
// error of another kind is one build_error blocker.
func ErrorBlockers(err error) []Blocker {
	if err == nil {
		return nil
	}
	var (
		ve  *config.ValidationError
		ues *UnboundInputsError
		ue  *UnboundInputError
		se  *StepBuildError
		me  *MissingConfigError
		ke  *UnknownStepError
		ce  *CycleError
		de  *InvalidDAGError
		bc  *dag.BranchConflictError
		pe  *ParameterError
		ne  *InvalidPipelineNameError
	)
	switch {
	case errors.As(err, &ve):
		var out []Blocker
		for _, fe := range ve.Errors {
			out = append(out, fieldErrorBlocker(fe))
		}
		return out
	case errors.As(err, &ues):
		var out []Blocker
		for _, u := range ues.Inputs {
			out = append(out, unboundBlocker(u))
		}
		return out
	case errors.As(err, &ue):
		return []Blocker{unboundBlocker(ue)}
	case errors.As(err, &se):
		return []Blocker{stepBuildBlocker(se)}
	case errors.As(err, &me):
		var out []Blocker
		for _, n := range me.Nodes {
			out = append(out, Blocker{Kind: BlockerMissingConfig, Node: n, Tool: "config.template",
				Problem: fmt.Sprintf("node %s resolves to no config", n),
				Fix:     fmt.Sprintf("add a config with key %s (config.template writes one), or rename the node to a config key", n)})
		}
		return out
	case errors.As(err, &ke):
		return []Blocker{{Kind: BlockerUnknownStep, Node: ke.Node, Field: "step_type", Tool: "catalog.search",
			Problem: ke.Error(), Fix: "use a step type the catalog has"}}
	case errors.As(err, &bc):
		return []Blocker{{Kind: BlockerDAG, Node: bc.Node, Tool: "dag.render", Problem: err.Error(), Fix: "fix the DAG: " + dag.BranchConflictFix}}
	case errors.As(err, &ce), errors.As(err, &de):
		return []Blocker{{Kind: BlockerDAG, Tool: "dag.validate_integrity", Problem: err.Error(), Fix: "fix the DAG: remove an edge of the cycle, declare every edge endpoint"}}
	case errors.As(err, &pe):
		return []Blocker{{Kind: BlockerInvalidValue, Field: "pipeline_parameters", Path: string(pe.ConfigKey) + ".pipeline_parameters", Tool: "config.merge_save",
			Problem: pe.Error(), Fix: "declare parameters as [{name, type (String|Integer|Float|Boolean), default_value}]"}}
	case errors.As(err, &ne):
		return []Blocker{{Kind: BlockerInvalidValue, Field: "pipeline_name", Tool: "compile.name", Problem: ne.Error(),
			Fix: "use a legal name (letters, digits and inner hyphens) or fix author, service_name, model_class and region, which it derives from"}}
	}
	return []Blocker{{Kind: BlockerBuildError, Problem: err.Error(), Fix: "see the problem"}}
}

func fieldErrorBlocker(fe config.FieldError) Blocker {
	owner, _, _ := strings.Cut(fe.Path, ".")
	node := catalog.NodeName(owner) // a config key: its node when the config has no other
	if owner == "base" {
		node = ""
	}
	b := Blocker{Kind: BlockerInvalidValue, Node: node, Field: fe.Field, Path: fe.Path, Problem: fe.Message, Tool: "config.field_info"}
	if fe.Field == "" {
		b.Field = fe.Path
	}
	switch {
	case fe.Kind == config.KindMissing:
		b.Kind = BlockerMissingField
		b.Fix = fmt.Sprintf("set %s in config.json (config.field_info describes it)", b.Field)
	case len(fe.Allowed) > 0:
		b.Fix = fmt.Sprintf("set %s to one of %s", b.Field, canonical(fe.Allowed))
	default:
		b.Fix = fmt.Sprintf("fix the value of %s", b.Field)
	}
	return b
}

func unboundBlocker(u *UnboundInputError) Blocker {
	b := Blocker{Kind: BlockerUnboundInput, Node: u.Node, Field: u.Input, Path: string(u.Node) + ".inputs." + u.Input, Tool: "validate.deps_resolve",
		Problem: fmt.Sprintf("required input %s of step %s is bound to nothing", u.Input, u.StepName),
		Fix:     "add an edge from a step that produces it, or set the config field it can come from"}
	if u.Detail != "" {
		b.Fix = u.Detail
	}
	if u.Candidate != "" {
		b.Problem += fmt.Sprintf(" (best rejected candidate %s, score %.2f)", u.Candidate, u.Score)
	}
	return b
}

func stepBuildBlocker(se *StepBuildError) Blocker {
	b := Blocker{Kind: BlockerBuildError, Node: se.Node, Field: se.Field, Problem: se.Err.Error(), Tool: "config.field_info"}
	if se.Field != "" {
		b.Path = string(se.Node) + "." + se.Field
		b.Fix = fmt.Sprintf("fix config field %s of node %s", se.Field, se.Node)
	} else {
		b.Fix = fmt.Sprintf("fix the config of node %s", se.Node)
	}
	var ie *sagemaker.ImageError
	if errors.As(se.Err, &ie) || errors.Is(se.Err, errNoImage) {
		b.Kind = BlockerNoImage
		if ie != nil && len(ie.Supported) > 0 {
			b.Fix = fmt.Sprintf("set %s to one of %s, or set image_uri", firstNonEmpty(se.Field, "the framework version"), strings.Join(ie.Supported, ", "))
		} else {
			b.Fix = fmt.Sprintf("set %s so an image exists for the step's framework, or set image_uri", firstNonEmpty(se.Field, "the framework and version"))
		}
	}
	return b
}

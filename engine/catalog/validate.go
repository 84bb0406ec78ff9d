package catalog

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Naming patterns the loader enforces, as regular expressions (Go RE2
// syntax, anchored). They are exported so authoring tools can show the live
// rules; the loader compiles exactly these strings.
const (
	// StepNamePattern: canonical step types, aliases, compatible sources,
	// config class and builder names (PascalCase).
	StepNamePattern = `^[A-Z][A-Za-z0-9]*$`
	// FieldNamePattern: config field names (snake_case).
	FieldNamePattern = `^[a-z][a-z0-9_]*$`
	// PortNamePattern: logical names of inputs and outputs.
	PortNamePattern = `^[A-Za-z][A-Za-z0-9_]*$`
	// EnvNamePattern: environment variable names of a contract.
	EnvNamePattern = `^[A-Z_][A-Z0-9_]*$`
	// JobTypePattern: job types (job_types entries, variant keys, the
	// suffix of a node name).
	JobTypePattern = `^[a-z][a-z0-9_]*$`
	// ChannelPattern: training channel names (SageMaker's ChannelName).
	ChannelPattern = `^[A-Za-z0-9.\-_]{1,64}$`
	// ScriptPattern: entry points, a relative .py path.
	ScriptPattern = `^[A-Za-z0-9_][A-Za-z0-9_./-]*\.py$`
	// PropertyPathPattern: output property paths
	// (properties.<Field>[.<Field>|['key']|[n]]...).
	PropertyPathPattern = `^properties(\.[A-Za-z][A-Za-z0-9]*(\[('[^'\]]+'|[0-9]+)\])*)+$`
	// PathTokenPattern: patterns.output_path_token (one path segment).
	PathTokenPattern = `^[A-Za-z0-9_\-]+$`
	// ParameterRefPattern: a string config value that stands for a pipeline
	// parameter, "{{Parameters.<name>}}"; the compiler turns it into
	// {"Get": "Parameters.<name>"} and checks the parameter is declared.
	ParameterRefPattern = `^\{\{\s*Parameters\.([A-Za-z0-9\-_]{1,64})\s*\}\}$`
)

var reParamRef = lazyre.New(ParameterRefPattern)

// AcceptsParameterRef reports whether a field of this type may hold a
// pipeline-parameter reference in place of a value: string, int and float
// fields (the definition takes an expression for an instance type, an
// instance count, an environment value, ...; the compiler refuses one where
// it needs the value itself, naming the field). A bool, list, map or any
// field does not: a flag chooses what the compiler builds.
func (t FieldType) AcceptsParameterRef() bool {
	return t == FieldString || t == FieldInt || t == FieldFloat
}

// ParameterRef returns the parameter name of a "{{Parameters.<name>}}"
// value (ParameterRefPattern); ok is false for any other value.
func ParameterRef(v any) (name string, ok bool) {
	s, isString := v.(string)
	if !isString {
		return "", false
	}
	m := reParamRef().FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var (
	reStepName  = lazyre.New(StepNamePattern)
	reFieldName = lazyre.New(FieldNamePattern)
	rePortName  = lazyre.New(PortNamePattern)
	reEnvName   = lazyre.New(EnvNamePattern)
	reJobType   = lazyre.New(JobTypePattern)
	reChannel   = lazyre.New(ChannelPattern)
	rePropPath  = lazyre.New(PropertyPathPattern)
	reToken     = lazyre.New(PathTokenPattern)
	reScript    = lazyre.New(ScriptPattern)
	reDataType  = map[string]bool{"S3Uri": true, "String": true}
	// scalarDataTypes are the other types of an output parameter (a
	// Lambda or Callback step's output: OutputParameters[].OutputType).
	scalarDataTypes = map[string]bool{"Integer": true, "Boolean": true, "Float": true}
	validKinds      = map[NodeKind]bool{NodeSource: true, NodeInternal: true, NodeSink: true}
	validTiers      = map[FieldTier]bool{TierEssential: true, TierSystem: true, TierDerived: true}
	validTypes      = map[FieldType]bool{FieldString: true, FieldInt: true, FieldFloat: true, FieldBool: true, FieldList: true, FieldMap: true, FieldAny: true}
	validDepTypes   = func() map[DependencyType]bool {
		m := map[DependencyType]bool{}
		for _, d := range DependencyTypes {
			m[d] = true
		}
		return m
	}()
	validVerbs = func() map[Verb]bool {
		m := map[Verb]bool{}
		for _, v := range Verbs {
			m[v] = true
		}
		return m
	}()
)

// ProcessingPropertyPath is the property path of a Processing output.
func ProcessingPropertyPath(output string) string {
	return "properties.ProcessingOutputConfig.Outputs['" + output + "'].S3Output.S3Uri"
}

// sdkClasses lists the SDK classes per compute kind that needs one.
var sdkClasses = map[string][]string{
	"framework": {"SKLearn", "PyTorch", "XGBoost"},
	"estimator": {"XGBoost", "PyTorch", "SKLearn"},
	"tuner":     {"XGBoost", "PyTorch", "SKLearn"},
	"model":     {"XGBoostModel", "PyTorchModel", "SKLearnModel"},
}

// SDKClasses returns the SDK classes (compute.sdk_class) allowed for a
// compute kind; nil means the kind takes no sdk_class (sklearn, xgboost,
// script, transformer, model_package). The result is a copy.
func SDKClasses(kind string) []string {
	return append([]string(nil), sdkClasses[kind]...)
}

// ImageFrameworks returns the values compute.framework may take (the
// image-URI tables), sorted.
func ImageFrameworks() []string { return mapkeys.Sorted(imageFrameworks) }

var imageFrameworks = map[string]bool{"sklearn": true, "xgboost": true, "pytorch": true, "none": true}

// Frameworks lists the values of Step.Framework (the model framework a step
// belongs to, for search and filtering).
var Frameworks = []string{"generic", "lightgbm", "pytorch", "sklearn", "xgboost"}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// underRoot reports whether p equals root or lies below it.
func underRoot(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if underRoot(p, r) {
			return true
		}
	}
	return false
}

func joinOr(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// validateHeader checks the step's top-level keys.
func validateHeader(c *collector, file string, sf *StepFile, st *Step) {
	switch {
	case st.Type == "":
		c.add("step", "is required")
	case !reStepName().MatchString(string(st.Type)):
		c.add("step", "%q is not a PascalCase step name (^[A-Z][A-Za-z0-9]*$)", st.Type)
	default:
		stem := strings.TrimSuffix(filepath.Base(file), StepFileSuffix)
		if stem != string(st.Type) && stem != CanonicalToSnake(st.Type) {
			c.add("step", "is %q but the file is named %s; name the file %s%s (or %s%s)", st.Type, filepath.Base(file), st.Type, StepFileSuffix, CanonicalToSnake(st.Type), StepFileSuffix)
		}
	}
	if !strings.HasSuffix(file, StepFileSuffix) {
		c.add("", "step files must be named <StepType>%s", StepFileSuffix)
	}
	if !validVerbs[st.Verb] {
		c.add("verb", "%q is not a verb (one of %s)", st.Verb, verbList())
	}
	if !validKinds[st.Kind] {
		c.add("kind", "%q is not a node kind (source, internal or sink)", st.Kind)
	}
	if st.Description == "" {
		c.add("description", "is required")
	}
	if st.Framework != "" && !contains(Frameworks, st.Framework) {
		c.add("framework", "%q is not one of %s", st.Framework, strings.Join(Frameworks, ", "))
	}
	if st.ConfigClass != "" && !reStepName().MatchString(st.ConfigClass) {
		c.add("config_class", "%q is not a PascalCase class name", st.ConfigClass)
	}
	if st.BuilderName != "" && !reStepName().MatchString(st.BuilderName) {
		c.add("builder", "%q is not a PascalCase class name", st.BuilderName)
	}
	for i, a := range sf.Aliases {
		if !reStepName().MatchString(a) {
			c.add(fmt.Sprintf("aliases[%d]", i), "%q is not a PascalCase step name", a)
		}
		if a == string(st.Type) {
			c.add(fmt.Sprintf("aliases[%d]", i), "an alias cannot repeat the step name")
		}
	}
	for i, k := range sf.Keywords {
		if strings.TrimSpace(k) == "" {
			c.add(fmt.Sprintf("keywords[%d]", i), "is empty")
		}
	}
	seen := map[string]bool{}
	for i, j := range sf.JobTypes {
		p := fmt.Sprintf("job_types[%d]", i)
		if !reJobType().MatchString(j) {
			c.add(p, "%q is not a job type (lowercase letters, digits, _)", j)
		}
		if seen[j] {
			c.add(p, "job type %q is listed twice", j)
		}
		seen[j] = true
	}
}

func verbList() string {
	s := make([]string, len(Verbs))
	for i, v := range Verbs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// validateFields checks the fields declared in a file (source) after
// merging, plus derivation references against all fields. decls maps
// error paths back to the file's fields list.
func validateFields(c *collector, fields []ConfigField, source string, decls []FieldDecl) {
	declIdx := map[string]int{}
	for i, d := range decls {
		declIdx[d.Name] = i
	}
	byName := map[string]*ConfigField{}
	for i := range fields {
		byName[fields[i].Name] = &fields[i]
	}
	for i := range fields {
		f := &fields[i]
		if f.Source != source {
			continue
		}
		p := fieldPath(declIdx[f.Name])
		if !reFieldName().MatchString(f.Name) {
			c.add(p+".name", "%q is not a snake_case field name", f.Name)
		}
		if !validTypes[f.Type] {
			c.add(p+".type", "%q is not a field type (string, int, float, bool, list, map, any)", f.Type)
			continue
		}
		if !validTiers[f.Tier] {
			c.add(p+".tier", "%q is not a tier (essential, system, derived)", f.Tier)
		}
		if f.Description == "" {
			c.add(p+".description", "is required")
		}
		switch f.Tier {
		case TierEssential:
			if f.Default != nil {
				c.add(p+".default", "an essential field has no default (make it system to give one)")
			}
			if f.Derivation != "" {
				c.add(p+".derive", "an essential field is not derived")
			}
		case TierDerived:
			if f.Derivation == "" {
				c.add(p+".derive", "a derived field needs a derive template")
			}
			if f.Default != nil {
				c.add(p+".default", "a derived field has no default; its derive template computes it")
			}
		case TierSystem:
			if f.Default != nil && f.Derivation != "" {
				c.add(p+".derive", "give a default or a derive template, not both")
			}
		}
		if (f.Min != nil || f.Max != nil) && f.Type != FieldInt && f.Type != FieldFloat {
			c.add(p+".min", "min/max apply to int and float fields only")
		}
		if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
			c.add(p+".max", "max %v is below min %v", *f.Max, *f.Min)
		}
		var re *regexp.Regexp
		if f.Pattern != "" {
			if f.Type != FieldString {
				c.add(p+".pattern", "pattern applies to string fields only")
			} else if r, err := CompilePattern(f.Pattern); err != nil {
				c.add(p+".pattern", "%v", err)
			} else {
				re = r
			}
		}
		for j, a := range f.Allowed {
			if msg := checkType(f.Type, a); msg != "" {
				c.add(fmt.Sprintf("%s.allowed[%d]", p, j), "%s", msg)
			}
		}
		if f.Default != nil {
			if msg := checkValue(f, re, f.Default); msg != "" {
				c.add(p+".default", "%s", msg)
			}
		}
		if f.Derivation != "" {
			refs, err := templateRefs(f.Derivation)
			if err != nil {
				c.add(p+".derive", "%v", err)
			}
			for _, r := range refs {
				if _, ok := byName[r]; !ok {
					c.add(p+".derive", "template reads unknown field %q", r)
				}
			}
		}
	}
	// Derivation cycles among all fields (only derived or dynamically
	// defaulted fields can be part of one).
	state := map[string]int{}
	var visit func(string) bool
	visit = func(n string) bool {
		switch state[n] {
		case 1:
			return false
		case 2:
			return true
		}
		state[n] = 1
		f := byName[n]
		if f != nil && f.Derivation != "" {
			refs, _ := templateRefs(f.Derivation)
			for _, r := range refs {
				if !visit(r) {
					if f.Source == source {
						c.add(fieldPath(declIdx[n])+".derive", "derive templates form a cycle through %q", r)
					}
					state[n] = 2
					return true
				}
			}
		}
		state[n] = 2
		return true
	}
	for _, f := range fields {
		if f.Derivation != "" {
			visit(f.Name)
		}
	}
}

// ReservedHyperparameterPrefix starts the hyperparameter names the compiler
// sets itself (sagemaker_program, sagemaker_submit_directory, ...); no
// hyperparameter field may start with it.
const ReservedHyperparameterPrefix = "sagemaker_"

// validateHyperparameters checks the fields marked hyperparameter: only a
// Training or Tuning step takes them (a field set that declares them is
// for those steps only), a derived field is not one, and no name starts
// with the compiler's prefix.
func validateHyperparameters(c *collector, st *Step, decls []FieldDecl) {
	declIdx := map[string]int{}
	for i, d := range decls {
		declIdx[d.Name] = i
	}
	takes := verbInfo(st.Verb).Training
	for _, f := range st.Fields {
		if !f.Hyperparameter {
			continue
		}
		where := "field_sets"
		if i, own := declIdx[f.Name]; own {
			where = fieldPath(i) + ".hyperparameter"
		}
		switch {
		case !takes && f.Source == "step":
			c.add(where, "field %s: only Training and Tuning steps take hyperparameters (this step's verb is %s)", f.Name, st.Verb)
		case !takes:
			c.add(where, "%s declares hyperparameter field %s, but only Training and Tuning steps take hyperparameters (this step's verb is %s)", f.Source, f.Name, st.Verb)
		case f.Tier == TierDerived:
			c.add(where, "field %s: a derived field is not a hyperparameter (give it a default instead)", f.Name)
		case strings.HasPrefix(f.Name, ReservedHyperparameterPrefix):
			c.add(where, "field %s: hyperparameters starting with %q are set by the compiler", f.Name, ReservedHyperparameterPrefix)
		}
	}
}

var compiledPatterns sync.Map // pattern -> *regexp.Regexp or error

// CompilePattern compiles a field's pattern (ConfigField.Pattern) once per
// process: the catalog's checks and the config schemas built from it share
// the compiled expression (every step repeats the base fields' patterns).
func CompilePattern(p string) (*regexp.Regexp, error) {
	if v, ok := compiledPatterns.Load(p); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		compiledPatterns.Store(p, err)
		return nil, err
	}
	compiledPatterns.Store(p, re)
	return re, nil
}

// checkType returns "" when v has type t.
func checkType(t FieldType, v any) string {
	switch t {
	case FieldString:
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("%v is not a string (quote it)", v)
		}
	case FieldInt:
		switch x := v.(type) {
		case int:
		case float64:
			if x != math.Trunc(x) {
				return fmt.Sprintf("%v is not an integer", v)
			}
		default:
			return fmt.Sprintf("%v is not an integer", v)
		}
	case FieldFloat:
		switch v.(type) {
		case int, float64:
		default:
			return fmt.Sprintf("%v is not a number", v)
		}
	case FieldBool:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("%v is not a boolean", v)
		}
	case FieldList:
		if _, ok := v.([]any); !ok {
			return fmt.Sprintf("%v is not a list", v)
		}
	case FieldMap:
		if _, ok := v.(map[string]any); !ok {
			return fmt.Sprintf("%v is not a mapping", v)
		}
	}
	return ""
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// checkValue checks a value against a field's type, allowed values,
// bounds and pattern; "" means valid.
func checkValue(f *ConfigField, re *regexp.Regexp, v any) string {
	if msg := checkType(f.Type, v); msg != "" {
		return msg
	}
	if len(f.Allowed) > 0 {
		ok := false
		for _, a := range f.Allowed {
			if equalValue(a, v) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Sprintf("%v is not one of the allowed values %v", v, f.Allowed)
		}
	}
	if n, ok := toFloat(v); ok {
		if f.Min != nil && n < *f.Min {
			return fmt.Sprintf("%v is below the minimum %v", v, *f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return fmt.Sprintf("%v is above the maximum %v", v, *f.Max)
		}
	}
	if s, ok := v.(string); ok && re != nil && !re.MatchString(s) {
		return fmt.Sprintf("%q does not match the pattern %s", s, f.Pattern)
	}
	return ""
}

func equalValue(a, b any) bool {
	if x, ok := toFloat(a); ok {
		y, ok := toFloat(b)
		return ok && x == y
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// CheckValue validates a config value for the field: type, allowed values,
// min/max and pattern. It returns "" when the value is acceptable, else a
// short reason. Numbers decoded from JSON (float64) are accepted for int
// fields when whole. A string, int or float field accepts a
// pipeline-parameter reference "{{Parameters.<name>}}" (ParameterRefPattern,
// FieldType.AcceptsParameterRef) without the type, allowed-values, range
// and pattern checks: the value is chosen when the pipeline runs, and the
// compiler checks the parameter is declared (and, for a number, that it is
// an Integer or Float parameter). (engine/config further refuses references
// in fields that name the step or feed a derived name; see
// ParameterRefBlockers.)
func (f *ConfigField) CheckValue(v any) string {
	if _, ok := ParameterRef(v); ok && f.Type.AcceptsParameterRef() {
		return ""
	}
	var re *regexp.Regexp
	if f.Pattern != "" {
		re, _ = CompilePattern(f.Pattern)
	}
	return checkValue(f, re, normalizeYAML(v))
}

// checkPortDecl checks what an input and an output declare alike, for port
// i of kind ("input" or "output"): a port name not used by an earlier port
// of that kind (seen maps names to indexes and gets this one), a dependency
// type, a data type and a description.
func checkPortDecl(c *collector, kind string, i int, seen map[string]int, name string, typ DependencyType, dataType, description string, scalars bool) {
	p := fmt.Sprintf("%ss[%d]", kind, i)
	if !rePortName().MatchString(name) {
		c.add(p+".name", "%q is not a port name (^[A-Za-z][A-Za-z0-9_]*$)", name)
	} else if j, dup := seen[name]; dup {
		c.add(p+".name", "%s %q is declared twice (also %ss[%d])", kind, name, kind, j)
	}
	seen[name] = i
	if !validDepTypes[typ] {
		c.add(p+".type", "%q is not a dependency type (%s)", typ, depTypeList())
	}
	switch {
	case scalars && !reDataType[dataType] && !scalarDataTypes[dataType]:
		c.add(p+".data_type", "%q is not S3Uri, String, Integer, Boolean or Float", dataType)
	case !scalars && !reDataType[dataType]:
		c.add(p+".data_type", "%q is not S3Uri or String", dataType)
	}
	if strings.TrimSpace(description) == "" {
		c.add(p+".description", "is required")
	}
}

// checkOwnDir checks that the container path of a processing job's port i
// of kind ("input" or "output") neither equals, contains nor lies inside
// the path of an earlier port of that kind (paths, which gets this one):
// each port needs its own directory.
func checkOwnDir(c *collector, kind string, i int, path string, paths map[string]int) {
	for q, j := range paths {
		if q == path || underRoot(q, path) || underRoot(path, q) {
			c.add(fmt.Sprintf("%ss[%d].path", kind, i), "%s overlaps %ss[%d].path %s; each %s needs its own directory", path, kind, j, q, kind)
		}
	}
	paths[path] = i
}

// validatePorts checks inputs and outputs against the verb's rules.
func validatePorts(c *collector, st *Step) {
	vi := verbInfo(st.Verb)
	inRoots, outRoots, training := vi.InputRoots, vi.OutputRoots, vi.Training
	names := map[string]int{}
	paths := map[string]int{}
	channels := map[string]string{}
	for i := range st.Inputs {
		in := &st.Inputs[i]
		p := fmt.Sprintf("inputs[%d]", i)
		checkPortDecl(c, "input", i, names, in.LogicalName, in.Type, in.DataType, in.Description, false)
		switch {
		case inRoots == nil:
			if in.ContainerPath != "" {
				c.add(p+".path", "must be empty: a %s step has no container to mount inputs in", st.Verb)
			}
		case in.ContainerPath == "":
			c.add(p+".path", "is required for a %s step (under %s)", st.Verb, joinOr(inRoots))
		case !underAny(in.ContainerPath, inRoots) || (st.Verb == VerbProcessing && in.ContainerPath == processingInputRoot):
			if st.Verb == VerbProcessing {
				c.add(p+".path", "must start with %s/ for a Processing step", processingInputRoot)
			} else if in.Type == DepTrainingData || len(in.Channels) > 0 {
				c.add(p+".path", "must start with %s for a %s step", trainingDataRoot, st.Verb)
			} else {
				c.add(p+".path", "must start with %s for a %s step", joinOr(inRoots), st.Verb)
			}
		case len(in.Channels) > 0 && in.ContainerPath != trainingDataRoot && training:
			c.add(p+".path", "must be %s for an input with channels (each channel lands in %s/<channel>)", trainingDataRoot, trainingDataRoot)
		case st.Verb == VerbProcessing && underRoot(in.ContainerPath, processingCodeDir):
			c.add(p+".path", "%s is reserved for the step's script", processingCodeDir)
		case st.Verb == VerbProcessing:
			checkOwnDir(c, "input", i, in.ContainerPath, paths)
		}
		if len(in.Channels) > 0 && !training {
			c.add(p+".channels", "channels apply to Training and Tuning inputs only")
		}
		if training {
			for _, ch := range in.TrainingChannels() {
				if !reChannel().MatchString(ch) {
					c.add(p+".channels", "%q is not a SageMaker channel name", ch)
				}
				if other, dup := channels[ch]; dup {
					c.add(p+".channels", "channel %q is also fed by input %q", ch, other)
				}
				channels[ch] = in.LogicalName
			}
		}
		for j, s := range in.CompatibleSources {
			if !reStepName().MatchString(s) {
				c.add(fmt.Sprintf("%s.compatible_sources[%d]", p, j), "%q is not a step name", s)
			}
		}
		seenOut := map[DependencyType]bool{}
		for j, t := range in.CompatibleOutputTypes {
			at := fmt.Sprintf("%s.compatible_output_types[%d]", p, j)
			switch {
			case !validDepTypes[t]:
				c.add(at, "%q is not a dependency type (one of %s)", t, depTypeList())
			case t == in.Type:
				c.add(at, "%q is the input's own type, which it accepts anyway", t)
			case seenOut[t]:
				c.add(at, "%q is listed twice", t)
			}
			seenOut[t] = true
		}
		if in.ConfigSource != "" {
			if _, ok := fieldByName(st.Fields, in.ConfigSource); !ok {
				c.add(p+".config_source", "names unknown config field %q", in.ConfigSource)
			}
		}
		if st.Kind == NodeSource && in.ConfigSource == "" {
			c.add(p, "a source step takes no inputs from other steps; give the input a config_source or make the step internal")
		}
	}
	outNames := map[string]int{}
	outPaths := map[string]int{}
	for i := range st.Outputs {
		out := &st.Outputs[i]
		p := fmt.Sprintf("outputs[%d]", i)
		checkPortDecl(c, "output", i, outNames, out.LogicalName, out.Type, out.DataType, out.Description, verbInfo(st.Verb).OutputParameters)
		switch {
		case outRoots == nil:
			if out.ContainerPath != "" {
				c.add(p+".path", "must be empty: a %s step has no container", st.Verb)
			}
		case out.ContainerPath == "" && (st.Verb == VerbProcessing || out.Type != DepCustomProperty):
			c.add(p+".path", "is required for a %s step (under %s)", st.Verb, joinOr(outRoots))
		case out.ContainerPath == "":
			// a job property (custom_property) of a Training/Tuning step: no container file
		case !underAny(out.ContainerPath, outRoots):
			c.add(p+".path", "must start with %s for a %s step", joinOr(outRoots), st.Verb)
		case st.Verb == VerbProcessing:
			checkOwnDir(c, "output", i, out.ContainerPath, outPaths)
		}
		switch {
		case out.PropertyPath == "":
			c.add(p+".property_path", "is required")
		case !rePropPath().MatchString(out.PropertyPath):
			c.add(p+".property_path", "%q is not a property path (properties.<Field>[.<Field>|['key']|[n]]...)", out.PropertyPath)
		case st.Verb == VerbProcessing:
			if want := ProcessingPropertyPath(out.LogicalName); out.PropertyPath != want {
				c.add(p+".property_path", "must be %s for a Processing output named %q", want, out.LogicalName)
			}
		default:
			root := strings.SplitN(strings.TrimPrefix(out.PropertyPath, "properties."), ".", 2)[0]
			if i := strings.IndexByte(root, '['); i >= 0 {
				root = root[:i]
			}
			if !contains(vi.PropertyRoots, root) {
				c.add(p+".property_path", "%q is not a property of a %s step (one of %s)", root, st.Verb, strings.Join(vi.PropertyRoots, ", "))
			}
		}
		switch rf := out.ReportFile; {
		case rf == "":
		case st.Verb != VerbProcessing:
			c.add(p+".report_file", "only a Processing output may hold a report (property files are declared on Processing steps)")
		case strings.HasPrefix(rf, "/") || strings.Contains("/"+rf+"/", "/../") || !strings.HasSuffix(rf, ".json"):
			c.add(p+".report_file", "%q must be a .json file path relative to the output", rf)
		}
		for j, seg := range out.URIJoin {
			if strings.TrimSpace(seg) == "" || strings.Contains(seg, "/") {
				c.add(fmt.Sprintf("%s.uri_join[%d]", p, j), "must be one non-empty path segment")
			}
		}
	}
	for i := range st.Outputs {
		for j, a := range st.Outputs[i].Aliases {
			if k, ok := outNames[a]; ok && k != i {
				c.add(fmt.Sprintf("outputs[%d].aliases[%d]", i, j), "%q is the name of outputs[%d]; an alias may not shadow another output", a, k)
			}
		}
	}
	if st.Kind == NodeSink && len(st.Outputs) > 0 {
		c.add("outputs", "a sink step has no outputs")
	}
	if st.Kind == NodeSink && len(st.Inputs) == 0 {
		c.add("inputs", "a sink step needs at least one input")
	}
	if st.Kind != NodeSink && len(st.Outputs) == 0 {
		c.add("outputs", "a %s step needs at least one output (or make it a sink)", st.Kind)
	}
	if training && len(channels) == 0 && len(st.Inputs) > 0 {
		c.add("inputs", "a %s step needs at least one input that becomes a training channel", st.Verb)
	}
}

func depTypeList() string {
	s := make([]string, len(DependencyTypes))
	for i, d := range DependencyTypes {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

func fieldByName(fields []ConfigField, name string) (*ConfigField, bool) {
	for i := range fields {
		if fields[i].Name == name {
			return &fields[i], true
		}
	}
	return nil, false
}

// validateCompute checks the compute block after defaults.
func validateCompute(c *collector, st *Step) {
	cp := st.Compute
	vi := verbInfo(st.Verb)
	kinds := vi.ComputeKinds
	if cp.Kind == "" {
		c.add("compute.kind", "is required (%s for a %s step)", joinOr(kinds), st.Verb)
	} else if kinds != nil && !contains(kinds, cp.Kind) {
		c.add("compute.kind", "%q is not a compute kind for a %s step (%s)", cp.Kind, st.Verb, joinOr(kinds))
	}
	switch {
	case cp.Kind == "byo_container" && len(cp.ContainerEntrypoint) == 0:
		c.add("compute.container_entrypoint", "is required for kind byo_container (the command the image runs, e.g. [bash, %s/entrypoint.sh])", processingCodeDir)
	case cp.Kind != "byo_container" && len(cp.ContainerEntrypoint) > 0:
		c.add("compute.container_entrypoint", "applies to kind byo_container only (the other kinds run python3 <entry point>)")
	}
	for i, a := range cp.ContainerEntrypoint {
		if strings.TrimSpace(a) == "" {
			c.add(fmt.Sprintf("compute.container_entrypoint[%d]", i), "is empty")
		}
	}
	if classes, needs := sdkClasses[cp.Kind]; needs {
		if cp.SDKClass == "" {
			c.add("compute.sdk_class", "is required for kind %s (%s)", cp.Kind, joinOr(classes))
		} else if !contains(classes, cp.SDKClass) {
			c.add("compute.sdk_class", "%q is not one of %s", cp.SDKClass, joinOr(classes))
		}
	} else if cp.SDKClass != "" && cp.Kind != "" {
		c.add("compute.sdk_class", "applies to kinds framework, estimator, tuner and model only")
	}
	if cp.Framework == "" && cp.FrameworkField == "" {
		c.add("compute.framework", "is required (sklearn, xgboost, pytorch or none)")
	} else if cp.Framework != "" && !imageFrameworks[cp.Framework] {
		c.add("compute.framework", "%q is not an image framework (sklearn, xgboost, pytorch or none)", cp.Framework)
	}
	if cp.ImageScope != "" && cp.ImageScope != "training" && cp.ImageScope != "inference" {
		c.add("compute.image_scope", "%q is not training or inference", cp.ImageScope)
	}
	refs := []struct{ path, name string }{
		{"compute.framework_field", cp.FrameworkField},
		{"compute.framework_version_field", cp.FrameworkVersionField},
		{"compute.py_version_field", cp.PyVersionField},
		{"compute.image_uri_field", cp.ImageURIField},
		{"compute.instance_type_field", cp.InstanceTypeField},
		{"compute.large_instance_type_field", cp.LargeInstanceTypeField},
		{"compute.small_instance_type_field", cp.SmallInstanceTypeField},
		{"compute.use_large_instance_field", cp.UseLargeInstanceField},
		{"compute.instance_count_field", cp.InstanceCountField},
		{"compute.volume_size_field", cp.VolumeSizeField},
		{"compute.max_runtime_field", cp.MaxRuntimeField},
	}
	for _, r := range refs {
		if r.name == "" {
			continue
		}
		if _, ok := fieldByName(st.Fields, r.name); !ok {
			c.add(r.path, "names unknown config field %q", r.name)
		}
	}
	if cp.Framework != "none" && cp.Framework != "" && cp.FrameworkVersionField == "" && cp.FrameworkVersionDefault == "" {
		c.add("compute.framework_version_field", "is required for framework %s (name the config field holding the version)", cp.Framework)
	}
	trio := cp.LargeInstanceTypeField != "" && cp.SmallInstanceTypeField != "" && cp.UseLargeInstanceField != ""
	switch {
	case vi.NeedsInstanceType && cp.InstanceTypeField == "" && !trio && vi.NeedsInstanceCount && cp.InstanceCountField == "":
		c.add("compute.instance_type_field", "a %s step needs instance_type_field (or the large/small/use_large trio) and instance_count_field", st.Verb)
	case vi.NeedsInstanceType && cp.InstanceTypeField == "" && !trio:
		c.add("compute.instance_type_field", "a %s step needs instance_type_field or the large/small/use_large trio (the image depends on it)", st.Verb)
	case vi.NeedsInstanceCount && cp.InstanceCountField == "":
		c.add("compute.instance_count_field", "a %s step needs instance_count_field", st.Verb)
	}
	if vi.NeedsVolumeSize && cp.VolumeSizeField == "" {
		c.add("compute.volume_size_field", "a %s step needs volume_size_field (its default field set has it)", st.Verb)
	}
}

// validateContract checks entry point, env vars and job arguments.
func validateContract(c *collector, st *Step) {
	ct := &st.Contract
	script := verbInfo(st.Verb).Script
	switch {
	case ct.EntryPoint == "" && script == ScriptRequired:
		c.add("contract.entry_point", "is required for a %s step", st.Verb)
	case ct.EntryPoint != "" && !reScript().MatchString(ct.EntryPoint):
		c.add("contract.entry_point", "%q must be a relative .py file name", ct.EntryPoint)
	case ct.EntryPoint != "" && script == ScriptNone:
		c.add("contract.entry_point", "a %s step runs no script of its own", st.Verb)
	}
	if ct.EntryPoint != "" {
		if ct.EntryPointField == "" {
			c.add("contract.entry_point_field", "is required (the config field that holds the entry point)")
		} else if f, ok := fieldByName(st.Fields, ct.EntryPointField); !ok {
			c.add("contract.entry_point_field", "names unknown config field %q", ct.EntryPointField)
		} else if f.Default != nil && f.Default != ct.EntryPoint {
			c.add("contract.entry_point", "is %q but config field %s defaults to %v; they must agree", ct.EntryPoint, f.Name, f.Default)
		}
	}
	if f := ct.RequirementsFile; f != "" {
		if !fs.ValidPath(f) || path.Ext(f) != ".txt" {
			c.add("contract.requirements_file", "%q must be a relative slash-separated path of a .txt file in the code root (requirements/lightgbm.txt)", f)
		}
	}
	if ct.SourceDirField != "" {
		if _, ok := fieldByName(st.Fields, ct.SourceDirField); !ok {
			c.add("contract.source_dir_field", "names unknown config field %q", ct.SourceDirField)
		}
	}
	seen := map[string]int{}
	for i, e := range ct.Env {
		p := fmt.Sprintf("contract.env[%d]", i)
		if !reEnvName().MatchString(e.Name) {
			c.add(p+".name", "%q is not an environment variable name (^[A-Z_][A-Z0-9_]*$)", e.Name)
		}
		if j, dup := seen[e.Name]; dup {
			c.add(p+".name", "%s is declared twice (also contract.env[%d])", e.Name, j)
		}
		seen[e.Name] = i
		if len(e.Default) > 256 {
			c.add(p+".default", "is longer than 256 characters (the SageMaker limit for an environment value)")
		}
		if e.Required && e.Default != "" {
			c.add(p+".default", "a required variable has no default; its value comes from field %q", e.Field)
		}
		switch {
		case e.Field == "" && e.Required:
			c.add(p+".field", "required variable %s has no config field: add field %q to the step or name one with field:", e.Name, strings.ToLower(e.Name))
		case e.Field != "":
			if f, ok := fieldByName(st.Fields, e.Field); !ok {
				c.add(p+".field", "names unknown config field %q", e.Field)
			} else if !e.Required && f.Default != nil && e.Default != EnvValue(f.Default) {
				c.add(p+".default", "%q disagrees with the default %v of field %s; drop one of them", e.Default, f.Default, f.Name)
			} else if e.Required && f.Tier == TierSystem && f.Default == nil && f.Derivation == "" {
				c.add(p+".field", "required variable %s reads field %q, which may be unset (make it essential or give it a default)", e.Name, e.Field)
			}
		}
	}
	for i, a := range ct.JobArguments {
		p := fmt.Sprintf("contract.job_arguments[%d]", i)
		if !strings.HasPrefix(a.Flag, "--") || len(a.Flag) < 3 {
			c.add(p+".flag", "%q must look like --name", a.Flag)
		}
		if a.Source == "" {
			c.add(p+".source", "is required (a config field name)")
		} else if _, ok := fieldByName(st.Fields, a.Source); !ok {
			c.add(p+".source", "names unknown config field %q", a.Source)
		}
	}
	if verbInfo(st.Verb).Training && len(ct.JobArguments) > 0 {
		c.add("contract.job_arguments", "a %s step passes no command-line arguments (use hyperparameters or env)", st.Verb)
	}
}

// validatePatterns checks the patterns block.
func validatePatterns(c *collector, st *Step) {
	p := st.Patterns
	if p.StepAssembly != "" {
		if st.Verb != VerbProcessing {
			c.add("patterns.step_assembly", "applies to Processing steps only")
		} else if p.StepAssembly != "code" && p.StepAssembly != "step_args" {
			c.add("patterns.step_assembly", "%q is not code or step_args", p.StepAssembly)
		}
	}
	if st.Contract.SourceDir && st.Verb == VerbProcessing && p.StepAssembly != "step_args" {
		c.add("contract.source_dir", "uploading the source directory needs patterns.step_assembly: step_args")
	}
	for i, k := range p.DirectInputKeys {
		if !hasInput(st, k) {
			c.add(fmt.Sprintf("patterns.direct_input_keys[%d]", i), "%q is not an input of the step", k)
		}
	}
	if p.OutputPathToken != "" && !reToken().MatchString(p.OutputPathToken) {
		c.add("patterns.output_path_token", "%q must be one path segment", p.OutputPathToken)
	}
	if p.NameSuffixField != "" {
		if _, ok := fieldByName(st.Fields, p.NameSuffixField); !ok {
			c.add("patterns.name_suffix_field", "names unknown config field %q", p.NameSuffixField)
		}
	}
}

func hasInput(st *Step, name string) bool {
	for _, in := range st.Inputs {
		if in.LogicalName == name {
			return true
		}
	}
	return false
}

func hasOutput(st *Step, name string) bool {
	for _, o := range st.Outputs {
		if o.LogicalName == name {
			return true
		}
	}
	return false
}

// crossCheck validates what needs the whole catalog: compatible sources
// name real steps or generic tokens; aliases do not clash. only selects the
// steps to check (all for the embedded catalog, the workspace steps for an
// extended one).
func (cat *Catalog) crossCheck(only func(*Step) bool) LoadErrors {
	var errs LoadErrors
	aliasOwner := map[string]StepType{}
	for _, s := range cat.sorted {
		for _, a := range s.Aliases {
			aliasOwner[a] = s.Type
		}
	}
	for _, s := range cat.sorted {
		if !only(s) {
			continue
		}
		c := &collector{file: fileLabel(s)}
		for i, a := range s.Aliases {
			if _, clash := cat.steps[StepType(a)]; clash {
				c.add(fmt.Sprintf("aliases[%d]", i), "%q is the name of another step", a)
			} else if o := aliasOwner[a]; o != s.Type {
				c.add(fmt.Sprintf("aliases[%d]", i), "%q is also an alias of %s", a, o)
			}
		}
		check := func(p, src string) {
			if _, ok := cat.steps[StepType(src)]; ok {
				return
			}
			if _, ok := GenericSources[src]; ok {
				return
			}
			msg := fmt.Sprintf("%q is neither a step in the catalog nor a generic source (%s)", src, strings.Join(GenericSourceNames(), ", "))
			if k, ok := cat.byKey[CanonicalKey(src)]; ok {
				msg += fmt.Sprintf("; did you mean %s?", k)
			} else if near := cat.Closest(src, 1); len(near) > 0 {
				msg += fmt.Sprintf("; did you mean %s?", near[0])
			}
			c.add(p, "%s", msg)
		}
		for i, in := range s.Inputs {
			for j, src := range in.CompatibleSources {
				check(fmt.Sprintf("inputs[%d].compatible_sources[%d]", i, j), src)
			}
		}
		for _, jt := range mapkeys.Sorted(s.Variants) {
			v := s.Variants[jt]
			for _, name := range mapkeys.Sorted(v.Inputs) {
				for j, src := range v.Inputs[name].CompatibleSources {
					check(fmt.Sprintf("variants.%s.inputs.%s.compatible_sources[%d]", jt, name, j), src)
				}
			}
		}
		errs = append(errs, c.errs...)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].File < errs[j].File })
	return errs
}

// fileLabel is the file name used in messages about a loaded step.
func fileLabel(s *Step) string {
	return strings.TrimPrefix(s.Source, "embedded:")
}

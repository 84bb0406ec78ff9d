package compiler

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

//go:generate go run ./internal/sdkshape/gen -o sdk_properties.json

// sdkPropertiesJSON is the table of the property paths each step Type exposes, generated from the
// aws-sdk-go-v2 SageMaker output types (internal/sdkshape; a test checks it is current).
//
//go:embed sdk_properties.json
var sdkPropertiesJSON []byte

// stepShape is one step Type's properties: the SDK output types and every path, lists marked
// "[]" and maps "{}".
type stepShape struct {
	From  []string `json:"from"`
	Paths []string `json:"paths"`
	set   map[string]bool
}

var stepShapes = sync.OnceValues(func() (map[string]*stepShape, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(sdkPropertiesJSON, &raw); err != nil {
		return nil, fmt.Errorf("sdk_properties.json: %w", err)
	}
	out := map[string]*stepShape{}
	for typ, msg := range raw {
		if strings.HasPrefix(typ, "_") {
			continue
		}
		sh := &stepShape{}
		if err := json.Unmarshal(msg, sh); err != nil {
			return nil, fmt.Errorf("sdk_properties.json: %s: %w", typ, err)
		}
		if len(sh.From) == 0 {
			return nil, fmt.Errorf("sdk_properties.json: %s says not where its paths come from", typ)
		}
		sh.set = make(map[string]bool, len(sh.Paths))
		for _, p := range sh.Paths {
			sh.set[p] = true
		}
		out[typ] = sh
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sdk_properties.json: no step types")
	}
	return out, nil
})

// ExecutionVariables are the names a {"Get": "Execution.<name>"} may use.
var ExecutionVariables = []string{"CurrentDateTime", "PipelineArn", "PipelineExecutionArn", "PipelineExecutionId",
	"PipelineName", "ProcessingJobName", "StartDateTime", "TrainingJobName"}

// ReferenceProblem is one reference in a definition that cannot resolve when SageMaker runs it, or
// a value a field cannot take.
type ReferenceProblem struct {
	Kind      string `json:"kind"`      // one of the Ref* kinds
	Step      string `json:"step"`      // the step holding the reference
	Field     string `json:"field"`     // where in the step, e.g. Arguments.ProcessingInputs[0].S3Input.S3Uri
	Reference string `json:"reference"` // the Get path, or the value at fault
	Reason    string `json:"reason"`
}

// The kinds of ReferenceProblem.
const (
	RefNoStep              = "no_step"               // Steps.<S>: no step S
	RefLaterStep           = "later_step"            // Steps.<S>: S does not come before the referring step
	RefOwnStep             = "own_step"              // Steps.<S>: S is the referring step
	RefNoProperty          = "no_property"           // the path is no property of S's type
	RefNoOutput            = "no_output"             // Outputs['<name>'] or [<n>]: S declares no such output
	RefNoParameter         = "no_parameter"          // Parameters.<X>: X is not declared
	RefNoExecutionVariable = "no_execution_variable" // Execution.<X>: X is no execution variable
	RefPropertyFile        = "property_file"         // a property file read without Std:JsonGet, or not declared
	RefMalformed           = "malformed"             // not a Get form at all, or a path that does not parse
	RefPrefix              = "prefix"                // a prefix where one S3 object is needed
)

// String is "<step> <field>: <reason>".
func (p ReferenceProblem) String() string { return p.Step + " " + p.Field + ": " + p.Reason }

// refStep is one step of the definition in the order SageMaker may run them.
type refStep struct {
	name, typ string
	raw       jv
}

// CheckReferences checks every reference in a compiled definition and returns each problem:
//
//   - {"Get": "Steps.<S>.<path>"} names a step S that comes before the referring step (a step can
//     only use the properties of a step before it; its own are not set yet), and <path> is a
//     property of S's type: a field of the Describe response the SDK's output types give for it
//     (the generated sdk_properties.json), list and map entries written [<n>] or ['<key>'];
//   - ProcessingOutputConfig.Outputs['<name>'] names an output S declares;
//   - {"Get": "Parameters.<X>"} names a declared parameter, {"Get": "Execution.<X>"} an execution
//     variable;
//   - Steps.<S>.PropertyFiles.<F> is read only through Std:JsonGet's PropertyFile and names a
//     property file S declares (PropertyFiles[].PropertyFileName); a step's PropertyFiles are a
//     Processing step's, each naming an output the step declares, a relative file path and a
//     name of its own;
//   - a field that needs one S3 object (a model's ModelDataUrl, a SamplePayloadUrl, a sourcedir.tar.gz) is not given
//     a prefix: a literal ending in "/", a parameter defaulting to one, a Std:Join ending in one,
//     or a property that is a job's output location.
//
// Steps nested in a Condition's IfSteps and ElseSteps follow the condition in the order. A
// Condition step's property is its Outcome; a Fail step has none (the kind table's Properties).
// Step types the table does not list (Lambda, EMR, ...) have their paths left unchecked.
func CheckReferences(def *Definition) ([]ReferenceProblem, error) {
	enc := encodeDefinition(def)
	if enc.err != nil {
		return nil, enc.err
	}
	return checkReferencesDoc(enc.root())
}

// CheckReferencesJSON is CheckReferences on a definition in its JSON form (as compiled, or as
// read from a file); only JSON that is not an object is an error.
func CheckReferencesJSON(definition []byte) ([]ReferenceProblem, error) {
	var doc map[string]any
	if !json.Valid(definition) {
		err := json.Unmarshal(definition, &doc)
		return nil, fmt.Errorf("the definition is not a JSON object: %w", err)
	}
	d, err := parseJSONDoc(string(definition))
	if err != nil {
		return nil, fmt.Errorf("the definition is not a JSON object: %w", err)
	}
	d.repeatedKeys = true
	root := jv{d, 0}
	switch root.kind() {
	case docNull:
		return nil, nil // decodes to no definition, hence no problem
	case docObject:
	default:
		err := json.Unmarshal(definition, &doc)
		return nil, fmt.Errorf("the definition is not a JSON object: %w", err)
	}
	return checkReferencesDoc(root)
}

// checkReferencesDoc is CheckReferences on an encoded definition (the
// compile's, or a file's). Members are visited in document order; each
// step's problems are then put in key order, the order of a walk over the
// decoded definition's sorted keys.
func checkReferencesDoc(doc jv) ([]ReferenceProblem, error) {
	shapes, err := stepShapes()
	if err != nil {
		return nil, err
	}
	c := &refChecker{shapes: shapes, params: map[string]jv{}, index: map[string]int{}, path: newPath()}
	params, _ := doc.get("Parameters")
	params.elems(func(_ int, m jv) {
		if m.isObject() {
			if name := m.getString("Name"); name != "" {
				c.params[name], _ = m.get("DefaultValue")
			}
		}
	})
	steps, _ := doc.get("Steps")
	c.flatten(steps)
	for i, st := range c.steps {
		c.cur = i
		c.objectFields = nil
		if k := kindOfType(st.typ); k != nil {
			c.objectFields = k.objectFields
		}
		c.checkPropertyFiles(st)
		from := len(c.problems)
		c.paths = c.paths[:0]
		st.raw.members(func(key string, v jv) {
			switch key {
			case "Name", "Type", "DependsOn", "DisplayName", "Description":
				return
			}
			c.walk(v, refField{top: key, path: c.path[:0]})
		})
		if walked := c.problems[from:]; len(walked) > 1 {
			order := make([]int, len(walked))
			for k := range order {
				order[k] = k
			}
			slices.SortStableFunc(order, func(a, b int) int { return comparePaths(c.paths[a], c.paths[b]) })
			sorted := make([]ReferenceProblem, len(walked))
			for k, o := range order {
				sorted[k] = walked[o]
			}
			copy(walked, sorted)
		}
	}
	return c.problems, nil
}

type refChecker struct {
	shapes   map[string]*stepShape
	params   map[string]jv
	steps    []refStep
	index    map[string]int
	cur      int
	problems []ReferenceProblem
	paths    []jsonPath // where each problem of the current step's walk is: its order
	path     jsonPath   // the walk's path (its room reused)
	// objectFields are the fields of the current step's Type that need one
	// S3 object (its kind's objectFields)
	objectFields []string
}

// refField is where a reference is in its step: a top-level key, the path
// below it and a suffix, rendered only when a problem names it.
type refField struct {
	top    string
	path   jsonPath
	suffix string
}

func (f refField) String() string { return f.path.render(f.top) + f.suffix }

// sortKey is the field's path from its step, top-level key first.
func (f refField) sortKey() jsonPath {
	return append(jsonPath{{key: f.top, index: -1}}, f.path...)
}

func (f refField) key(k string) refField { return refField{top: f.top, path: f.path.key(k)} }
func (f refField) at(i int) refField     { return refField{top: f.top, path: f.path.at(i)} }

// flatten lists the steps in order, a Condition's branches after it.
func (c *refChecker) flatten(steps jv) {
	steps.elems(func(_ int, m jv) {
		if !m.isObject() {
			return
		}
		name, typ := m.getString("Name"), m.getString("Type")
		if _, dup := c.index[name]; !dup {
			c.index[name] = len(c.steps)
		}
		c.steps = append(c.steps, refStep{name: name, typ: typ, raw: m})
		if typ == "Condition" {
			args, _ := m.get("Arguments")
			ifSteps, _ := args.get("IfSteps")
			c.flatten(ifSteps)
			elseSteps, _ := args.get("ElseSteps")
			c.flatten(elseSteps)
		}
	})
}

func (c *refChecker) add(kind string, field refField, ref, format string, a ...any) {
	c.problems = append(c.problems, ReferenceProblem{Kind: kind, Step: c.steps[c.cur].name, Field: field.String(), Reference: ref, Reason: fmt.Sprintf(format, a...)})
	c.paths = append(c.paths, field.sortKey())
}

// walk checks every expression under v, at field (the JSON path inside the step).
func (c *refChecker) walk(v jv, field refField) {
	st := c.steps[c.cur]
	if c.needsObject(field) {
		c.checkObject(v, field)
	}
	switch v.kind() {
	case docArray:
		it := v.iter()
		for i := 0; ; i++ {
			e, ok := it.nextElem()
			if !ok {
				break
			}
			c.walk(e, field.at(i))
		}
	case docObject:
		if v.numMembers() == 1 { // a Get and a Std:JsonGet are objects of one member
			if g, ok := v.getStr("Get"); ok {
				c.checkGet(g, field, false)
				return
			}
			if jg, ok := v.get("Std:JsonGet"); ok && jg.isObject() {
				if pf, ok := jg.get("PropertyFile"); ok && pf.isObject() {
					if g, ok := pf.getStr("Get"); ok {
						f := field
						f.suffix = ".Std:JsonGet.PropertyFile"
						c.checkGet(g, f, true)
					}
				}
				if u, ok := jg.get("S3Uri"); ok {
					c.walk(u, field.key("Std:JsonGet").key("S3Uri"))
				}
				return
			}
		}
		condArgs := st.typ == "Condition" && field.top == "Arguments" && len(field.path) == 0
		it := v.iter()
		for {
			k, m, ok := it.nextMember()
			if !ok {
				break
			}
			if condArgs && (k == "IfSteps" || k == "ElseSteps") {
				continue // the branch steps are checked as steps of their own
			}
			c.walk(m, field.key(k))
		}
	}
}

// needsObject reports whether field of the current step takes one S3 object.
func (c *refChecker) needsObject(field refField) bool {
	if len(c.objectFields) == 0 {
		return false
	}
	// The field matches a pattern only if it ends in the pattern's last
	// name (patterns end in a name; an index renders as "[n]"): test that
	// before rendering the field.
	last := field.top
	if n := len(field.path); n > 0 {
		if field.path[n-1].index >= 0 {
			return false
		}
		last = field.path[n-1].key
	}
	var norm string
	for _, p := range c.objectFields {
		if !strings.HasSuffix(last, p[strings.LastIndexAny(p, ".]")+1:]) {
			continue
		}
		if norm == "" {
			norm = normalizeIndices(field.String())
		}
		if p == norm {
			return true
		}
	}
	return false
}

// normalizeIndices writes every [<n>] of a field path as [].
func normalizeIndices(field string) string {
	var b strings.Builder
	for i := 0; i < len(field); i++ {
		if field[i] == '[' {
			if j := strings.IndexByte(field[i:], ']'); j > 0 {
				b.WriteString("[]")
				i += j
				continue
			}
		}
		b.WriteByte(field[i])
	}
	return b.String()
}

// checkObject reports a prefix given where one object is needed.
func (c *refChecker) checkObject(v jv, field refField) {
	const need = "needs one S3 object (a .tar.gz), not a prefix"
	if x, ok := v.str(); ok {
		s := x
		if u, err := strconv.Unquote(x); err == nil && strings.HasPrefix(x, `"`) {
			s = u // hyperparameters carry JSON-quoted strings
		}
		if strings.HasSuffix(s, "/") {
			c.add(RefPrefix, field, x, "%s: %s ends in /", need, s)
		}
		return
	}
	if !v.isObject() {
		return
	}
	if g, ok := v.getStr("Get"); ok {
		if name, ok := strings.CutPrefix(g, "Parameters."); ok {
			if d, _ := c.params[name].str(); strings.HasSuffix(d, "/") {
				c.add(RefPrefix, field, g, "%s: parameter %s defaults to the prefix %s", need, name, d)
			}
			return
		}
		if step, path, ok := splitStepRef(g); ok {
			if i, found := c.index[step]; found {
				typ := c.steps[i].typ
				for _, p := range prefixPropertiesOf(typ) {
					if pathMatches(path, p) {
						c.add(RefPrefix, field, g, "%s: %s is where %s step %s writes its output, a prefix", need, path, typ, step)
					}
				}
			}
		}
		return
	}
	if j, ok := v.get("Std:Join"); ok && j.isObject() {
		vals, _ := j.get("Values")
		if lv, ok := vals.last(); ok {
			if last, ok := lv.str(); ok && strings.HasSuffix(last, "/") {
				c.add(RefPrefix, field, last, "%s: the Std:Join ends in %q", need, last)
			}
		}
	}
}

// splitStepRef splits "Steps.<name>.<path>".
func splitStepRef(g string) (step, path string, ok bool) {
	rest, ok := strings.CutPrefix(g, "Steps.")
	if !ok {
		return "", "", false
	}
	step, path, ok = strings.Cut(rest, ".")
	return step, path, ok && step != "" && path != ""
}

// checkGet checks one Get path; inPropertyFile says it is Std:JsonGet's PropertyFile.
func (c *refChecker) checkGet(g string, field refField, inPropertyFile bool) {
	switch {
	case strings.HasPrefix(g, "Parameters."):
		name := strings.TrimPrefix(g, "Parameters.")
		if _, ok := c.params[name]; !ok {
			c.add(RefNoParameter, field, g, "parameter %s is not declared (the definition declares %s)", name, strings.Join(mapkeys.Sorted(c.params), ", "))
		}
		if inPropertyFile {
			c.add(RefPropertyFile, field, g, "Std:JsonGet's PropertyFile is Steps.<step>.PropertyFiles.<name>, not a parameter")
		}
		return
	case strings.HasPrefix(g, "Execution."):
		if name := strings.TrimPrefix(g, "Execution."); !slices.Contains(ExecutionVariables, name) {
			c.add(RefNoExecutionVariable, field, g, "%s is not an execution variable (they are %s)", name, strings.Join(ExecutionVariables, ", "))
		}
		return
	}
	step, path, ok := splitStepRef(g)
	if !ok {
		c.add(RefMalformed, field, g, "a Get names Parameters.<name>, Execution.<variable> or Steps.<step>.<property>")
		return
	}
	i, found := c.index[step]
	switch {
	case !found:
		c.add(RefNoStep, field, g, "names no step %s: the definition has no step of that name", step)
		return
	case i == c.cur:
		c.add(RefOwnStep, field, g, "refers to its own step: a step's properties are set only when it has run")
		return
	case i > c.cur:
		c.add(RefLaterStep, field, g, "names step %s, which does not come before it: a step can use only the properties of a step that ran before it", step)
		return
	}
	prod := c.steps[i]
	if name, ok := strings.CutPrefix(path, "PropertyFiles."); ok {
		if !inPropertyFile {
			c.add(RefPropertyFile, field, g, "a property file is read with Std:JsonGet (its PropertyFile), not with Get")
			return
		}
		declared := propertyFileNames(prod.raw)
		if !slices.Contains(declared, name) {
			c.add(RefPropertyFile, field, g, "step %s declares no property file %s (it declares %s)", step, name, listOrNone(declared))
		}
		return
	}
	if inPropertyFile {
		c.add(RefPropertyFile, field, g, "Std:JsonGet's PropertyFile is Steps.<step>.PropertyFiles.<name>")
		return
	}
	shape := c.shapes[prod.typ]
	if shape == nil {
		return // a step type whose properties the table does not list
	}
	segs, err := parsePath(path)
	if err != nil {
		c.add(RefMalformed, field, g, "malformed property path %s: %v", path, err)
		return
	}
	if len(shape.Paths) == 0 {
		c.add(RefNoProperty, field, g, "%s: a %s step has no properties", path, prod.typ)
		return
	}
	if !shape.has(segs) {
		c.add(RefNoProperty, field, g, "%s is not a property of a %s step (its properties are the fields of %s)%s",
			path, prod.typ, strings.Join(shape.From, " and "), shape.hint(segs))
		return
	}
	if prod.typ == "Processing" && len(segs) >= 2 && segs[0].name == "ProcessingOutputConfig" && segs[1].name == "Outputs" && segs[1].index != nil {
		outs := processingOutputNames(prod.raw)
		switch ix := segs[1].index; {
		case ix.key != nil && !slices.Contains(outs, *ix.key):
			c.add(RefNoOutput, field, g, "step %s declares no output %q (its outputs are %s)", step, *ix.key, listOrNone(outs))
		case ix.n != nil && *ix.n >= len(outs):
			c.add(RefNoOutput, field, g, "step %s has %d outputs; index %d is past them", step, len(outs), *ix.n)
		}
	}
}

// checkPropertyFiles checks a step's PropertyFiles: only a Processing step
// declares them, each on an output it has, with a relative file path and a
// name of its own.
func (c *refChecker) checkPropertyFiles(st refStep) {
	pfs, _ := st.raw.get("PropertyFiles")
	if pfs.len() == 0 {
		return
	}
	if st.typ != "Processing" {
		c.add(RefPropertyFile, refField{top: "PropertyFiles"}, "", "a %s step declares no property files: they name an output of a Processing step", st.typ)
		return
	}
	outs := processingOutputNames(st.raw)
	seen := map[string]bool{}
	pfs.elems(func(i int, m jv) {
		field := "PropertyFiles[" + strconv.Itoa(i) + "]"
		name, out, file := m.getString("PropertyFileName"), m.getString("OutputName"), m.getString("FilePath")
		switch {
		case name == "":
			c.add(RefPropertyFile, refField{top: field + ".PropertyFileName"}, "", "a property file needs a name")
		case seen[name]:
			c.add(RefPropertyFile, refField{top: field + ".PropertyFileName"}, name, "property file %s is declared twice", name)
		}
		seen[name] = true
		if !slices.Contains(outs, out) {
			c.add(RefNoOutput, refField{top: field + ".OutputName"}, out, "property file %s names output %q, which the step does not declare (its outputs are %s)", name, out, listOrNone(outs))
		}
		if !isRelativeFile(file) {
			c.add(RefPropertyFile, refField{top: field + ".FilePath"}, file, "property file %s needs a file path relative to its output, not %q", name, file)
		}
	})
}

// isRelativeFile reports whether a property file's path names a file
// inside its output: not empty, not absolute, no ".." segment.
func isRelativeFile(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains("/"+p+"/", "/../")
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

func propertyFileNames(step jv) []string {
	pfs, _ := step.get("PropertyFiles")
	return namesIn(pfs, "PropertyFileName")
}

func processingOutputNames(step jv) []string {
	args, _ := step.get("Arguments")
	poc, _ := args.get("ProcessingOutputConfig")
	outs, _ := poc.get("Outputs")
	return namesIn(outs, "OutputName")
}

// namesIn collects the non-empty string key of each object in list.
func namesIn(list jv, key string) []string {
	var out []string
	list.elems(func(_ int, m jv) {
		if m.isObject() {
			if n := m.getString(key); n != "" {
				out = append(out, n)
			}
		}
	})
	return out
}

// pathSeg is one field of a property path and the index after it, if any.
type pathSeg struct {
	name  string
	index *pathIndex
}

type pathIndex struct {
	n   *int    // [<n>]
	key *string // ['<key>']
}

// parsePath splits a property path such as ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri.
func parsePath(p string) ([]pathSeg, error) {
	var segs []pathSeg
	for _, part := range splitOutsideQuotes(p) {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return nil, fmt.Errorf("empty field name in %q", part)
		}
		seg := pathSeg{name: name}
		if rest != "" {
			inner, ok := strings.CutSuffix(rest, "]")
			if !ok {
				return nil, fmt.Errorf("unclosed [ in %q", part)
			}
			switch {
			case len(inner) >= 2 && inner[0] == '\'' && inner[len(inner)-1] == '\'':
				k := inner[1 : len(inner)-1]
				seg.index = &pathIndex{key: &k}
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("index [%s] is neither a number nor a quoted key", inner)
				}
				seg.index = &pathIndex{n: &n}
			}
		}
		segs = append(segs, seg)
	}
	return segs, nil
}

// splitOutsideQuotes splits on dots that are not inside ['...'].
func splitOutsideQuotes(p string) []string {
	var parts []string
	start, quoted := 0, false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\'':
			quoted = !quoted
		case '.':
			if !quoted {
				parts = append(parts, p[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, p[start:])
}

// has reports whether segs name a property: an index [<n>] stands for a list entry, ['<key>'] for a
// list entry (by name, as the SDK allows) or a map entry.
func (sh *stepShape) has(segs []pathSeg) bool {
	prefixes := []string{""}
	for _, s := range segs {
		var next []string
		for _, p := range prefixes {
			base := s.name
			if p != "" {
				base = p + "." + s.name
			}
			switch {
			case s.index == nil:
				next = append(next, base)
			case s.index.n != nil:
				next = append(next, base+"[]")
			default:
				next = append(next, base+"[]", base+"{}")
			}
		}
		prefixes = prefixes[:0]
		for _, p := range next {
			if sh.set[p] {
				prefixes = append(prefixes, p)
			}
		}
		if len(prefixes) == 0 {
			return false
		}
	}
	return true
}

// hint names the fields under the longest valid prefix of segs, for the message.
func (sh *stepShape) hint(segs []pathSeg) string {
	for n := len(segs) - 1; n >= 0; n-- {
		prefix := ""
		if n > 0 {
			if !sh.has(segs[:n]) {
				continue
			}
			prefix = renderNormalized(sh, segs[:n])
		}
		var fields []string
		for _, p := range sh.Paths {
			rest, ok := p, true
			if prefix != "" {
				rest, ok = strings.CutPrefix(p, prefix+".")
			}
			if ok && rest != "" && !strings.ContainsAny(rest, ".[{") {
				fields = append(fields, rest)
			}
		}
		if len(fields) == 0 {
			return ""
		}
		if len(fields) > 12 {
			fields = append(fields[:12], "...")
		}
		if prefix == "" {
			return "; its fields are " + strings.Join(fields, ", ")
		}
		return "; " + prefix + " has " + strings.Join(fields, ", ")
	}
	return ""
}

// renderNormalized writes segs the way the table does (the first matching form).
func renderNormalized(sh *stepShape, segs []pathSeg) string {
	p := ""
	for _, s := range segs {
		base := s.name
		if p != "" {
			base = p + "." + s.name
		}
		switch {
		case s.index == nil:
			p = base
		case sh.set[base+"[]"]:
			p = base + "[]"
		default:
			p = base + "{}"
		}
	}
	return p
}

// pathMatches reports whether the property path (with indices) is the table pattern (indices as []).
func pathMatches(path, pattern string) bool {
	return normalizeIndices(path) == pattern
}

// referenceFixes say what to do about each kind of ReferenceProblem.
var referenceFixes = map[string]string{
	RefNoStep:              "wire the input from a step of the DAG (an edge), or give the field a literal value; compile.with_report shows where each input comes from",
	RefLaterStep:           "wire the input from a step that runs before this one: the DAG's edges decide the order",
	RefOwnStep:             "wire the input from another step: a step cannot read its own properties",
	RefNoProperty:          "use a property the step's type has (the fields of its Describe response, as the problem lists); the catalog's output property_path is the usual one",
	RefNoOutput:            "use an output the step declares (the problem lists them), or declare the output on that step",
	RefNoParameter:         "declare the parameter in pipeline_parameters, or use one the definition declares",
	RefNoExecutionVariable: "use one of the execution variables the problem lists",
	RefPropertyFile:        "declare the property file on the step that writes it (PropertyFiles) and read it with Std:JsonGet",
	RefMalformed:           "write the reference as Parameters.<name>, Execution.<variable> or Steps.<step>.<property>",
	RefPrefix:              "point the field at the archive itself, e.g. <prefix>/model.tar.gz, not at the folder it is in",
}

// referenceBlockers turns CheckReferences' problems into blockers. When some
// steps did not build (Validate goes on past them), references to them are
// left out: their build errors are the blockers.
func referenceBlockers(in ReadinessInput) []Blocker {
	r := in.Result
	if r == nil || r.Definition == nil {
		return nil
	}
	enc := in.encoded()
	err := enc.err
	var probs []ReferenceProblem
	if err == nil {
		probs, err = checkReferencesDoc(enc.root())
	}
	if err != nil {
		return []Blocker{{Kind: BlockerBuildError, Problem: "the definition's references could not be checked: " + err.Error(), Fix: "see the problem"}}
	}
	incomplete := r.Report != nil && len(r.Report.Nodes) < r.Report.DAGNodes
	nodeOf := stepNodes(r)
	var out []Blocker
	for _, p := range probs {
		if incomplete && p.Kind == RefNoStep {
			continue
		}
		kind := BlockerBadReference
		if p.Kind == RefPrefix {
			kind = BlockerPrefixForObject
		}
		out = append(out, Blocker{Kind: kind, Node: nodeOf[catalog.SageMakerStepName(p.Step)], Path: "Steps[" + p.Step + "]." + p.Field, Tool: "compile.with_report",
			Problem: fmt.Sprintf("%s: %s", p.Reference, p.Reason), Fix: referenceFixes[p.Kind]})
	}
	return out
}

// prefixPropertiesOf are the properties of a step Type that hold an S3
// prefix (the kind table's prefixProperties).
func prefixPropertiesOf(typ string) []string {
	if k := kindOfType(typ); k != nil {
		return k.prefixProperties
	}
	return nil
}

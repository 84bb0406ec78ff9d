package compiler

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Step types of a quality gate: the Condition step and the Fail step of
// its else branch.
const (
	StepTypeCondition = "Condition"
	StepTypeFail      = "Fail"
)

// ConditionArguments are a Condition step's: the conditions (all must
// hold) and the steps of each branch. IfSteps are the steps of the DAG
// nodes downstream of the gate (filled when the whole definition is
// assembled); ElseSteps is the Fail step.
type ConditionArguments struct {
	Conditions []any  `json:"Conditions"`
	IfSteps    []Step `json:"IfSteps"`
	ElseSteps  []Step `json:"ElseSteps"`
}

// BinaryCondition compares two values: Type is Equals, GreaterThan,
// GreaterThanOrEqualTo, LessThan or LessThanOrEqualTo.
type BinaryCondition struct {
	Type       string `json:"Type"`
	LeftValue  any    `json:"LeftValue"`
	RightValue any    `json:"RightValue"`
}

// InCondition holds when QueryValue is one of Values.
type InCondition struct {
	Type       string `json:"Type"` // "In"
	QueryValue any    `json:"QueryValue"`
	Values     []any  `json:"Values"`
}

// NotCondition holds when Condition does not.
type NotCondition struct {
	Type      string `json:"Type"` // "Not"
	Condition any    `json:"Condition"`
}

// OrCondition holds when one of Conditions does.
type OrCondition struct {
	Type       string `json:"Type"` // "Or"
	Conditions []any  `json:"Conditions"`
}

// FailArguments are a Fail step's: the message the execution fails with.
type FailArguments struct {
	ErrorMessage any `json:"ErrorMessage"`
}

// PropertyFile declares a JSON file inside a Processing step's output
// that later steps read with Std:JsonGet.
type PropertyFile struct {
	PropertyFileName string `json:"PropertyFileName"`
	OutputName       string `json:"OutputName"`
	FilePath         string `json:"FilePath"`
}

// gateInput is the input of a gate step that names the evaluation output
// its metrics come from.
const gateInput = "metrics"

// binaryTypes maps a comparison to its SageMaker condition Type.
var binaryTypes = map[string]string{
	">=": "GreaterThanOrEqualTo", ">": "GreaterThan", "<=": "LessThanOrEqualTo", "<": "LessThan", "==": "Equals",
}

// Comparisons are the values a gate's comparison may take.
var Comparisons = []string{">=", ">", "<=", "<", "==", "In", "Not", "And", "Or"}

// jsonPathRE is a Std:JsonGet path: dotted keys, each with optional [n]
// indices.
var jsonPathRE = lazyre.New(`^[A-Za-z0-9_\-]+(\[\d+\])*(\.[A-Za-z0-9_\-]+(\[\d+\])*)*$`)

// gate is what building a gate collects.
type gate struct {
	p *nodePlan
	// report reads a path from the gate's report: the evaluation step's
	// property file, or the object at a given S3 URI.
	report    func(path string) JSONGet
	metric    string
	threshold any // the gate's threshold, the default of its conditions'
}

// buildCondition builds a quality gate: the Condition step's conditions,
// read from the report of the evaluation output bound to its metrics
// input (declared as that step's property file), and the Fail step of its
// else branch.
//
// A gate's config gives the comparison at the top: a binary comparison or
// In of metric against threshold, or And, Or or Not of conditions, each
// an object of the same fields (metric, comparison, threshold,
// conditions; metric defaults to the gate's). Top-level And conditions
// become the Conditions list (SageMaker holds all of them); a nested And
// is written Not(Or(Not ...)), as SageMaker has no And.
func (e *buildEnv) buildCondition(p *nodePlan) (*ConditionArguments, error) {
	if err := checkMetric(p); err != nil {
		return nil, err
	}
	report, err := e.gateReport(p)
	if err != nil {
		return nil, err
	}
	g, top, conds, err := e.gateConditions(p, report)
	if err != nil {
		return nil, err
	}
	fail, err := e.failStep(g, top)
	if err != nil {
		return nil, err
	}
	return &ConditionArguments{Conditions: conds, IfSteps: []Step{}, ElseSteps: []Step{fail}}, nil
}

// checkMetric checks a gate's metric: a JSON path into its report.
func checkMetric(p *nodePlan) error {
	metric, err := p.Values.str("metric", "")
	if err != nil {
		return err
	}
	if !jsonPathRE().MatchString(metric) {
		return &fieldError{"metric", fmt.Sprintf("metric %q is not a JSON path into the report (keys joined by dots, [n] for a list entry: regression_metrics.mse.value)", metric)}
	}
	return nil
}

// gateConditions reads a gate's conditions from its values (metric,
// comparison, threshold, conditions), each metric read through report: the
// checks of values against each other (an ordering comparison needs a
// number) that config.merge_save runs too (CheckConfigs). It returns the
// gate, its top condition with the defaults filled and the conditions of
// the Condition step.
func (e *buildEnv) gateConditions(p *nodePlan, report func(string) JSONGet) (*gate, map[string]any, []any, error) {
	g := &gate{p: p, report: report}
	var err error
	if g.metric, err = p.Values.str("metric", ""); err != nil {
		return nil, nil, nil, err
	}
	top := map[string]any{}
	for _, f := range []string{"metric", "comparison", "threshold", "conditions"} {
		if x, ok := p.Values.lookup(f); ok {
			top[f] = x
		}
	}
	g.threshold = top["threshold"]
	top = g.withDefaults(top)
	conds, err := e.conditionList(g, top, "")
	if err != nil {
		return nil, nil, nil, err
	}
	return g, top, conds, nil
}

// defaultReportFile is the report a gate reads inside an S3 URI given for
// its metrics input when report_file names none: what the catalog's
// evaluation steps write.
const defaultReportFile = "metrics.json"

// gateReport returns how the gate reads its report: the property file it
// declares on the step whose output feeds its metrics input, or, for an
// S3 URI given as that input (a single-node compile), the JSON object at
// <uri>/<report_file> (the URI itself when it names a .json object).
func (e *buildEnv) gateReport(p *nodePlan) (func(string) JSONGet, error) {
	b, ok := p.Bound[gateInput]
	if ok && b.Source == SourceManual {
		uri := b.Reference
		if !strings.HasSuffix(uri, ".json") {
			file, err := p.Values.str("report_file", "")
			if err != nil {
				return nil, err
			}
			uri = strings.TrimSuffix(uri, "/") + "/" + firstNonEmpty(file, defaultReportFile)
		}
		return func(path string) JSONGet { return JSONGetS3(uri, path) }, nil
	}
	if !ok || b.Source != SourceDependency {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: gateInput,
			Detail: "a gate reads its metric from an upstream evaluation step: add an edge from the step whose output holds the metrics report"}
	}
	ref, err := e.gatePropertyFile(p, b)
	if err != nil {
		return nil, err
	}
	return func(path string) JSONGet { return JSONGetOf(ref, path) }, nil
}

// gatePropertyFile declares the gate's report as a property file of the
// step whose output b binds, and returns the reference to it.
func (e *buildEnv) gatePropertyFile(p *nodePlan, b *Binding) (Get, error) {
	prov := e.nodes[b.Provider]
	if prov == nil || prov.Step.Verb != catalog.VerbProcessing {
		verb := "unknown"
		if prov != nil {
			verb = string(prov.Step.Verb)
		}
		return Get{}, fmt.Errorf("the gate's metrics input is bound to %s.%s, a %s step's output: a report is read from a Processing step's output (its property file); add an edge from the evaluation step", b.Provider, b.Output, verb)
	}
	file, err := p.Values.str("report_file", "")
	if err != nil {
		return Get{}, err
	}
	if file == "" {
		if out, ok := prov.Step.Output(b.Output); ok {
			file = out.ReportFile
		}
	}
	if file == "" {
		return Get{}, &fieldError{"report_file", fmt.Sprintf("output %s of %s declares no report: set report_file to the JSON file inside it (e.g. metrics.json)", b.Output, b.Provider)}
	}
	if !isRelativeFile(file) {
		return Get{}, &fieldError{"report_file", fmt.Sprintf("report_file %q must be a path relative to the output", file)}
	}
	name, err := p.Values.str("property_file_name", "EvaluationReport")
	if err != nil {
		return Get{}, err
	}
	if !isNameToken(name, "-_") {
		return Get{}, &fieldError{"property_file_name", fmt.Sprintf("property_file_name %q: 1-64 letters, digits, - and _", name)}
	}
	pf := PropertyFile{PropertyFileName: name, OutputName: b.Output, FilePath: file}
	for _, have := range e.propertyFiles[b.ProviderStep] {
		if have.PropertyFileName == name && have != pf {
			return Get{}, &fieldError{"property_file_name", fmt.Sprintf("step %s already declares property file %s for %s/%s; give this gate's report another property_file_name", b.ProviderStep, name, have.OutputName, have.FilePath)}
		}
		if have == pf {
			return StepProperty(b.ProviderStep, "PropertyFiles."+name), nil
		}
	}
	e.propertyFiles[b.ProviderStep] = append(e.propertyFiles[b.ProviderStep], pf)
	return StepProperty(b.ProviderStep, "PropertyFiles."+name), nil
}

// conditionList turns one condition object into the conditions it stands
// for at the top of a Condition step: an And's members, else the one
// condition.
func (e *buildEnv) conditionList(g *gate, c map[string]any, at string) ([]any, error) {
	if op, _ := c["comparison"].(string); op == "And" {
		subs, err := e.subConditions(g, c, at)
		if err != nil {
			return nil, err
		}
		var out []any
		for i, s := range subs {
			l, err := e.conditionList(g, s, fmt.Sprintf("%sconditions[%d].", at, i))
			if err != nil {
				return nil, err
			}
			out = append(out, l...)
		}
		return out, nil
	}
	one, err := e.condition(g, c, at)
	if err != nil {
		return nil, err
	}
	return []any{one}, nil
}

// condition builds one condition (at is the config path of the object, ""
// for the gate's own fields).
func (e *buildEnv) condition(g *gate, c map[string]any, at string) (any, error) {
	for k := range c {
		switch k {
		case "metric", "comparison", "threshold", "conditions":
		default:
			return nil, &fieldError{strings.TrimSuffix(at, "."), fmt.Sprintf("%s%s: unknown key (a condition has metric, comparison, threshold and conditions)", at, k)}
		}
	}
	if at != "" {
		c = g.withDefaults(c)
	}
	op, ok := c["comparison"].(string)
	if !ok || !slices.Contains(Comparisons, op) {
		return nil, &fieldError{at + "comparison", fmt.Sprintf("%scomparison %v: want one of %s", at, c["comparison"], strings.Join(Comparisons, ", "))}
	}
	switch op {
	case "And", "Or", "Not":
		subs, err := e.subConditions(g, c, at)
		if err != nil {
			return nil, err
		}
		built := make([]any, len(subs))
		for i, s := range subs {
			if built[i], err = e.condition(g, s, fmt.Sprintf("%sconditions[%d].", at, i)); err != nil {
				return nil, err
			}
		}
		switch {
		case op == "Not" && len(built) != 1:
			return nil, &fieldError{at + "conditions", fmt.Sprintf("Not takes one condition, got %d", len(built))}
		case op == "Not":
			return NotCondition{Type: "Not", Condition: built[0]}, nil
		case op == "Or":
			return OrCondition{Type: "Or", Conditions: built}, nil
		}
		// And below the top: not (one of them does not hold).
		nots := make([]any, len(built))
		for i, b := range built {
			nots[i] = NotCondition{Type: "Not", Condition: b}
		}
		return NotCondition{Type: "Not", Condition: OrCondition{Type: "Or", Conditions: nots}}, nil
	}
	if _, has := c["conditions"]; has {
		return nil, &fieldError{at + "conditions", fmt.Sprintf("comparison %s compares the metric with %sthreshold; set %scomparison to And, Or or Not to combine conditions", op, at, at)}
	}
	metric, err := g.metricOf(c, at)
	if err != nil {
		return nil, err
	}
	left := g.report(metric)
	x, has := c["threshold"]
	if !has || x == nil {
		return nil, &fieldError{at + "threshold", fmt.Sprintf("%sthreshold is required: the value %s is compared with (%s)", at, metric, op)}
	}
	if op == "In" {
		list, ok := x.([]any)
		if !ok || len(list) == 0 {
			return nil, &fieldError{at + "threshold", fmt.Sprintf("In takes a non-empty list of values as %sthreshold", at)}
		}
		vals := make([]any, len(list))
		for i, it := range list {
			if vals[i], err = e.thresholdValue(fmt.Sprintf("%sthreshold[%d]", at, i), it, false); err != nil {
				return nil, err
			}
		}
		return InCondition{Type: "In", QueryValue: left, Values: vals}, nil
	}
	right, err := e.thresholdValue(at+"threshold", x, op != "==")
	if err != nil {
		return nil, err
	}
	return BinaryCondition{Type: binaryTypes[op], LeftValue: left, RightValue: right}, nil
}

// withDefaults fills what a condition leaves out: its comparison (>=, or
// And when it has conditions) and, for a comparison of the metric, the
// gate's threshold.
func (g *gate) withDefaults(c map[string]any) map[string]any {
	out := make(map[string]any, len(c)+1)
	for k, v := range c {
		out[k] = v
	}
	if _, ok := out["comparison"]; !ok {
		out["comparison"] = ">="
		if _, compound := out["conditions"]; compound {
			out["comparison"] = "And"
		}
	}
	switch out["comparison"] {
	case "And", "Or", "Not":
	default:
		if _, ok := out["threshold"]; !ok && g.threshold != nil {
			out["threshold"] = g.threshold
		}
	}
	return out
}

// subConditions reads the conditions list of an And, Or or Not.
func (e *buildEnv) subConditions(g *gate, c map[string]any, at string) ([]map[string]any, error) {
	raw, ok := c["conditions"].([]any)
	if !ok || len(raw) == 0 {
		return nil, &fieldError{at + "conditions", fmt.Sprintf("%v combines conditions: set %sconditions to a non-empty list of {metric, comparison, threshold} objects", c["comparison"], at)}
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, &fieldError{at + "conditions", fmt.Sprintf("%sconditions[%d] is %s, want an object {metric, comparison, threshold}", at, i, jsonKind(r))}
		}
		out[i] = m
	}
	return out, nil
}

// metricOf is a condition's metric: its own, else the gate's.
func (g *gate) metricOf(c map[string]any, at string) (string, error) {
	x, ok := c["metric"]
	if !ok || at == "" {
		return g.metric, nil
	}
	s, ok := x.(string)
	if !ok || !jsonPathRE().MatchString(s) {
		return "", &fieldError{at + "metric", fmt.Sprintf("%smetric %v is not a JSON path into the report", at, x)}
	}
	return s, nil
}

// thresholdValue is a threshold for the definition: a literal (a number
// where numeric says the comparison orders values) or the reference to a
// declared pipeline parameter.
func (e *buildEnv) thresholdValue(field string, x any, numeric bool) (any, error) {
	if name, ok := paramRefName(x); ok {
		prm, err := e.param(field, x.(string), name)
		if err != nil {
			return nil, err
		}
		if numeric && prm.Type != "Integer" && prm.Type != "Float" {
			return nil, &fieldError{field, fmt.Sprintf("%s refers to %s parameter %s; an ordering comparison needs an Integer or Float parameter", strings.TrimSpace(x.(string)), prm.Type, name)}
		}
		return Param(name), nil
	}
	switch t := x.(type) {
	case string:
		if isRef(t) {
			return nil, refusedRef(field, t)
		}
		if numeric {
			return nil, &fieldError{field, fmt.Sprintf("%s %q is text; an ordering comparison needs a number or an Integer or Float parameter", field, t)}
		}
		return t, nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, &fieldError{field, fmt.Sprintf("%s is not a finite number", field)}
		}
		return t, nil
	case int64, int, json.Number:
		return t, nil
	case bool:
		if numeric {
			return nil, &fieldError{field, fmt.Sprintf("%s is a boolean; an ordering comparison needs a number", field)}
		}
		return t, nil
	}
	return nil, &fieldError{field, fmt.Sprintf("%s is %s; want a number, a string, a boolean or {{Parameters.<name>}}", field, jsonKind(x))}
}

// failStep is the gate's Fail step (fail_step_name, else <gate>-Fail) and
// its message: failure_message, whose {metric} is the metric's value and
// {threshold} the threshold; a message without placeholders gets the
// metric's value appended, and an empty one names the metric, the
// comparison and the threshold.
func (e *buildEnv) failStep(g *gate, top map[string]any) (Step, error) {
	p := g.p
	given, err := p.Values.str("fail_step_name", "")
	if err != nil {
		return Step{}, err
	}
	name := catalog.SageMakerStepName(given)
	if name == "" {
		name = p.Name + "-Fail"
	}
	if !IsValidStepName(name) {
		return Step{}, &fieldError{"fail_step_name", fmt.Sprintf("%q is not a legal SageMaker step name (1-64 letters, digits, - and _)", name)}
	}
	for _, np := range e.nodes {
		if np.Name == name {
			return Step{}, &fieldError{"fail_step_name", fmt.Sprintf("the Fail step's name %s is the step name of node %s: step names are unique across the definition and its branches; set fail_step_name", name, np.Node)}
		}
	}
	if other, dup := e.failSteps[name]; dup && other != p.Node {
		return Step{}, &fieldError{"fail_step_name", fmt.Sprintf("gate %s already names its Fail step %s; set fail_step_name", other, name)}
	}
	e.failSteps[name] = p.Node
	tmpl, err := p.Values.str("failure_message", "")
	if err != nil {
		return Step{}, err
	}
	var threshold []any
	if x, ok := top["threshold"]; ok {
		items := []any{x}
		if l, isList := x.([]any); isList {
			items = l
		}
		numeric := binaryTypes[fmt.Sprint(top["comparison"])] != "" && top["comparison"] != "=="
		for _, it := range items {
			v, err := e.thresholdValue("threshold", it, numeric)
			if err != nil {
				return Step{}, err
			}
			threshold = append(threshold, v)
		}
	}
	if tmpl == "" {
		op := fmt.Sprint(top["comparison"])
		switch {
		case threshold != nil && op != "And" && op != "Or" && op != "Not":
			tmpl = fmt.Sprintf("Quality gate %s failed: %s must be %s {threshold}; it is {metric}", p.Name, g.metric, op)
		default:
			tmpl = fmt.Sprintf("Quality gate %s failed: its conditions (%s) do not hold; %s is {metric}", p.Name, op, g.metric)
		}
	}
	if !strings.Contains(tmpl, "{") {
		tmpl = strings.TrimRight(tmpl, " ") + "; " + g.metric + " is {metric}"
	}
	msg, err := g.message(tmpl, threshold)
	if err != nil {
		return Step{}, err
	}
	return Step{Name: name, Type: StepTypeFail, Arguments: &FailArguments{ErrorMessage: msg}}, nil
}

// msgPart is a piece of a failure message: text, or the values a
// placeholder stands for.
type msgPart struct {
	text string
	vals []any
}

// message renders a failure message template as a Std:Join whose string
// is the template with {metric} and {threshold} replaced by their values.
// When every placeholder is set off from the text by one space, the
// pieces are joined on " " (as SDK definitions write such messages);
// otherwise on "" with the text as written.
func (g *gate) message(tmpl string, threshold []any) (Join, error) {
	var parts []msgPart
	rest := tmpl
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			parts = append(parts, msgPart{text: rest})
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return Join{}, &fieldError{"failure_message", "failure_message has a { without a closing }"}
		}
		if i > 0 {
			parts = append(parts, msgPart{text: rest[:i]})
		}
		switch ph := rest[i+1 : i+j]; ph {
		case "metric":
			parts = append(parts, msgPart{vals: []any{g.report(g.metric)}})
		case "threshold":
			if threshold == nil {
				return Join{}, &fieldError{"failure_message", "{threshold} needs the gate's own threshold (its conditions have their own)"}
			}
			parts = append(parts, msgPart{vals: threshold})
		default:
			return Join{}, &fieldError{"failure_message", fmt.Sprintf("failure_message: unknown placeholder {%s} (use {metric} and {threshold})", ph)}
		}
		rest = rest[i+j+1:]
	}
	spaced := true
	for k, pt := range parts {
		if pt.vals != nil {
			if k+1 < len(parts) && parts[k+1].vals != nil {
				spaced = false // two placeholders with nothing between them
			}
			continue
		}
		before := k > 0 && parts[k-1].vals != nil
		after := k+1 < len(parts) && parts[k+1].vals != nil
		t := pt.text
		if before && (!strings.HasPrefix(t, " ") || strings.HasPrefix(t, "  ")) {
			spaced = false
		}
		if after && (!strings.HasSuffix(t, " ") || strings.HasSuffix(t, "  ")) {
			spaced = false
		}
	}
	var vals []any
	for k, pt := range parts {
		if pt.vals == nil {
			t := pt.text
			if spaced {
				if k > 0 {
					t = strings.TrimPrefix(t, " ")
				}
				if k+1 < len(parts) {
					t = strings.TrimSuffix(t, " ")
				}
			}
			if t != "" {
				vals = append(vals, t)
			}
			continue
		}
		for i, v := range pt.vals {
			if i > 0 && !spaced {
				vals = append(vals, ", ")
			}
			vals = append(vals, v)
		}
	}
	if spaced {
		return JoinOn(" ", vals...), nil
	}
	return JoinOn("", vals...), nil
}

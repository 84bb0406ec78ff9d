package catalog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Derivation templates (the `derive:` attribute of a config field) are text
// with {placeholders}. A placeholder is a field name followed by filters:
//
//	{author}-{service_name}                 field values
//	{region|aws_region}                     NA -> us-east-1, EU -> eu-west-1, FE -> us-west-2; an AWS region as it is
//	{processing_source_dir|or:source_dir}   first non-empty of the two fields
//	{use_large|if:type_large:type_small}    value of type_large when use_large is true, else type_small
//	{model_class|lower} {region|upper}      case filters
//	{today}                                 the current date, YYYY-MM-DD
//
// A value is empty when the field is missing, null or "". Values are
// rendered like environment variables (see EnvValue).

// RegionToAWS maps the engine's region codes, aliases kept from cursus
// (Python), to AWS regions.
var RegionToAWS = map[string]string{"NA": "us-east-1", "EU": "eu-west-1", "FE": "us-west-2"}

var reAWSRegion = lazyre.New(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// AWSRegion returns the AWS region a config's region names: an AWS region
// name as it is, a region code (NA, EU, FE, in any case) mapped by
// RegionToAWS; false for anything else.
func AWSRegion(region string) (string, bool) {
	region = strings.TrimSpace(region)
	if r, ok := RegionToAWS[strings.ToUpper(region)]; ok {
		return r, true
	}
	if reAWSRegion().MatchString(region) {
		return region, true
	}
	return "", false
}

// TodayVar is the template variable that expands to the current date.
const TodayVar = "today"

var reTemplateName = lazyre.New(FieldNamePattern)

// tmplFilter is one filter of a placeholder.
type tmplFilter struct {
	name string
	args []string
}

// tmplPart is a literal (field == "") or a placeholder.
type tmplPart struct {
	literal string
	field   string
	filters []tmplFilter
}

// parsedTemplates memoises parseTemplate (templates repeat across steps).
var parsedTemplates sync.Map // string -> parsedTemplate

type parsedTemplate struct {
	parts []tmplPart
	err   error
}

// parseTemplate splits a derivation template into parts. The result is
// shared: callers must not modify it.
func parseTemplate(t string) ([]tmplPart, error) {
	if v, ok := parsedTemplates.Load(t); ok {
		p := v.(parsedTemplate)
		return p.parts, p.err
	}
	parts, err := parseTemplateUncached(t)
	parsedTemplates.Store(t, parsedTemplate{parts, err})
	return parts, err
}

func parseTemplateUncached(t string) ([]tmplPart, error) {
	var parts []tmplPart
	for len(t) > 0 {
		open := strings.IndexByte(t, '{')
		closeIdx := strings.IndexByte(t, '}')
		if open < 0 {
			if closeIdx >= 0 {
				return nil, fmt.Errorf("unmatched '}'")
			}
			parts = append(parts, tmplPart{literal: t})
			break
		}
		if closeIdx >= 0 && closeIdx < open {
			return nil, fmt.Errorf("unmatched '}'")
		}
		if open > 0 {
			parts = append(parts, tmplPart{literal: t[:open]})
		}
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed '{'")
		}
		expr := t[open+1 : open+end]
		t = t[open+end+1:]
		segs := strings.Split(expr, "|")
		p := tmplPart{field: strings.TrimSpace(segs[0])}
		if !reTemplateName().MatchString(p.field) {
			return nil, fmt.Errorf("placeholder {%s}: %q is not a field name", expr, p.field)
		}
		for _, s := range segs[1:] {
			fa := strings.Split(strings.TrimSpace(s), ":")
			f := tmplFilter{name: fa[0], args: fa[1:]}
			want, ok := filterArity[f.name]
			if !ok {
				return nil, fmt.Errorf("placeholder {%s}: unknown filter %q (known: %s)", expr, f.name, strings.Join(filterNames(), ", "))
			}
			if len(f.args) != want {
				return nil, fmt.Errorf("placeholder {%s}: filter %q takes %d argument(s)", expr, f.name, want)
			}
			for _, a := range f.args {
				if !reTemplateName().MatchString(a) {
					return nil, fmt.Errorf("placeholder {%s}: %q is not a field name", expr, a)
				}
			}
			p.filters = append(p.filters, f)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

var filterArity = map[string]int{"aws_region": 0, "lower": 0, "upper": 0, "or": 1, "if": 2}

func filterNames() []string { return mapkeys.Sorted(filterArity) }

// templateRefs lists the field names a template reads (without "today").
// The result is shared: callers must not modify it.
func templateRefs(t string) ([]string, error) {
	if v, ok := templateRefCache.Load(t); ok {
		r := v.(parsedRefs)
		return r.refs, r.err
	}
	parts, err := parseTemplate(t)
	var out []string
	for _, p := range parts {
		if p.field == "" {
			continue
		}
		if p.field != TodayVar {
			out = append(out, p.field)
		}
		for _, f := range p.filters {
			out = append(out, f.args...)
		}
	}
	templateRefCache.Store(t, parsedRefs{out, err})
	return out, err
}

var templateRefCache sync.Map // template -> parsedRefs

type parsedRefs struct {
	refs []string
	err  error
}

// ExpandDerivation renders a derivation template. lookup returns a field's
// value and whether it has one. An empty placeholder value is an error
// unless an `or:` filter supplies one, because a derived name with a hole
// in it ("alice--xgboost-NA") is never what the user wants.
func ExpandDerivation(template string, lookup func(name string) (any, bool)) (string, error) {
	parts, err := parseTemplate(template)
	if err != nil {
		return "", err
	}
	get := func(name string) string {
		if name == TodayVar {
			return time.Now().Format("2006-01-02")
		}
		v, ok := lookup(name)
		if !ok || v == nil {
			return ""
		}
		return EnvValue(v)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.field == "" {
			b.WriteString(p.literal)
			continue
		}
		raw, _ := lookup(p.field)
		val := get(p.field)
		for _, f := range p.filters {
			switch f.name {
			case "or":
				if val == "" {
					val = get(f.args[0])
				}
			case "if":
				if truthy(raw) {
					val = get(f.args[0])
				} else {
					val = get(f.args[1])
				}
			case "lower":
				val = strings.ToLower(val)
			case "upper":
				val = strings.ToUpper(val)
			case "aws_region":
				r, ok := AWSRegion(val)
				if !ok {
					return "", fmt.Errorf("{%s}: region %q is neither NA, EU, FE nor an AWS region name such as us-west-2", p.field, val)
				}
				val = r
			}
		}
		if val == "" {
			return "", fmt.Errorf("{%s} has no value", p.field)
		}
		b.WriteString(val)
	}
	return b.String(), nil
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		b, _ := strconv.ParseBool(t)
		return b
	case int:
		return t != 0
	case float64:
		return t != 0
	}
	return false
}

// EnvValue renders a config value the way environment variables and
// derivation templates see it: bool -> "true"/"false", list ->
// comma-joined, map -> JSON, whole floats without a fraction, else fmt.
func EnvValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		s := make([]string, len(t))
		for i, x := range t {
			s[i] = EnvValue(x)
		}
		return strings.Join(s, ",")
	case []string:
		return strings.Join(t, ",")
	case map[string]any:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Sprint(t)
		}
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}

// DeriveValue computes a derived (or dynamically defaulted) field of the
// step from the given config values: a value present in values wins;
// otherwise the field's derivation template is expanded, resolving other
// derived fields and defaults as needed.
func (s *Step) DeriveValue(name string, values map[string]any) (string, error) {
	return s.derive(name, values, 0)
}

func (s *Step) derive(name string, values map[string]any, depth int) (string, error) {
	if depth > 16 {
		return "", fmt.Errorf("derivation of %q is too deep", name)
	}
	f, ok := s.Field(name)
	if !ok {
		return "", fmt.Errorf("step %s has no config field %q", s.Type, name)
	}
	if v, ok := values[name]; ok && v != nil {
		return EnvValue(v), nil
	}
	if f.Derivation == "" {
		if f.Default != nil {
			return EnvValue(f.Default), nil
		}
		return "", fmt.Errorf("field %q has no value and no derivation", name)
	}
	var inner error
	out, err := ExpandDerivation(f.Derivation, func(n string) (any, bool) {
		if v, ok := values[n]; ok && v != nil {
			return v, true
		}
		g, ok := s.Field(n)
		if !ok {
			return nil, false
		}
		if g.Derivation != "" {
			v, err := s.derive(n, values, depth+1)
			if err != nil {
				inner = err
				return nil, false
			}
			return v, true
		}
		if g.Default != nil {
			return g.Default, true
		}
		return nil, false
	})
	if err != nil && inner != nil {
		return "", fmt.Errorf("%s: %w", name, inner)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// TemplateIsCopy reports whether a derivation template renders one field's
// value unchanged: a single placeholder whose filters are only or: and if:
// (each picks the value of one field). Any other template embeds the
// values it reads in text or transforms them ({author}-{region},
// {region|aws_region}, {x|lower}). A malformed template is not a copy.
func TemplateIsCopy(template string) bool {
	parts, err := parseTemplate(template)
	if err != nil || len(parts) != 1 || parts[0].field == "" || parts[0].field == TodayVar {
		return false
	}
	for _, f := range parts[0].filters {
		if f.name != "or" && f.name != "if" {
			return false
		}
	}
	return true
}

// TemplateFields returns the field names a derivation template reads, in
// order, including filter arguments and excluding {today}.
func TemplateFields(template string) ([]string, error) {
	refs, err := templateRefs(template)
	return append([]string(nil), refs...), err
}

// ParameterRefBlockers returns the fields of a config class that cannot
// hold a pipeline-parameter reference ("{{Parameters.<name>}}", see
// ParameterRef), each with the reason. A reference is resolved only when
// the pipeline runs, so it cannot be part of a name or text computed when
// the pipeline is built:
//
//   - job_type, which names the config key and the SageMaker step;
//   - the naming fields given (a step's patterns.name_suffix_field);
//   - every field a derive template embeds in text or transforms (region
//     feeds pipeline_name and aws_region), directly or through fields that
//     copy it (a template that is a plain copy, TemplateIsCopy, passes the
//     reference on: effective_instance_type copies an instance type).
//
// template returns a field's derive template ("" for none); nil means
// ConfigField.Derivation.
func ParameterRefBlockers(fields []ConfigField, template func(ConfigField) string, naming ...string) map[string]string {
	if template == nil {
		template = func(f ConfigField) string { return f.Derivation }
	}
	declared := make(map[string]bool, len(fields))
	for _, f := range fields {
		declared[f.Name] = true
	}
	out := map[string]string{}
	block := func(name, why string) {
		if declared[name] && out[name] == "" {
			out[name] = why
		}
	}
	block("job_type", "the job type names the config key and the SageMaker step")
	for _, n := range naming {
		if n != "" {
			block(n, "its value is part of the SageMaker step name")
		}
	}
	copies := map[string][]string{} // field -> fields whose template copies it
	for _, f := range fields {
		t := template(f)
		if t == "" {
			continue
		}
		refs, err := templateRefs(t)
		if err != nil {
			continue
		}
		if TemplateIsCopy(t) {
			for _, r := range refs {
				copies[r] = append(copies[r], f.Name)
			}
			continue
		}
		for _, r := range refs {
			block(r, fmt.Sprintf("%s is derived from it (%s) when the pipeline is built", f.Name, t))
		}
	}
	for changed := true; changed; {
		changed = false
		for _, src := range mapkeys.Sorted(copies) {
			if out[src] != "" || !declared[src] {
				continue
			}
			for _, dst := range copies[src] {
				if why := out[dst]; why != "" {
					out[src] = fmt.Sprintf("it is copied into %s, and %s", dst, why)
					changed = true
					break
				}
			}
		}
	}
	return out
}

// ParameterRefBlockers returns the step's fields that cannot hold a
// pipeline-parameter reference, with the reason (see the function
// ParameterRefBlockers; the step's name_suffix_field counts as a naming
// field).
func (s *Step) ParameterRefBlockers() map[string]string {
	return ParameterRefBlockers(s.Fields, nil, s.Patterns.NameSuffixField)
}

package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/envelope"
)

// Alias is a deprecated argument name and the argument it stands for. An
// argument struct declares one with a field of the old name tagged
// `deprecated:"<new>"`:
//
//	ConfigPath string `json:"config_path,omitempty" deprecated:"config_file"`
//
// New is the replacement argument, or a key inside an object argument
// ("dag.nodes": a top-level nodes argument becomes the nodes of dag). The
// registry maps the old name before validating and decoding, so the
// handler only ever sees the new one (the old field stays zero); the
// schema keeps the old property, marked "deprecated": true, so hosts still
// accept it; and the result carries a warning naming the replacement.
// Giving both the old name and the new one is invalid_input. Build checks
// every alias: New's first part must be a non-deprecated argument of the
// tool.
type Alias struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Aliases returns the tool's deprecated argument names, sorted by Old.
func (t *ToolDef) Aliases() []Alias { return t.aliases() }

// collectAliases reads the `deprecated` tags of an argument struct, its
// embedded structs included (their fields are the struct's, as for
// encoding/json).
func collectAliases(typ reflect.Type) []Alias {
	var out []Alias
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
				}
				continue
			}
			to, ok := f.Tag.Lookup("deprecated")
			if !ok {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out = append(out, Alias{Old: name, New: strings.TrimSpace(to)})
		}
	}
	walk(typ)
	sort.Slice(out, func(i, j int) bool { return out[i].Old < out[j].Old })
	return out
}

// checkAliases reports what is wrong with a tool's aliases (Build fails on it).
func checkAliases(t *ToolDef) []string {
	if len(t.aliases()) == 0 {
		return nil
	}
	props, _ := t.Schema()["properties"].(map[string]any)
	deprecated := map[string]bool{}
	for _, a := range t.aliases() {
		deprecated[a.Old] = true
	}
	var errs []string
	seen := map[string]bool{}
	for _, a := range t.aliases() {
		top, _, _ := strings.Cut(a.New, ".")
		switch {
		case a.New == "" || strings.HasPrefix(a.New, ".") || strings.HasSuffix(a.New, "."):
			errs = append(errs, fmt.Sprintf("tool %q: argument %q: deprecated tag names no argument", t.Name, a.Old))
		case props[top] == nil:
			errs = append(errs, fmt.Sprintf("tool %q: argument %q is deprecated for %q, which is not an argument", t.Name, a.Old, top))
		case deprecated[top]:
			errs = append(errs, fmt.Sprintf("tool %q: argument %q is deprecated for %q, which is deprecated too", t.Name, a.Old, top))
		case top == a.Old:
			errs = append(errs, fmt.Sprintf("tool %q: argument %q is deprecated for itself", t.Name, a.Old))
		case seen[a.New]:
			errs = append(errs, fmt.Sprintf("tool %q: two deprecated arguments stand for %q", t.Name, a.New))
		}
		seen[a.New] = true
	}
	return errs
}

// markDeprecated marks the aliases' properties of a reflected schema
// deprecated, their description naming the replacement.
func markDeprecated(schema map[string]any, aliases []Alias) {
	props, _ := schema["properties"].(map[string]any)
	for _, a := range aliases {
		p, ok := props[a.Old].(map[string]any)
		if !ok {
			continue
		}
		p["deprecated"] = true
		p["description"] = fmt.Sprintf("Deprecated: use %s (this name is accepted until the next release).", a.New)
		delete(p, "default")
	}
	if req, ok := schema["required"].([]any); ok {
		// an alias is never required: its replacement is
		keep := req[:0]
		for _, r := range req {
			if s, _ := r.(string); !isAlias(aliases, s) {
				keep = append(keep, r)
			}
		}
		schema["required"] = keep
	}
}

func isAlias(aliases []Alias, name string) bool {
	for _, a := range aliases {
		if a.Old == name {
			return true
		}
	}
	return false
}

// applyAliases moves the deprecated arguments present in raw (a valid
// JSON object) to their new place. It returns the arguments, rewritten
// only when an alias was used, a warning per alias used, or the problem
// when an alias and its replacement are both given. A null counts as
// absent, as everywhere at the top level.
func applyAliases(raw []byte, aliases []Alias) (out []byte, warnings, errs []string) {
	present := map[string]bool{}
	var given []Alias
	topMembers(raw, func(key string, val []byte) {
		if string(val) == "null" {
			return
		}
		present[key] = true
		for _, a := range aliases {
			if a.Old == key {
				given = append(given, a)
			}
		}
	})
	if len(given) == 0 {
		return raw, nil, nil
	}
	args := map[string]any{}
	topMembers(raw, func(key string, val []byte) {
		if string(val) != "null" {
			args[key] = json.RawMessage(val)
		}
	})
	for _, a := range given {
		top, rest, nested := strings.Cut(a.New, ".")
		if present[top] {
			errs = append(errs, fmt.Sprintf("%s: deprecated name of %s; give %s only", a.Old, a.New, top))
			continue
		}
		v := args[a.Old]
		delete(args, a.Old)
		warnings = append(warnings, fmt.Sprintf("argument '%s' is deprecated: use '%s' (the old name is accepted until the next release)", a.Old, a.New))
		if !nested {
			args[top] = v
			continue
		}
		obj, _ := args[top].(map[string]any)
		if obj == nil {
			obj = map[string]any{}
			args[top] = obj
		}
		setPath(obj, rest, v)
	}
	if len(errs) > 0 {
		return raw, nil, errs
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw, nil, []string{"(arguments): " + err.Error()}
	}
	return out, warnings, nil
}

// setPath sets obj[a][b]... = v for the dotted path "a.b...".
func setPath(obj map[string]any, path string, v any) {
	for {
		key, rest, more := strings.Cut(path, ".")
		if !more {
			obj[key] = v
			return
		}
		next, _ := obj[key].(map[string]any)
		if next == nil {
			next = map[string]any{}
			obj[key] = next
		}
		obj, path = next, rest
	}
}

// CheckHints reports what is wrong with the tools a result points at:
// every next_steps entry and every remedy suggestion must name a
// registered tool by its dotted name, and an args_hint object may only use
// that tool's arguments, under their current (not deprecated) names.
// Tests run it over every tool's examples.
func (r *Registry) CheckHints(res *envelope.ToolResult) []string {
	if res == nil {
		return nil
	}
	var errs []string
	known := func(where, name string) *ToolDef {
		t, ok := r.byName[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s names %q, which is not a registered tool", where, name))
			return nil
		}
		return t
	}
	for i, s := range res.NextSteps {
		t := known(fmt.Sprintf("next_steps[%d]", i), s.Tool)
		if t == nil {
			continue
		}
		hint, ok := s.ArgsHint.(map[string]any)
		if !ok {
			continue
		}
		props, _ := t.Schema()["properties"].(map[string]any)
		for k := range hint {
			switch {
			case props[k] == nil:
				errs = append(errs, fmt.Sprintf("next_steps[%d] (%s): args_hint key %q is not an argument of the tool", i, s.Tool, k))
			case isAlias(t.aliases(), k):
				errs = append(errs, fmt.Sprintf("next_steps[%d] (%s): args_hint key %q is a deprecated name", i, s.Tool, k))
			}
		}
	}
	if res.Remedy != nil {
		for i, name := range res.Remedy.SuggestedTools {
			known(fmt.Sprintf("remedy.suggested_tools[%d]", i), name)
		}
	}
	sort.Strings(errs)
	return errs
}

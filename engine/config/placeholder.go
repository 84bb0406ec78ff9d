package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// PlaceholderMarker is contained in every placeholder string the engine
// writes itself (project scaffolds, workflows that fill values nobody
// gave), so a grep for it finds what still needs a real value.
const PlaceholderMarker = "replace-me"

// placeholderWords are values that stand for "fill this in" when they are
// the whole value (case-insensitive, trimmed), or its first word followed
// by ":" ("TODO: the bucket").
var placeholderWords = map[string]bool{
	"todo": true, "tbd": true, "fixme": true, "xxx": true, "changeme": true, "change-me": true,
	"change_me": true, "placeholder": true,
}

// angleSlotRE is a documentation-style slot such as <bucket> or
// <account-id>: a letter, then letters, digits, '.', '_' or '-', no space
// (so a comparison in a query, "a<b AND c>d", is not one).
var angleSlotRE = lazyre.New(`<[A-Za-z][A-Za-z0-9_.\-]*>`)

// replaceSlotRE is a "ReplaceMe" marker or a "REPLACE-..." or
// "REPLACE_WITH_..." slot: the word replace starting a word and joined to
// the next by '-' or '_', or followed by "me" ending the word (so SQL's
// REPLACE(a, b) and "replacement_cost" are not).
var replaceSlotRE = lazyre.New(`(?:^|[^a-z0-9])replace(?:[-_][a-z0-9]|me(?:$|[^a-z0-9]))`)

// IsPlaceholder reports whether a string value is a placeholder, by the
// engine's placeholder set:
//
//   - it contains a replace-me marker in any spelling, case-insensitive:
//     "replace-me", "replace_me", "replaceme" (REPLACE_ME, ReplaceMe), or
//     a word "replace" joined to the next by '-' or '_'
//     ("arn:aws:iam::...:role/REPLACE-sagemaker-role", "REPLACE_WITH_ROLE");
//   - its trimmed text is a to-do word, case-insensitive: TODO, TBD, FIXME,
//     XXX, CHANGEME, CHANGE-ME, CHANGE_ME, PLACEHOLDER, or starts with one
//     followed by ":" ("TODO: set the bucket");
//   - it holds a documentation slot, a word in angle brackets without
//     spaces: "<bucket>", "arn:aws:iam::<account>:role/<name>".
//
// A list is a placeholder when one of its items is. Numbers, booleans and
// objects are never placeholders themselves (Placeholders walks objects).
// An empty essential field is a placeholder too, but only the field's
// declaration says it is essential: see Config.PlaceholderFields.
func IsPlaceholder(v any) bool {
	switch t := v.(type) {
	case string:
		return isPlaceholderText(t)
	case []any:
		for _, x := range t {
			if IsPlaceholder(x) {
				return true
			}
		}
	case []string:
		for _, x := range t {
			if isPlaceholderText(x) {
				return true
			}
		}
	}
	return false
}

func isPlaceholderText(s string) bool {
	l := strings.ToLower(s)
	if strings.Contains(l, "replace-me") || strings.Contains(l, "replace_me") {
		return true
	}
	if strings.Contains(l, "replace") && replaceSlotRE().MatchString(l) {
		return true
	}
	w := strings.TrimSpace(l)
	if placeholderWords[w] {
		return true
	}
	if head, _, found := strings.Cut(w, ":"); found && placeholderWords[strings.TrimSpace(head)] {
		return true
	}
	return strings.Contains(s, "<") && angleSlotRE().MatchString(s)
}

// placeholderLeaves returns every placeholder string inside a value, with
// its path: field itself for a placeholder string, "field.key" and
// "field[i]" for the ones nested in objects and lists, in a stable order.
func placeholderLeaves(field string, v any) []PlaceholderField {
	var out []PlaceholderField
	var walk func(at string, x any)
	walk = func(at string, x any) {
		switch t := x.(type) {
		case string:
			if isPlaceholderText(t) {
				out = append(out, PlaceholderField{Path: at, Field: field, Value: t})
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", at, i), e)
			}
		case []string:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", at, i), e)
			}
		case map[string]any:
			for _, k := range mapkeys.Sorted(t) {
				walk(at+"."+k, t[k])
			}
		}
	}
	walk(field, v)
	return out
}

// PlaceholderField is one placeholder of a config: the path inside the
// config (the field, or field.key / field[i] inside it), the field it is
// in, and the value found there ("" for an empty essential field).
type PlaceholderField struct {
	Path  string
	Field string
	Value any
	Empty bool // an essential field whose value is blank
}

// PlaceholderFields lists the placeholders among a config's own values
// (declared and extra fields; derived values, which are computed from
// them, are not repeated): every IsPlaceholder value at any depth, and
// every essential string field whose value is blank. Sorted by path.
func (c *Config) PlaceholderFields() []PlaceholderField {
	// The fields are looked at in any order and the few that hold
	// placeholders put in name order (sorting every config's keys cost more
	// than looking at them).
	var found [][]PlaceholderField
	for name, v := range c.Values {
		if f, ok := c.Class.Field(name); ok {
			if f.Tier == catalog.TierDerived {
				continue
			}
			if s, isStr := v.(string); isStr && f.Tier == catalog.TierEssential && strings.TrimSpace(s) == "" {
				found = append(found, []PlaceholderField{{Path: name, Field: name, Value: s, Empty: true}})
				continue
			}
		}
		if leaves := placeholderLeaves(name, v); len(leaves) > 0 {
			found = append(found, leaves)
		}
	}
	slices.SortFunc(found, func(a, b []PlaceholderField) int { return strings.Compare(a[0].Field, b[0].Field) })
	var out []PlaceholderField
	for _, f := range found {
		out = append(out, f...)
	}
	return out
}

package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The argument validator: a tool's JSON Schema compiled into a tree of
// nodes, checked against the raw JSON of the arguments without decoding
// them into Go values (the arguments are decoded once, into the tool's
// argument struct, after they passed). It knows the keywords the reflected
// schemas use: type, properties, required, additionalProperties, items,
// enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, pattern, minItems, maxItems, minProperties,
// maxProperties, anyOf, oneOf, and
// boolean schemas; annotations (description, default, deprecated, title,
// format, examples, ...) are ignored; any other keyword fails the compile,
// so a schema never passes a check it does not make.

// kinds is a set of JSON types.
type kinds uint8

const (
	kString kinds = 1 << iota
	kNumber
	kInteger
	kBoolean
	kObject
	kArray
	kNull
)

var kindNames = []struct {
	k    kinds
	name string
}{{kString, "string"}, {kNumber, "number"}, {kInteger, "integer"}, {kBoolean, "boolean"}, {kObject, "object"}, {kArray, "array"}, {kNull, "null"}}

func kindOf(name string) (kinds, bool) {
	for _, kn := range kindNames {
		if kn.name == name {
			return kn.k, true
		}
	}
	return 0, false
}

func (k kinds) String() string {
	var parts []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			parts = append(parts, kn.name)
		}
	}
	return strings.Join(parts, ", ")
}

// schemaNode is one compiled schema.
type schemaNode struct {
	never    bool  // the false schema
	kinds    kinds // allowed types; 0: any
	props    map[string]*schemaNode
	names    []string // the non-deprecated property names, sorted (did-you-mean)
	required []string
	closed   bool        // additionalProperties false
	extra    *schemaNode // additionalProperties as a schema
	items    *schemaNode
	enum     []any // decoded values: string, float64, bool, nil, or JSON text of others
	enumText string
	minLen   int // -1: unset
	maxLen   int
	minimum  *float64
	maximum  *float64
	exclMin  *float64
	exclMax  *float64
	minItems int
	maxItems int
	minProps int
	maxProps int
	pattern  *regexp.Regexp
	anyOf    []*schemaNode
	oneOf    []*schemaNode
}

// simple reports whether only the type of a value matters: it can be
// skipped over once its first byte is checked.
func (n *schemaNode) simple() bool {
	return !n.never && n.props == nil && len(n.required) == 0 && !n.closed && n.extra == nil && n.items == nil &&
		n.enum == nil && n.minLen < 0 && n.maxLen < 0 && n.minimum == nil && n.maximum == nil && n.exclMin == nil &&
		n.exclMax == nil && n.minItems < 0 && n.maxItems < 0 && n.minProps < 0 && n.maxProps < 0 && n.pattern == nil &&
		n.anyOf == nil && n.oneOf == nil
}

// annotations are keywords that never fail a value.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "deprecated": true, "examples": true, "format": true,
	"$comment": true, "readOnly": true, "writeOnly": true, "contentEncoding": true, "contentMediaType": true,
	"$schema": true, "$id": true,
}

// compileNode compiles a decoded JSON Schema (a map, or true / false).
func compileNode(s any, at string) (*schemaNode, error) {
	n := &schemaNode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	switch v := s.(type) {
	case bool:
		n.never = !v
		return n, nil
	case map[string]any:
		return n, n.compile(v, at)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean, got %T", at, s)
}

func (n *schemaNode) compile(m map[string]any, at string) error {
	for k, v := range m {
		var err error
		switch k {
		case "type":
			err = n.compileType(v)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: properties must be an object", at)
			}
			n.props = make(map[string]*schemaNode, len(props))
			for name, p := range props {
				c, err := compileNode(p, at+".properties."+name)
				if err != nil {
					return err
				}
				n.props[name] = c
				if pm, _ := p.(map[string]any); pm["deprecated"] != true {
					n.names = append(n.names, name)
				}
			}
			sort.Strings(n.names)
		case "required":
			n.required, err = stringList(v)
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				n.closed = !b
				continue
			}
			n.extra, err = compileNode(v, at+".additionalProperties")
		case "items":
			n.items, err = compileNode(v, at+".items")
		case "enum", "const":
			vals, ok := v.([]any)
			if k == "const" {
				vals, ok = []any{v}, true
			}
			if !ok {
				return fmt.Errorf("%s: enum must be an array", at)
			}
			n.enum = make([]any, len(vals))
			texts := make([]string, len(vals))
			for i, e := range vals {
				b, err := json.Marshal(e)
				if err != nil {
					return fmt.Errorf("%s: enum: %v", at, err)
				}
				texts[i] = string(b)
				switch e.(type) {
				case string, float64, bool, nil:
					n.enum[i] = e
				default:
					n.enum[i] = jsonText(compactJSON(b))
				}
			}
			n.enumText = strings.Join(texts, ", ")
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			f, ok := number(v)
			if !ok || f < 0 || f != math.Trunc(f) {
				return fmt.Errorf("%s: %s must be a non-negative integer", at, k)
			}
			switch k {
			case "minLength":
				n.minLen = int(f)
			case "maxLength":
				n.maxLen = int(f)
			case "minItems":
				n.minItems = int(f)
			case "maxItems":
				n.maxItems = int(f)
			case "minProperties":
				n.minProps = int(f)
			default:
				n.maxProps = int(f)
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			f, ok := number(v)
			if !ok {
				return fmt.Errorf("%s: %s must be a number", at, k)
			}
			switch k {
			case "minimum":
				n.minimum = &f
			case "maximum":
				n.maximum = &f
			case "exclusiveMinimum":
				n.exclMin = &f
			default:
				n.exclMax = &f
			}
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s: pattern must be a string", at)
			}
			if n.pattern, err = regexp.Compile(p); err != nil {
				return fmt.Errorf("%s: pattern: %v", at, err)
			}
		case "anyOf", "oneOf":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return fmt.Errorf("%s: %s must be a non-empty array", at, k)
			}
			subs := make([]*schemaNode, len(list))
			for i, s := range list {
				if subs[i], err = compileNode(s, fmt.Sprintf("%s.%s.%d", at, k, i)); err != nil {
					return err
				}
			}
			if k == "anyOf" {
				n.anyOf = subs
			} else {
				n.oneOf = subs
			}
		default:
			if !annotations[k] {
				return fmt.Errorf("%s: keyword %q is not supported by the argument validator", at, k)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %v", at, k, err)
		}
	}
	return nil
}

func (n *schemaNode) compileType(v any) error {
	names, err := stringList(v)
	if s, ok := v.(string); ok {
		names, err = []string{s}, nil
	}
	if err != nil {
		return err
	}
	for _, name := range names {
		k, ok := kindOf(name)
		if !ok {
			return fmt.Errorf("unknown type %q", name)
		}
		n.kinds |= k
	}
	return nil
}

func stringList(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return l, nil
	case []any:
		out := make([]string, len(l))
		for i, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("want a list of strings")
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of strings")
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsonText is the compact JSON of an enum value that is an array or object.
type jsonText string

func compactJSON(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}

// path is the field path of a value, rendered only for an error: keys and
// indexes joined by dots ("inputs.0.name"), as the messages name fields.
type path struct {
	parent *path
	key    []byte // a key as written (escapes kept), or nil for an index
	index  int
}

func (p *path) String() string {
	if p == nil {
		return ""
	}
	var segs []string
	for q := p; q != nil; q = q.parent {
		if q.key != nil {
			segs = append(segs, string(q.key))
		} else {
			segs = append(segs, strconv.Itoa(q.index))
		}
	}
	slices.Reverse(segs)
	return strings.Join(segs, ".")
}

// checker validates one JSON text (already known to be valid JSON).
type checker struct {
	data []byte
	errs []string
	// top: the arguments object itself, whose null members count as absent
	top bool
}

func (c *checker) fail(p *path, msg string) {
	field := p.String()
	if field == "" {
		field = "(arguments)"
	}
	c.errs = append(c.errs, field+": "+msg)
}

func (c *checker) ws(i int) int {
	for i < len(c.data) {
		switch c.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index after the string starting at i.
func (c *checker) stringEnd(i int) int {
	for j := i + 1; j < len(c.data); j++ {
		switch c.data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(c.data)
}

// skip returns the index after the value starting at i.
func (c *checker) skip(i int) int {
	switch c.data[i] {
	case '"':
		return c.stringEnd(i)
	case '{', '[':
		depth := 0
		for j := i; j < len(c.data); j++ {
			switch c.data[j] {
			case '"':
				j = c.stringEnd(j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(c.data)
	}
	j := i
	for j < len(c.data) {
		switch c.data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// members calls fn for each member of the object starting at i (its key
// as written, and where its value starts) and returns the index after
// the object. fn returns the index after the value.
func (c *checker) members(i int, fn func(key []byte, escaped bool, v int) int) int {
	i = c.ws(i + 1)
	for i < len(c.data) && c.data[i] != '}' {
		end := c.stringEnd(i)
		key := c.data[i+1 : end-1]
		escaped := bytes.IndexByte(key, '\\') >= 0
		i = c.ws(end)
		i = c.ws(i + 1) // ':'
		i = c.ws(fn(key, escaped, i))
		if i < len(c.data) && c.data[i] == ',' {
			i = c.ws(i + 1)
		}
	}
	return i + 1
}

// kindAt is the JSON type of the value starting at i (an integral number
// is an integer).
func (c *checker) kindAt(i, end int) kinds {
	switch c.data[i] {
	case '"':
		return kString
	case '{':
		return kObject
	case '[':
		return kArray
	case 't', 'f':
		return kBoolean
	case 'n':
		return kNull
	}
	if f, err := strconv.ParseFloat(string(c.data[i:end]), 64); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
		return kInteger
	}
	return kNumber
}

func kindName(k kinds) string {
	if k == kInteger {
		return "integer"
	}
	return k.String()
}

// check validates the value starting at i against n and returns the index
// after it.
func (c *checker) check(n *schemaNode, i int, p *path) int {
	end := c.skip(i)
	if n.never {
		c.fail(p, "no value is allowed here")
		return end
	}
	k := c.kindAt(i, end)
	if n.kinds != 0 && n.kinds&k == 0 && !(k == kInteger && n.kinds&kNumber != 0) {
		c.fail(p, "Invalid type. Expected: "+n.kinds.String()+", given: "+kindName(k))
		return end
	}
	if n.simple() {
		return end
	}
	if n.anyOf != nil || n.oneOf != nil {
		c.alternatives(n, i, p)
	}
	switch k {
	case kObject:
		c.object(n, i, p)
	case kArray:
		c.array(n, i, p)
	case kString:
		c.str(n, i, end, p)
	case kNumber, kInteger:
		c.num(n, i, end, p)
	}
	if n.enum != nil && k != kString {
		c.enumOther(n, i, end, k, p)
	}
	return end
}

func (c *checker) object(n *schemaNode, i int, p *path) {
	var seen []bool
	if len(n.required) > 0 {
		seen = make([]bool, len(n.required))
	}
	top := c.top
	c.top = false
	defer func() { c.top = top }()
	count := 0
	defer func() {
		if n.minProps >= 0 && count < n.minProps {
			c.fail(p, fmt.Sprintf("must have at least %d key(s), has %d", n.minProps, count))
		}
		if n.maxProps >= 0 && count > n.maxProps {
			c.fail(p, fmt.Sprintf("must have at most %d key(s), has %d", n.maxProps, count))
		}
	}()
	c.members(i, func(key []byte, escaped bool, v int) int {
		if top && c.data[v] == 'n' {
			return c.skip(v) // a null argument counts as absent
		}
		count++
		name := key
		if escaped {
			name = []byte(unescapeKey(key))
		}
		for j, r := range n.required {
			if string(name) == r {
				seen[j] = true
			}
		}
		child := n.props[string(name)]
		switch {
		case child != nil:
			return c.check(child, v, &path{parent: p, key: key})
		case n.closed:
			c.errs = append(c.errs, joinPath(p.String(), string(name))+": unknown argument"+didYouMean(string(name), n.names))
			return c.skip(v)
		case n.extra != nil:
			return c.check(n.extra, v, &path{parent: p, key: key})
		}
		return c.skip(v)
	})
	for j, r := range n.required {
		if !seen[j] {
			c.errs = append(c.errs, joinPath(p.String(), r)+": missing required argument")
		}
	}
}

// unescapeKey decodes a key written with escapes (the bytes between its
// quotes); a key that does not decode is kept as written.
func unescapeKey(key []byte) string {
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
		return string(key)
	}
	return s
}

func (c *checker) array(n *schemaNode, i int, p *path) {
	count := 0
	top := c.top
	c.top = false
	j := c.ws(i + 1)
	for j < len(c.data) && c.data[j] != ']' {
		if n.items != nil {
			j = c.check(n.items, j, &path{parent: p, index: count})
		} else {
			j = c.skip(j)
		}
		count++
		j = c.ws(j)
		if j < len(c.data) && c.data[j] == ',' {
			j = c.ws(j + 1)
		}
	}
	c.top = top
	if n.minItems >= 0 && count < n.minItems {
		c.fail(p, fmt.Sprintf("must have at least %d item(s), has %d", n.minItems, count))
	}
	if n.maxItems >= 0 && count > n.maxItems {
		c.fail(p, fmt.Sprintf("must have at most %d item(s), has %d", n.maxItems, count))
	}
}

func (c *checker) str(n *schemaNode, i, end int, p *path) {
	if n.enum == nil && n.minLen < 0 && n.maxLen < 0 && n.pattern == nil {
		return
	}
	raw := c.data[i+1 : end-1]
	s := string(raw)
	if bytes.IndexByte(raw, '\\') >= 0 {
		_ = json.Unmarshal(c.data[i:end], &s)
	}
	if n.enum != nil && !slices.Contains(n.enum, any(s)) {
		c.fail(p, "must be one of "+n.enumText)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			c.fail(p, fmt.Sprintf("must be at least %d character(s) long", n.minLen))
		}
		if n.maxLen >= 0 && l > n.maxLen {
			c.fail(p, fmt.Sprintf("must be at most %d character(s) long", n.maxLen))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		c.fail(p, "does not match the pattern "+n.pattern.String())
	}
}

func (c *checker) num(n *schemaNode, i, end int, p *path) {
	f, err := strconv.ParseFloat(string(c.data[i:end]), 64)
	if err != nil {
		c.fail(p, "not a number the validator can read")
		return
	}
	fmtF := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if n.minimum != nil && f < *n.minimum {
		c.fail(p, "must be greater than or equal to "+fmtF(*n.minimum))
	}
	if n.maximum != nil && f > *n.maximum {
		c.fail(p, "must be less than or equal to "+fmtF(*n.maximum))
	}
	if n.exclMin != nil && f <= *n.exclMin {
		c.fail(p, "must be greater than "+fmtF(*n.exclMin))
	}
	if n.exclMax != nil && f >= *n.exclMax {
		c.fail(p, "must be less than "+fmtF(*n.exclMax))
	}
}

func (c *checker) enumOther(n *schemaNode, i, end int, k kinds, p *path) {
	var v any
	switch k {
	case kNumber, kInteger:
		f, _ := strconv.ParseFloat(string(c.data[i:end]), 64)
		v = f
	case kBoolean:
		v = c.data[i] == 't'
	case kNull:
		v = nil
	default:
		v = jsonText(compactJSON(c.data[i:end]))
	}
	if !slices.Contains(n.enum, v) {
		c.fail(p, "must be one of "+n.enumText)
	}
}

// alternatives checks anyOf (one must pass) and oneOf (exactly one).
func (c *checker) alternatives(n *schemaNode, i int, p *path) {
	pass := func(alts []*schemaNode) (int, []string) {
		passed := 0
		var first []string
		for _, a := range alts {
			sub := &checker{data: c.data, top: c.top}
			sub.check(a, i, p)
			if len(sub.errs) == 0 {
				passed++
			} else if first == nil {
				first = sub.errs
			}
		}
		return passed, first
	}
	if n.anyOf != nil {
		if passed, first := pass(n.anyOf); passed == 0 {
			c.fail(p, "matches none of the allowed forms (first: "+strings.Join(first, "; ")+")")
		}
	}
	if n.oneOf != nil {
		switch passed, first := pass(n.oneOf); {
		case passed == 0:
			c.fail(p, "matches none of the allowed forms (first: "+strings.Join(first, "; ")+")")
		case passed > 1:
			c.fail(p, "matches more than one of the allowed forms")
		}
	}
}

// validateRaw checks raw, a valid JSON object, against the arguments
// schema root and returns every problem, sorted, each starting with its
// field path. Top-level nulls count as absent.
func validateRaw(root *schemaNode, raw []byte) []string {
	c := &checker{data: raw, top: true}
	c.check(root, c.ws(0), nil)
	sort.Strings(c.errs)
	return c.errs
}

// topMembers calls fn for each top-level member of raw, a valid JSON
// object (nulls included), with the key decoded and the value's bytes.
func topMembers(raw []byte, fn func(key string, val []byte)) {
	c := &checker{data: raw}
	i := c.ws(0)
	if i >= len(raw) || raw[i] != '{' {
		return
	}
	c.members(i, func(key []byte, escaped bool, v int) int {
		end := c.skip(v)
		name := string(key)
		if escaped {
			name = unescapeKey(key)
		}
		fn(name, raw[v:end])
		return end
	})
}

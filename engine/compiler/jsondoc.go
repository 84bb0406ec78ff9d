package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The encoded definition, read in place.
//
// The readiness gate looks at the definition as SageMaker reads it: its
// JSON. It used to encode the definition and decode it into generic maps
// to walk it, twice, then the caller encoded it again for the answer:
// half of every compile. Now the compile encodes the definition once
// (Result.JSON returns those bytes) and the checks read that text through
// a jsonDoc: one flat list of nodes pointing into it, with no map, no
// boxed value and no copy of a string without escapes.

// docKind is the kind of a JSON value.
type docKind uint8

const (
	docNull docKind = iota
	docFalse
	docTrue
	docNumber
	docString
	docArray
	docObject
)

// jsonNode is one value of a jsonDoc. Nodes are in document order; an
// object's members are its key (a string node) then its value.
type jsonNode struct {
	kind       docKind
	escaped    bool  // a string with escapes (its text must be decoded)
	n          int32 // the elements of an array, the members of an object
	start, end int32 // the value's text; a string's between its quotes
	next       int32 // the node after this value and everything in it
}

// jsonDoc is a JSON text and its nodes; node 0 is the top value.
type jsonDoc struct {
	text  string
	nodes []jsonNode
	// repeatedKeys says an object may repeat a key (a text from elsewhere);
	// encoding/json never writes one twice.
	repeatedKeys bool
}

var errJSONSyntax = errors.New("malformed JSON")

// parseJSONDoc reads a JSON text. It accepts what json.Valid accepts (a
// caller with untrusted text checks that first, for encoding/json's error
// messages) and fails on most of what it does not.
func parseJSONDoc(text string) (*jsonDoc, error) {
	d := &jsonDoc{text: text, nodes: make([]jsonNode, 0, len(text)/12)}
	p := jsonParser{d: d}
	if err := p.value(0); err != nil {
		return nil, err
	}
	if p.skipSpace(); p.pos != len(text) {
		return nil, errJSONSyntax
	}
	return d, nil
}

type jsonParser struct {
	d   *jsonDoc
	pos int
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.d.text) {
		switch p.d.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) error {
	if depth > 10000 {
		return errJSONSyntax
	}
	p.skipSpace()
	t := p.d.text
	if p.pos >= len(t) {
		return errJSONSyntax
	}
	at := len(p.d.nodes)
	start := p.pos
	p.d.nodes = append(p.d.nodes, jsonNode{})
	nd := jsonNode{start: int32(start)}
	switch c := t[p.pos]; {
	case c == '"':
		s, escaped, err := p.str()
		if err != nil {
			return err
		}
		nd = jsonNode{kind: docString, escaped: escaped, start: int32(s), end: int32(p.pos - 1)}
	case c == '{' || c == '[':
		kind, closing := docArray, byte(']')
		if c == '{' {
			kind, closing = docObject, '}'
		}
		p.pos++
		n := int32(0)
		p.skipSpace()
		if p.pos < len(t) && t[p.pos] == closing {
			p.pos++
		} else {
			for {
				if kind == docObject {
					p.skipSpace()
					if p.pos >= len(t) || t[p.pos] != '"' {
						return errJSONSyntax
					}
					if err := p.value(depth + 1); err != nil { // the key
						return err
					}
					p.skipSpace()
					if p.pos >= len(t) || t[p.pos] != ':' {
						return errJSONSyntax
					}
					p.pos++
				}
				if err := p.value(depth + 1); err != nil {
					return err
				}
				n++
				p.skipSpace()
				if p.pos >= len(t) {
					return errJSONSyntax
				}
				if t[p.pos] == ',' {
					p.pos++
					continue
				}
				if t[p.pos] != closing {
					return errJSONSyntax
				}
				p.pos++
				break
			}
		}
		nd = jsonNode{kind: kind, n: n, start: int32(start), end: int32(p.pos)}
	case c == 't' && strings.HasPrefix(t[p.pos:], "true"):
		p.pos += 4
		nd.kind, nd.end = docTrue, int32(p.pos)
	case c == 'f' && strings.HasPrefix(t[p.pos:], "false"):
		p.pos += 5
		nd.kind, nd.end = docFalse, int32(p.pos)
	case c == 'n' && strings.HasPrefix(t[p.pos:], "null"):
		p.pos += 4
		nd.kind, nd.end = docNull, int32(p.pos)
	case c == '-' || c >= '0' && c <= '9':
		p.pos++
		for p.pos < len(t) {
			if c := t[p.pos]; c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
				p.pos++
				continue
			}
			break
		}
		nd.kind, nd.end = docNumber, int32(p.pos)
	default:
		return errJSONSyntax
	}
	nd.next = int32(len(p.d.nodes))
	p.d.nodes[at] = nd
	return nil
}

// str reads a string from its opening quote; start is the first byte of
// its content, escaped whether it has escapes.
func (p *jsonParser) str() (start int, escaped bool, err error) {
	t := p.d.text
	p.pos++
	start = p.pos
	nonASCII := false
	for p.pos < len(t) {
		c := t[p.pos]
		switch {
		case c == '"':
			p.pos++
			// invalid UTF-8 decodes to U+FFFD: such a string is decoded too
			return start, escaped || nonASCII && !utf8.ValidString(t[start:p.pos-1]), nil
		case c == '\\':
			escaped = true
			p.pos += 2
			continue
		case c < 0x20:
			return 0, false, errJSONSyntax
		case c >= 0x80:
			nonASCII = true
		}
		p.pos++
	}
	return 0, false, errJSONSyntax
}

// jv is one value of a jsonDoc; the zero jv (no doc) is an absent value.
type jv struct {
	d *jsonDoc
	i int32
}

func (v jv) node() *jsonNode { return &v.d.nodes[v.i] }

func (v jv) kind() docKind {
	if v.d == nil {
		return docNull
	}
	return v.node().kind
}

func (v jv) isArray() bool  { return v.kind() == docArray }
func (v jv) isObject() bool { return v.kind() == docObject }

// str returns a string value (decoded); ok is false for any other kind.
func (v jv) str() (string, bool) {
	if v.kind() != docString {
		return "", false
	}
	nd := v.node()
	s := v.d.text[nd.start:nd.end]
	if nd.escaped {
		var out string
		if json.Unmarshal([]byte(v.d.text[nd.start-1:nd.end+1]), &out) != nil {
			return "", false
		}
		s = out
	}
	return s, true
}

// raw is the value's text as written (a string's without its quotes).
func (v jv) raw() string {
	nd := v.node()
	return v.d.text[nd.start:nd.end]
}

// text is the value's text as written, a string's quotes included.
func (v jv) text() string {
	if v.d == nil {
		return ""
	}
	nd := v.node()
	if nd.kind == docString {
		return v.d.text[nd.start-1 : nd.end+1]
	}
	return v.d.text[nd.start:nd.end]
}

// len is the number of elements of an array.
func (v jv) len() int {
	if !v.isArray() {
		return 0
	}
	return int(v.node().n)
}

// jsonIter steps through the elements of an array or the members of an
// object without a callback (the walks over every value of a definition
// use it: a closure per value was most of what they allocated).
type jsonIter struct {
	d    *jsonDoc
	c    int32 // the next element, or the next member's key
	left int32
}

// iter starts on the elements or members of v (none for another kind).
func (v jv) iter() jsonIter {
	if k := v.kind(); k != docArray && k != docObject {
		return jsonIter{}
	}
	return jsonIter{d: v.d, c: v.i + 1, left: v.node().n}
}

// nextElem returns the next element of an array.
func (it *jsonIter) nextElem() (jv, bool) {
	if it.left <= 0 {
		return jv{}, false
	}
	e := jv{it.d, it.c}
	it.c = it.d.nodes[it.c].next
	it.left--
	return e, true
}

// nextMember returns the next member of an object (a repeated key once,
// with its last value, as a decoder keeps it).
func (it *jsonIter) nextMember() (string, jv, bool) {
	for it.left > 0 {
		k, val := it.c, it.c+1
		it.c = it.d.nodes[val].next
		it.left--
		key, _ := jv{it.d, k}.str()
		if it.d.repeatedKeys && it.left > 0 && (jv{d: it.d}).repeats(key, it.c, int(it.left)) {
			continue
		}
		return key, jv{it.d, val}, true
	}
	return "", jv{}, false
}

// elems calls fn with each element of an array, in order.
func (v jv) elems(fn func(i int, e jv)) {
	if !v.isArray() {
		return
	}
	c := v.i + 1
	for i := range int(v.node().n) {
		fn(i, jv{v.d, c})
		c = v.d.nodes[c].next
	}
}

// last is the last element of an array.
func (v jv) last() (jv, bool) {
	var out jv
	v.elems(func(_ int, e jv) { out = e })
	return out, out.d != nil
}

// keyIs reports whether the string node at k is key (decoded).
func (d *jsonDoc) keyIs(k int32, key string) bool {
	nd := &d.nodes[k]
	if !nd.escaped {
		return d.text[nd.start:nd.end] == key
	}
	s, _ := jv{d, k}.str()
	return s == key
}

// get returns an object's member key (the last, when a key repeats, as a
// decoder keeps it); ok is false when there is none.
func (v jv) get(key string) (jv, bool) {
	if !v.isObject() {
		return jv{}, false
	}
	var out jv
	found := false
	c := v.i + 1
	for range int(v.node().n) {
		val := c + 1
		if v.d.keyIs(c, key) {
			if !v.d.repeatedKeys {
				return jv{v.d, val}, true
			}
			out, found = jv{v.d, val}, true
		}
		c = v.d.nodes[val].next
	}
	return out, found
}

// getStr returns an object's member key when it is a string.
func (v jv) getStr(key string) (string, bool) {
	m, ok := v.get(key)
	if !ok {
		return "", false
	}
	return m.str()
}

// getString returns an object's member key when it is a string, else "".
func (v jv) getString(key string) string {
	s, _ := v.getStr(key)
	return s
}

// members calls fn with each member of an object in document order (a
// repeated key once, with its last value, as a decoder keeps it).
func (v jv) members(fn func(key string, m jv)) {
	if !v.isObject() {
		return
	}
	n := int(v.node().n)
	c := v.i + 1
	for i := range n {
		val := c + 1
		next := v.d.nodes[val].next
		key, _ := jv{v.d, c}.str()
		if !v.d.repeatedKeys || i == n-1 || !v.repeats(key, next, n-1-i) {
			fn(key, jv{v.d, val})
		}
		c = next
	}
}

// repeats reports whether key is one of the rest members from node c on.
func (v jv) repeats(key string, c int32, rest int) bool {
	for range rest {
		if v.d.keyIs(c, key) {
			return true
		}
		c = v.d.nodes[c+1].next
	}
	return false
}

// numMembers is the number of distinct keys of an object.
func (v jv) numMembers() int {
	if !v.isObject() {
		return 0
	}
	if !v.d.repeatedKeys {
		return int(v.node().n)
	}
	n := 0
	v.members(func(string, jv) { n++ })
	return n
}

// jsonPath is where a walk is in a value: member keys and array indices,
// rendered only when a check reports something. A walk starts from
// newPath, whose room keeps the appends of a walk from allocating (a path
// is reused for the next sibling: whoever keeps one clones it).
type jsonPath []jsonSeg

func newPath() jsonPath { return make(jsonPath, 0, 32) }

type jsonSeg struct {
	key   string
	index int // -1 for a member
}

func (p jsonPath) key(k string) jsonPath { return append(p, jsonSeg{key: k, index: -1}) }
func (p jsonPath) at(i int) jsonPath     { return append(p, jsonSeg{index: i}) }

// render writes the path after prefix: ".key" for a member, "[i]" for an
// element.
func (p jsonPath) render(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, s := range p {
		if s.index < 0 {
			b.WriteByte('.')
			b.WriteString(s.key)
			continue
		}
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(s.index))
		b.WriteByte(']')
	}
	return b.String()
}

// comparePaths orders paths as a walk visiting members in key order and
// elements in index order reaches them (a path before the paths below it).
func comparePaths(a, b jsonPath) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
		if x.index != y.index {
			return x.index - y.index
		}
	}
	return len(a) - len(b)
}

// walkDocStrings calls fn with every string value under v (keys
// excluded) and its path, in document order.
func walkDocStrings(v jv, path jsonPath, fn func(path jsonPath, text string)) {
	switch v.kind() {
	case docArray:
		it := v.iter()
		for i := 0; ; i++ {
			e, ok := it.nextElem()
			if !ok {
				break
			}
			walkDocStrings(e, path.at(i), fn)
		}
	case docObject:
		it := v.iter()
		for {
			k, m, ok := it.nextMember()
			if !ok {
				break
			}
			walkDocStrings(m, path.key(k), fn)
		}
	case docString:
		s, _ := v.str()
		fn(path, s)
	}
}

// sortedByPath sorts items by their paths (stable: items at one path keep
// their order), the order a walk in key order would have found them.
func sortedByPath[T any](items []T, path func(T) jsonPath) {
	slices.SortStableFunc(items, func(a, b T) int { return comparePaths(path(a), path(b)) })
}

// encodedDefinition is a definition encoded once (compact, as Result.JSON
// writes it) and read in place by the checks that look at its JSON.
type encodedDefinition struct {
	json []byte
	doc  *jsonDoc
	err  error
}

// encodeDefinition encodes def and reads the encoding.
func encodeDefinition(def *Definition) *encodedDefinition {
	e := &encodedDefinition{}
	if e.json, e.err = def.Marshal(false); e.err == nil {
		e.doc, e.err = parseJSONDoc(string(e.json))
	}
	return e
}

// encodeSteps encodes a definition's steps, compact and without escaping
// HTML characters, as Definition.Marshal writes them.
func encodeSteps(steps []Step) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(4096 * (len(steps) + 1)) // about what a step takes: one buffer, no regrowth
	w := json.NewEncoder(&buf)
	w.SetEscapeHTML(false)
	if err := w.Encode(steps); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodeWithSteps encodes def whose Steps encode as steps (encodeSteps):
// what Definition.Marshal writes, with the steps encoded once. Steps is
// the definition's last member; a definition that does not end in it is
// encoded whole.
func encodeWithSteps(def *Definition, steps []byte) *encodedDefinition {
	head := *def
	head.Steps = nil
	b, err := head.Marshal(false)
	if err != nil {
		return &encodedDefinition{err: err}
	}
	const tail = `"Steps":null}`
	if !bytes.HasSuffix(b, []byte(tail)) {
		return encodeDefinition(def)
	}
	b = b[:len(b)-len(tail)]
	out := make([]byte, 0, len(b)+len(`"Steps":`)+len(steps)+1)
	out = append(append(append(append(out, b...), `"Steps":`...), steps...), '}')
	e := &encodedDefinition{json: out}
	e.doc, e.err = parseJSONDoc(string(out))
	return e
}

// root is the definition object.
func (e *encodedDefinition) root() jv { return jv{e.doc, 0} }

// forEachStep calls fn with every step of def and its encoding, in
// Definition.AllSteps order (a Condition's IfSteps and ElseSteps after it).
func (e *encodedDefinition) forEachStep(def *Definition, fn func(s Step, enc jv)) {
	var walk func(steps []Step, enc jv)
	walk = func(steps []Step, enc jv) {
		i := 0
		enc.elems(func(_ int, se jv) {
			if i >= len(steps) {
				return
			}
			s := steps[i]
			i++
			fn(s, se)
			if c, ok := s.Arguments.(*ConditionArguments); ok {
				args, _ := se.get("Arguments")
				ifSteps, _ := args.get("IfSteps")
				walk(c.IfSteps, ifSteps)
				elseSteps, _ := args.get("ElseSteps")
				walk(c.ElseSteps, elseSteps)
			}
		})
	}
	steps, _ := e.root().get("Steps")
	walk(def.Steps, steps)
}

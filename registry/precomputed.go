package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Precomputed holds what start-up would otherwise compute by reflection,
// computed ahead of time (go generate) for a known set of tools: per tool,
// its input schema (SchemaJSON) and its listed output schema
// (ListedOutputSchema), and the Listing of a few known sets of tools (the
// ones a server lists under the usual policies). Each tool's entry is
// keyed by its name and a fingerprint of its argument and data types; a
// tool whose entry is missing or does not match (a caller's own tool, a
// type changed since the entries were generated) is reflected as without
// them. Build it with ParsePrecomputed; give it to Build with
// WithPrecomputed.
type Precomputed struct {
	tools    map[string]precomputedTool
	listings []precomputedListing
}

type precomputedTool struct {
	fingerprint  uint64
	input        json.RawMessage
	listedOutput json.RawMessage
}

// precomputedListing is the Listing of one sequence of tools.
type precomputedListing struct {
	key     uint64   // listingKey of the tools
	names   []string // the tools, in the order NewListing was given them
	shared  json.RawMessage
	shapes  json.RawMessage
	schemas []json.RawMessage // the listed input schemas, in names' order
}

// precomputedHeader starts every precomputed file: a version, so a file of
// another format is refused rather than misread.
const precomputedHeader = "cursus-precomputed-schemas 1"

// BuildOption configures Build.
type BuildOption func(*buildConfig)

type buildConfig struct{ pre *Precomputed }

// WithPrecomputed makes Build use p's entries for the tools they match
// (name and fingerprint), instead of reflecting their schemas. A nil p
// does nothing.
func WithPrecomputed(p *Precomputed) BuildOption {
	return func(c *buildConfig) { c.pre = p }
}

// usePrecomputed gives t its entry of p when one matches; it reports
// whether one did.
func (t *ToolDef) usePrecomputed(p *Precomputed) bool {
	if p == nil {
		return false
	}
	e, ok := p.tools[t.Name]
	if !ok || e.fingerprint != t.fingerprint() {
		return false
	}
	t.pre = p
	t.in.pre = e.input
	t.listedOut.pre = e.listedOutput
	return true
}

// Precomputed reports whether the tool's schemas come from precomputed
// entries (WithPrecomputed) rather than reflection.
func (t *ToolDef) Precomputed() bool { return t.pre != nil }

// listingKey hashes a sequence of tools by name and fingerprint.
func listingKey(tools []*ToolDef) uint64 {
	h := hashInput(nil).num(uint64(len(tools)))
	for _, t := range tools {
		h = h.str(t.Name).num(t.fingerprint())
	}
	return h.sum()
}

// precomputedListingOf returns the Listing of tools from their precomputed
// entries, when every tool has one from the same set and that set holds
// the listing of exactly this sequence.
func precomputedListingOf(tools []*ToolDef) (*Listing, bool) {
	if len(tools) == 0 || tools[0].pre == nil {
		return nil, false
	}
	p := tools[0].pre
	for _, t := range tools {
		if t.pre != p {
			return nil, false
		}
	}
	key := listingKey(tools)
	for i := range p.listings {
		pl := &p.listings[i]
		if pl.key != key || len(pl.names) != len(tools) {
			continue
		}
		same := true
		for j, t := range tools {
			if pl.names[j] != t.Name {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		l := &Listing{schemas: make(map[*ToolDef]json.RawMessage, len(tools)), pre: true}
		if err := json.Unmarshal(pl.shared, &l.Shared); err != nil {
			return nil, false
		}
		if err := json.Unmarshal(pl.shapes, &l.Shapes); err != nil {
			return nil, false
		}
		for j, t := range tools {
			l.schemas[t] = pl.schemas[j]
		}
		return l, true
	}
	return nil, false
}

// Precompute writes the precomputed entries of every tool of r, and the
// listings of each of the given sequences of its tools (as NewListing
// computes them), in the format ParsePrecomputed reads: one line per item,
// its JSON compact. The schemas are reflected here, whether or not r was
// built with precomputed entries. It fails when a schema cannot be
// reflected or a tool of a listing is not r's.
func (r *Registry) Precompute(listings ...[]*ToolDef) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(precomputedHeader + "\n")
	fresh := map[*ToolDef]*ToolDef{}
	for _, t := range r.sorted {
		// A copy without precomputed entries, so the schemas written are
		// reflected from the types as they are now.
		c := t.reflectedCopy()
		fresh[t] = c
		in, err := c.schemaJSON()
		if err != nil {
			return nil, fmt.Errorf("registry: tool %q: %w", t.Name, err)
		}
		out, err := c.listedOutputSchema()
		if err != nil {
			return nil, fmt.Errorf("registry: tool %q: %w", t.Name, err)
		}
		fmt.Fprintf(&b, "tool %s %016x\nin %s\nlisted_out %s\n", t.Name, t.fingerprint(), in, out)
	}
	for _, tools := range listings {
		cs := make([]*ToolDef, len(tools))
		for i, t := range tools {
			if cs[i] = fresh[t]; cs[i] == nil {
				return nil, fmt.Errorf("registry: listing: tool %q is not one of the registry's", t.Name)
			}
		}
		l, err := NewListing(cs)
		if err != nil {
			return nil, err
		}
		shared, err := marshalWire(nonNil(l.Shared))
		if err != nil {
			return nil, err
		}
		shapes, err := marshalWire(nonNil(l.Shapes))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "listing %016x %d\nshared %s\nshapes %s\n", listingKey(tools), len(tools), shared, shapes)
		for _, c := range cs {
			fmt.Fprintf(&b, "listed_in %s %s\n", c.Name, l.InputSchema(c))
		}
	}
	return b.Bytes(), nil
}

// reflectedCopy is a copy of t whose schemas are computed anew (none
// computed yet, no precomputed entries), its outputOf resolved to a copy
// of the same kind.
func (t *ToolDef) reflectedCopy() *ToolDef {
	c := &ToolDef{Spec: t.Spec, Name: t.Name, argType: t.argType, outType: t.outType, argFields: t.argFields, wire: t.wire,
		invoke: t.invoke, markdown: t.markdown, outputFrom: t.outputFrom}
	if t.outputOf != nil {
		c.outputOf = t.outputOf.reflectedCopy()
	}
	return c
}

// schemaJSON is SchemaJSON with the error instead of a panic.
func (t *ToolDef) schemaJSON() (b json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return t.SchemaJSON(), nil
}

// listedOutputSchema is ListedOutputSchema with the error instead of a
// panic.
func (t *ToolDef) listedOutputSchema() (b json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return t.ListedOutputSchema(), nil
}

// ParsePrecomputed reads what Precompute wrote. The bytes are kept, not
// copied: b must not change afterwards. A malformed file is an error
// naming its line.
func ParsePrecomputed(b []byte) (*Precomputed, error) {
	p := &Precomputed{tools: map[string]precomputedTool{}}
	line := 0
	next := func() []byte {
		l, rest, _ := bytes.Cut(b, []byte("\n"))
		b = rest
		line++
		return l
	}
	bad := func(what string) error {
		return fmt.Errorf("registry: precomputed schemas, line %d: %s", line, what)
	}
	// field reads the next line, which must start with the keyword, and
	// returns the rest.
	field := func(keyword string) ([]byte, error) {
		l := next()
		k, rest, ok := bytes.Cut(l, []byte(" "))
		if !ok || string(k) != keyword {
			return nil, bad("want " + keyword)
		}
		return rest, nil
	}
	if string(next()) != precomputedHeader {
		return nil, bad("not a precomputed schemas file (want the header " + strconv.Quote(precomputedHeader) + ")")
	}
	for len(b) > 0 {
		l := next()
		words := bytes.Fields(l)
		switch {
		case len(words) == 3 && string(words[0]) == "tool":
			fp, err := strconv.ParseUint(string(words[2]), 16, 64)
			if err != nil {
				return nil, bad("bad fingerprint")
			}
			in, err := field("in")
			if err != nil {
				return nil, err
			}
			out, err := field("listed_out")
			if err != nil {
				return nil, err
			}
			p.tools[string(words[1])] = precomputedTool{fingerprint: fp, input: in, listedOutput: out}
		case len(words) == 3 && string(words[0]) == "listing":
			key, err := strconv.ParseUint(string(words[1]), 16, 64)
			if err != nil {
				return nil, bad("bad listing key")
			}
			n, err := strconv.Atoi(string(words[2]))
			if err != nil || n < 0 {
				return nil, bad("bad tool count")
			}
			pl := precomputedListing{key: key, names: make([]string, 0, n), schemas: make([]json.RawMessage, 0, n)}
			if pl.shared, err = field("shared"); err != nil {
				return nil, err
			}
			if pl.shapes, err = field("shapes"); err != nil {
				return nil, err
			}
			for range n {
				rest, err := field("listed_in")
				if err != nil {
					return nil, err
				}
				name, schema, ok := bytes.Cut(rest, []byte(" "))
				if !ok {
					return nil, bad("listed_in wants a tool name and a schema")
				}
				pl.names = append(pl.names, string(name))
				pl.schemas = append(pl.schemas, schema)
			}
			p.listings = append(p.listings, pl)
		case len(l) == 0 && len(b) == 0:
		default:
			return nil, bad("want tool or listing")
		}
	}
	return p, nil
}

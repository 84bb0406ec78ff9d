package registry

import (
	"encoding"
	"encoding/binary"
	"encoding/json"
	"hash/crc64"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// hashInput collects the bytes a hash is taken of (CRC-64, ECMA
// polynomial, sum): cheap at start-up (hash/crc64 takes eight bytes a
// step, where FNV takes one; the fields' tags make most of the bytes) and
// stable across processes (the fingerprints are stored in a generated
// file).
type hashInput []byte

func (h hashInput) str(s string) hashInput {
	// The length first, so "ab"+"c" and "a"+"bc" differ.
	return append(h.num(uint64(len(s))), s...)
}

func (h hashInput) num(n uint64) hashInput { return binary.LittleEndian.AppendUint64(h, n) }

func (h hashInput) flag(b bool) hashInput {
	if b {
		return append(h, 1)
	}
	return append(h, 0)
}

func (h hashInput) sum() uint64 { return crc64.Checksum(h, crcTable) }

// crcTable is the ECMA table (MakeTable returns the package's own for it).
var crcTable = crc64.MakeTable(crc64.ECMA)

// schemaInterfaces are the methods that change what reflection makes of a
// type (the schema reflector's hooks, and a type's own JSON encoding,
// which the data outline reads).
var schemaInterfaces = []reflect.Type{
	reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }](),
	reflect.TypeFor[interface{ JSONSchemaExtend(*jsonschema.Schema) }](),
	reflect.TypeFor[interface{ JSONSchemaAlias() any }](),
	reflect.TypeFor[interface{ JSONSchemaProperty(string) any }](),
	reflect.TypeFor[json.Marshaler](),
	reflect.TypeFor[encoding.TextMarshaler](),
}

// How much of a type typeHash reads.
type hashMode uint8

const (
	// hashDeep: a struct's fields and their types, recursively (what the
	// reflected input schema reads).
	hashDeep hashMode = iota
	// hashOutline: a struct's fields, their types at the surface, and the
	// fields of embedded structs, which encoding/json inlines (what the
	// outline of a data type reads).
	hashOutline
	// hashSurface: kind, name and hooks, through pointers, slices, arrays
	// and maps; not a struct's fields.
	hashSurface
)

// typeHash hashes what reflection reads of a type, as far as mode says:
// its kind and name (package path included), the schema hooks it or its
// pointer implements, and a struct's exported or embedded fields (name,
// tag, type); a struct met again on the way down is hashed by name only.
// Two types with the same hash reflect to the same schemas, as far as
// their structure decides; a hook's code is not hashed (a changed
// JSONSchema method is caught by the test that the generated schemas are
// current, not at start-up).
func typeHash(typ reflect.Type, mode hashMode) uint64 {
	hashMu.Lock()
	defer hashMu.Unlock()
	h, _ := typeHashWalk(typ, mode, nil)
	return h
}

// The hashes of types already hashed: a type does not change while the
// process runs, and the tools share many. A hash that cut a cycle depends
// on where the walk entered it and is not kept. hashMu is held for a
// whole walk (typeHash), which takes its bytes from hashScratch: each
// level appends its own after its caller's and gives the space back when
// it returns, so a walk allocates only to grow the one buffer.
var (
	hashMu      sync.Mutex
	hashMemo    = map[hashKey]uint64{}
	hashScratch []byte
)

type hashKey struct {
	typ  reflect.Type
	mode hashMode
}

// typeHashWalk is typeHash; stack holds the structs being hashed, and cut
// reports whether a cycle was cut below typ.
func typeHashWalk(typ reflect.Type, mode hashMode, stack []reflect.Type) (uint64, bool) {
	key := hashKey{typ, mode}
	if memo, ok := hashMemo[key]; ok {
		return memo, false
	}
	h := hashInput(hashScratch)
	start := len(h)
	// done hashes this level's bytes and gives their space back.
	done := func() uint64 {
		sum := h[start:].sum()
		hashScratch = h[:start]
		return sum
	}
	h = h.num(uint64(mode))
	if typ == nil {
		h = h.str("nil")
		return done(), false
	}
	h = h.num(uint64(typ.Kind()))
	if typ.Name() != "" {
		h = h.str(typ.PkgPath()).str(typ.Name())
		// A type without methods (most argument and data types) implements
		// no hook: its methods are not looked up one interface at a time.
		if ptr := reflect.PointerTo(typ); typ.Kind() != reflect.Interface && ptr.NumMethod() > 0 {
			for _, i := range schemaInterfaces {
				h = h.flag(typ.Implements(i)).flag(ptr.Implements(i))
			}
		}
	}
	cut := false
	sub := func(t reflect.Type, m hashMode) {
		hashScratch = h // the level below appends after this level's bytes
		x, c := typeHashWalk(t, m, stack)
		// It may have grown the buffer; it gave back all it appended.
		h = hashInput(hashScratch[:len(h)]).num(x)
		cut = cut || c
	}
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if typ.Kind() == reflect.Array {
			h = h.num(uint64(typ.Len()))
		}
		sub(typ.Elem(), mode)
	case reflect.Map:
		sub(typ.Key(), mode)
		sub(typ.Elem(), mode)
	case reflect.Struct:
		if mode == hashSurface {
			break
		}
		for _, s := range stack {
			if s == typ {
				h = h.str("cycle")
				return done(), true
			}
		}
		stack = append(stack, typ)
		h = h.num(uint64(typ.NumField()))
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			h = h.str(f.Name).str(string(f.Tag)).flag(f.Anonymous)
			switch {
			case mode == hashDeep || f.Anonymous:
				sub(f.Type, mode)
			default:
				sub(f.Type, hashSurface)
			}
		}
	}
	sum := done()
	if !cut {
		hashMemo[key] = sum
	}
	return sum, cut
}

// fingerprint hashes what a tool's precomputed schemas (Precomputed) are
// made from: its argument type (deep: the input schema reflects all of
// it), the data type of its answers (its own, or that of the tool whose
// answers it returns; shallow: the listed output schema outlines the top
// level), and whether it and that tool have a markdown view (which adds
// the format argument and a string to the data). It needs Build to have
// resolved outputOf; it is computed once.
func (t *ToolDef) fingerprint() uint64 {
	t.fpOnce.Do(func() {
		src := t
		if t.outputOf != nil {
			src = t.outputOf
		}
		h := hashInput(nil).num(typeHash(t.argType, hashDeep)).num(typeHash(src.outType, hashOutline))
		t.fp = h.flag(t.markdown != nil).flag(src.markdown != nil).str(src.Name).sum()
	})
	return t.fp
}

// Package jsonsize bounds the size of a value's JSON encoding from below,
// without encoding it: AtLeast walks the value and stops as soon as the
// bound passes a limit, so an answer far over a size cap is refused
// without the memory its encoding would take (encoding/json builds the
// whole text in memory first, several times its size in garbage).
//
// The bound never exceeds the real size: strings count their bytes and
// quotes (escaping only adds), numbers their digits (a json.Number its
// text), struct fields follow the json tags (omitempty fields that are
// empty and "-" fields count nothing) and encoding/json's rules for
// embedded structs (a name shadowed by a shallower field, or taken by
// several at one depth, counts once or not at all), and a value with its
// own MarshalJSON or MarshalText counts nothing at all.
package jsonsize

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	anyMapType        = reflect.TypeFor[map[string]any]()
)

// AtLeast returns a lower bound of the size of v's JSON encoding; once the
// bound passes limit it stops and returns a number over limit.
func AtLeast(v any, limit int64) int64 {
	w := walker{limit: limit}
	w.value(reflect.ValueOf(v), 0)
	return w.n
}

type walker struct {
	n, limit int64
}

func (w *walker) over() bool { return w.n > w.limit }

// maxDepth stops the walk of a cyclic or absurdly deep value (encoding/json
// refuses those anyway).
const maxDepth = 1000

func (w *walker) value(v reflect.Value, depth int) {
	if w.over() || depth > maxDepth {
		return
	}
	if !v.IsValid() {
		w.n += 4 // null
		return
	}
	t := v.Type()
	if (t == anyMapType || t.Kind() == reflect.Interface) && v.CanInterface() && w.dynamic(v.Interface(), depth) {
		return
	}
	if t == rawMessageType || t == numberType {
		w.n += int64(v.Len()) // as written, unquoted
		return
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.Implements(marshalerType) || t.Implements(textMarshalerType)) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			w.n += 4
			return
		}
		if v.Kind() == reflect.Pointer && (t.Implements(marshalerType) || t.Implements(textMarshalerType)) {
			return
		}
		w.value(v.Elem(), depth+1)
	case reflect.Bool:
		w.n += 4
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var buf [24]byte
		w.n += int64(len(strconv.AppendInt(buf[:0], v.Int(), 10)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		var buf [24]byte
		w.n += int64(len(strconv.AppendUint(buf[:0], v.Uint(), 10)))
	case reflect.Float32, reflect.Float64:
		w.n++
	case reflect.String:
		w.n += int64(v.Len()) + 2
	case reflect.Slice:
		if v.IsNil() {
			w.n += 4
			return
		}
		if t.Elem().Kind() == reflect.Uint8 {
			w.n += int64(v.Len())*4/3 + 2 // base64
			return
		}
		w.list(v, depth)
	case reflect.Array:
		w.list(v, depth)
	case reflect.Map:
		if v.IsNil() {
			w.n += 4
			return
		}
		w.n += 2
		it := v.MapRange()
		first := true
		for it.Next() && !w.over() {
			if !first {
				w.n++
			}
			first = false
			if k := it.Key(); k.Kind() == reflect.String {
				w.n += int64(k.Len()) + 3
			} else {
				w.n += 3
			}
			w.value(it.Value(), depth+1)
		}
	case reflect.Struct:
		w.n += 2
		w.fields(v, depth)
	}
}

// dynamic counts the values JSON decoding makes (map[string]any, []any,
// strings, numbers, booleans, null) without reflection, whose map
// iterator allocates for every key and value; it reports false, counting
// nothing, for any other type. The counts are those of value.
func (w *walker) dynamic(x any, depth int) bool {
	switch x := x.(type) {
	case nil:
		w.n += 4
	case string:
		w.n += int64(len(x)) + 2
	case bool:
		w.n += 4
	case float64:
		w.n++
	case json.Number:
		w.n += int64(len(x))
	case map[string]any:
		if x == nil {
			w.n += 4
			return true
		}
		w.n += 2
		first := true
		for k, e := range x {
			if w.over() {
				break
			}
			if !first {
				w.n++
			}
			first = false
			w.n += int64(len(k)) + 3
			w.element(e, depth+1)
		}
	case []any:
		if x == nil {
			w.n += 4
			return true
		}
		w.n += 2
		for i, e := range x {
			if w.over() {
				break
			}
			if i > 0 {
				w.n++
			}
			w.element(e, depth+1)
		}
	default:
		return false
	}
	return true
}

// element counts one element of a map[string]any or []any.
func (w *walker) element(x any, depth int) {
	if w.over() || depth > maxDepth {
		return
	}
	if !w.dynamic(x, depth) {
		w.value(reflect.ValueOf(x), depth)
	}
}

func (w *walker) list(v reflect.Value, depth int) {
	w.n += 2
	for i := 0; i < v.Len() && !w.over(); i++ {
		if i > 0 {
			w.n++
		}
		w.value(v.Index(i), depth+1)
	}
}

// fields counts a struct's encoded fields (embedded structs flattened, as
// typeFields selects them).
func (w *walker) fields(v reflect.Value, depth int) {
	for _, f := range typeFields(v.Type()) {
		if w.over() {
			return
		}
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			continue // inside a nil embedded pointer
		}
		if (strings.Contains(f.opts, "omitempty") && empty(fv)) || (strings.Contains(f.opts, "omitzero") && fv.IsZero()) {
			continue
		}
		w.n += int64(len(f.name)) + 3
		w.value(fv, depth+1)
	}
}

// field is a struct field json may encode: its name and options and its
// index path through the embedded structs.
type field struct {
	name, opts string
	index      []int
}

var fieldCache sync.Map // reflect.Type -> []field

// Field is a field of a struct that encoding/json writes: its JSON name,
// its Go type and whether an empty value is left out (omitempty,
// omitzero).
type Field struct {
	Name      string
	Type      reflect.Type
	OmitEmpty bool
}

// Fields lists the fields encoding/json writes for struct type t, by the
// rules the bound counts them with: the fields of embedded structs
// inlined, a name several fields take from the shallowest, an ambiguous
// one left out.
func Fields(t reflect.Type) []Field {
	fs := typeFields(t)
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.name, Type: t.FieldByIndex(f.index).Type,
			OmitEmpty: strings.Contains(f.opts, "omitempty") || strings.Contains(f.opts, "omitzero")}
	}
	return out
}

// typeFields lists the fields of struct type t that are counted: its own
// and those of the structs it embeds. As encoding/json does, a name that
// several fields take is encoded once, from the shallowest of them, and
// not at all when the shallowest are several (json then keeps a tagged
// one, if one alone is: counting none of them keeps the bound low).
func typeFields(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	all := collect(t, nil, map[reflect.Type]bool{}, nil)
	shallowest := map[string]int{} // name -> the depth of its shallowest fields
	at := map[string]int{}         // name -> how many sit at that depth
	for _, f := range all {
		if d, seen := shallowest[f.name]; !seen || len(f.index) < d {
			shallowest[f.name], at[f.name] = len(f.index), 1
		} else if len(f.index) == d {
			at[f.name]++
		}
	}
	var out []field
	for _, f := range all {
		if len(f.index) == shallowest[f.name] && at[f.name] == 1 {
			out = append(out, f)
		}
	}
	fieldCache.Store(t, out)
	return out
}

// collect lists every field of struct type t at index path at and of the
// structs it embeds, in order. A struct that embeds itself (through a
// pointer) is walked once: its fields further down are all shadowed.
func collect(t reflect.Type, at []int, on map[reflect.Type]bool, out []field) []field {
	if on[t] {
		return out
	}
	on[t] = true
	defer delete(on, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		index := append(slices.Clone(at), i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if pt := reflect.PointerTo(ft); !pt.Implements(marshalerType) && !pt.Implements(textMarshalerType) {
					out = collect(ft, index, on, out)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, opts: opts, index: index})
	}
	return out
}

// fieldByIndex is v's field at index, false when a nil embedded pointer
// lies on the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// empty is encoding/json's omitempty test.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

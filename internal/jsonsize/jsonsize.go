// Package jsonsize bounds the size of a value's JSON encoding from below,
// without encoding it: AtLeast walks the value and stops as soon as the
// bound passes a limit, so an answer far over a size cap is refused
// without the memory its encoding would take (encoding/json builds the
// whole text in memory first, several times its size in garbage).
//
// The bound never exceeds the real size: strings count their bytes and
// quotes (escaping only adds), numbers their digits, struct fields follow
// the json tags (omitempty fields that are empty and "-" fields count
// nothing), and a value with its own MarshalJSON or MarshalText counts
// nothing at all.
package jsonsize

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
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
	if t == rawMessageType {
		w.n += int64(v.Len())
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

func (w *walker) list(v reflect.Value, depth int) {
	w.n += 2
	for i := 0; i < v.Len() && !w.over(); i++ {
		if i > 0 {
			w.n++
		}
		w.value(v.Index(i), depth+1)
	}
}

// fields counts a struct's encoded fields (embedded structs flattened).
func (w *walker) fields(v reflect.Value, depth int) {
	t := v.Type()
	for i := 0; i < t.NumField() && !w.over(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !ft.Implements(marshalerType) {
				w.fields(fv, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if (strings.Contains(opts, "omitempty") && empty(fv)) || (strings.Contains(opts, "omitzero") && fv.IsZero()) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		w.n += int64(len(name)) + 3
		w.value(fv, depth+1)
	}
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

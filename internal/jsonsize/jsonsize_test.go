package jsonsize

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

type inner struct {
	A string `json:"a"`
	B []int  `json:"b,omitempty"`
}

type Embedded struct {
	E string
}

type outer struct {
	Embedded
	Name    string         `json:"name"`
	Skip    string         `json:"-"`
	Opt     string         `json:"opt,omitempty"`
	Zero    time.Time      `json:"zero,omitzero"`
	When    time.Time      `json:"when"`
	Inner   *inner         `json:"inner"`
	List    []inner        `json:"list"`
	Map     map[string]any `json:"map"`
	Raw     json.RawMessage
	Bytes   []byte
	private int
}

type nameA struct{ Name string }
type nameB struct{ Name string }

// ambiguous embeds two structs whose Name fields clash at one depth:
// encoding/json writes neither.
type ambiguous struct {
	nameA
	nameB
	X string `json:"x"`
}

// shadowed has its own Name, which hides the embedded one.
type shadowed struct {
	nameA
	Name string
}

// clashWithNil clashes with the fields of a nil embedded pointer, which
// still hide the Name of nameA.
type clashWithNil struct {
	nameA
	*nameB
}

// chain embeds itself.
type chain struct {
	*chain
	Name string
}

// TestEmbeddingAndNumbers: the fields encoding/json leaves out of an
// embedding (shadowed or ambiguous names) and a json.Number's missing
// quotes are not counted.
func TestEmbeddingAndNumbers(t *testing.T) {
	long := strings.Repeat("a", 50)
	for _, v := range []any{
		ambiguous{nameA{long}, nameB{long}, "x"},
		shadowed{nameA{long}, "n"},
		clashWithNil{nameA: nameA{long}},
		chain{chain: &chain{Name: long}, Name: "n"},
		map[string]any{"n": json.Number("1"), "m": []json.Number{"2", "3.5"}},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AtLeast(v, 1<<40); got > int64(len(b)) {
			t.Errorf("%T: bound %d over the real size %d of %s", v, got, len(b), b)
		}
	}
}

// TestLowerBound: the bound never exceeds the real encoding, over
// generated values of every shape.
func TestLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		v := gen(r, 0)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AtLeast(v, 1<<40); got > int64(len(b)) {
			t.Fatalf("case %d: bound %d over the real size %d for %s", i, got, len(b), b)
		}
	}
	o := outer{Embedded: Embedded{E: "e"}, Name: "n\"q<", Skip: strings.Repeat("s", 100), When: time.Now(), Inner: &inner{A: "x"},
		List: []inner{{A: "y", B: []int{1, -22, 333}}}, Map: map[string]any{"k": []any{1.5, true, nil, "v"}}, Raw: json.RawMessage(`{"r":1}`), Bytes: []byte("hello")}
	b, _ := json.Marshal(o)
	got := AtLeast(o, 1<<40)
	if got > int64(len(b)) || got < int64(len(b))/2 {
		t.Errorf("bound %d for %d bytes: %s", got, len(b), b)
	}
}

// TestDecodedValuesExact: for what JSON decoding makes (maps, lists,
// strings without escapes, true, null, json.Number), counted without
// reflection, the bound is the exact size, at the top or inside an
// interface or a struct field (a struct's commas are not counted: two
// here).
func TestDecodedValuesExact(t *testing.T) {
	doc := map[string]any{
		"s": "abc", "b": true, "z": nil, "n": json.Number("-12.5e3"),
		"list": []any{"x", map[string]any{}, []any{}, []string{"p", "q"}, []string{}, map[string]any{"deep": []any{nil, "y"}}},
		"strs": []string{"one", "two", "three"}, "none": []any(nil), "nomap": map[string]any(nil), "nostrs": []string(nil),
	}
	type holder struct {
		Any  any            `json:"any"`
		Map  map[string]any `json:"map"`
		List []any          `json:"list"`
	}
	for _, c := range []struct {
		v     any
		slack int64
	}{{doc, 0}, {holder{Any: doc, Map: doc, List: []any{doc, "w"}}, 2}, {[]any{doc, doc}, 0}} {
		v := c.v
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AtLeast(v, 1<<40); got != int64(len(b))-c.slack {
			t.Errorf("%T: bound %d, want the exact size %d of %s", v, got, len(b), b)
		}
	}
}

// TestStopsEarly: a value far over the limit is cut short.
func TestStopsEarly(t *testing.T) {
	big := make([]string, 1_000_000)
	for i := range big {
		big[i] = "0123456789"
	}
	if got := AtLeast(map[string]any{"x": big}, 1000); got <= 1000 || got > 2000 {
		t.Errorf("bound %d: want just over the 1000 limit", got)
	}
	anyBig := make([]any, len(big))
	for i := range big {
		anyBig[i] = big[i]
	}
	if got := AtLeast(map[string]any{"x": anyBig}, 1000); got <= 1000 || got > 2000 {
		t.Errorf("bound %d of a []any: want just over the 1000 limit", got)
	}
}

func gen(r *rand.Rand, depth int) any {
	k := r.IntN(9)
	if depth > 4 {
		k = r.IntN(4)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.NormFloat64() * 1e6
	case 3:
		return strings.Repeat("é\"<\\", r.IntN(5))
	case 4:
		out := []any{}
		for range r.IntN(5) {
			out = append(out, gen(r, depth+1))
		}
		return out
	case 5:
		m := map[string]any{}
		for j := range r.IntN(5) {
			m[strings.Repeat("k", j+1)] = gen(r, depth+1)
		}
		return m
	case 6:
		return outer{Name: "x", List: []inner{{A: "a"}}, Map: map[string]any{"z": gen(r, depth+1)}}
	case 7:
		return &inner{A: "p", B: []int{r.IntN(1000) - 500}}
	default:
		return int64(r.Uint64() >> 1)
	}
}

package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestLocateSyntaxError(t *testing.T) {
	data := []byte("{\n  \"nodes\": [\"a\",\n  \"b\"\n  \"edges\": []\n}")
	var v any
	err := Unmarshal(data, &v)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("not located: %v", err)
	}
	// the offending byte is the quote that opens "edges" on line 4, column 3
	if pe.Line != 4 || pe.Column != 3 {
		t.Errorf("position %d:%d, want 4:3 (%v)", pe.Line, pe.Column, err)
	}
	if !strings.HasPrefix(err.Error(), "line 4, column 3 (byte ") {
		t.Errorf("message: %v", err)
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Error("the syntax error is not kept")
	}
}

func TestLocateTypeAndEOF(t *testing.T) {
	var v struct {
		N int `json:"n"`
	}
	err := Unmarshal([]byte(`{"n": "x"}`), &v)
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("type error: %v", err)
	}
	err = Unmarshal([]byte("{\"n\": 1,\n"), &v)
	if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), "unexpected end") {
		t.Fatalf("truncated: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(`{"a": [1, 2`))
	var x any
	derr := dec.Decode(&x)
	if err := Locate([]byte(`{"a": [1, 2`), derr); !errors.As(err, &pe) || pe.Offset != 10 {
		t.Fatalf("decoder EOF: %v", err)
	}
	other := errors.New("disk on fire")
	if Locate(nil, other) != other || Locate(nil, nil) != nil {
		t.Error("other errors must pass through")
	}
	if again := Locate(nil, err); again != err {
		t.Error("a located error is located twice")
	}
}

func TestTrailing(t *testing.T) {
	data := []byte("{}\n  [1]")
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var pe *Error
	if err := Trailing(data, dec); !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 3 || pe.Offset != 5 {
		t.Errorf("trailing: %v", err)
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncd\n")
	for _, c := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2}, {99, 2, 3}, {-1, 1, 1}} {
		if l, col := Position(data, c.off); l != c.line || col != c.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}

package envelope_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
)

type point struct {
	X int    `json:"x"`
	L string `json:"label"`
}

func TestTypedResult(t *testing.T) {
	r := envelope.Success(point{1, "a -> b"}).WithWarnings("w").WithMeta("tool", "demo.point")
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"ok":true,"data":{"x":1,"label":"a -> b"},"warnings":["w"],"meta":{"tool":"demo.point"}}` {
		t.Errorf("wire form (no HTML escaping): %s", b)
	}
	u := r.Untyped()
	if p, ok := u.Data.(point); !ok || p.X != 1 || u.Meta["tool"] != "demo.point" {
		t.Errorf("untyped keeps the Go value: %+v", u)
	}
	if ub, _ := json.Marshal(u); !strings.Contains(string(ub), `"x":1`) {
		t.Errorf("untyped wire form: %s", ub)
	}
	var any1 *envelope.ToolResult = envelope.OK(1)
	if any1.Untyped() != any1 {
		t.Error("Untyped of a ToolResult is itself")
	}
	var back envelope.Result[point]
	if err := json.Unmarshal(b, &back); err != nil || back.Data.L != "a -> b" || !back.OK {
		t.Errorf("typed read-back: %v %+v", err, back)
	}
}

func TestAsAndDecode(t *testing.T) {
	u := envelope.Success(point{2, "p"}).Untyped()
	if p, err := envelope.As[point](u); err != nil || p.X != 2 {
		t.Errorf("As of the Go value: %v", err)
	}
	if _, err := envelope.As[string](u); err == nil || !strings.Contains(err.Error(), "envelope_test.point") {
		t.Errorf("As of another type: %v", err)
	}
	// from the wire: data is generic JSON
	var wire envelope.ToolResult
	_ = json.Unmarshal([]byte(`{"ok":true,"data":{"x":3,"label":"q"}}`), &wire)
	if p, err := envelope.As[point](&wire); err != nil || p.X != 3 {
		t.Errorf("As of wire data: %v %+v", err, p)
	}
	// a Go value of another type converts only with Decode
	other := envelope.OK(struct {
		X int `json:"x"`
	}{4})
	if _, err := envelope.As[point](other); err == nil {
		t.Error("As converted a Go value of another type")
	}
	if p, err := envelope.Decode[point](other); err != nil || p.X != 4 {
		t.Errorf("Decode: %v %+v", err, p)
	}
	fail := envelope.FromError(envelope.NotFound("no %s", "x").WithDetails("k", 1).WithRemedy("look", "a.b"))
	_, err := envelope.As[point](fail)
	var te *envelope.ToolError
	if !errors.As(err, &te) || te.Code != envelope.CodeNotFound || te.Details["k"] != 1 || te.Remedy.SuggestedTools[0] != "a.b" {
		t.Errorf("a failure's error: %v", err)
	}
	md := envelope.OK("# view").WithMeta("format", "markdown")
	if _, err := envelope.As[point](md); err == nil || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("markdown view: %v", err)
	}
}

func TestPartialAndCodes(t *testing.T) {
	p := envelope.Partial("half done", envelope.CodeUpsertPartial, point{X: 5})
	b, _ := p.MarshalJSON()
	if string(b) != `{"ok":false,"data":{"x":5,"label":""},"error":"half done","code":"upsert_partial"}` {
		t.Errorf("partial: %s", b)
	}
	if b, _ := envelope.Fail("x", "").MarshalJSON(); string(b) != `{"ok":false,"error":"x","code":"tool_error"}` {
		t.Errorf("failure without data: %s", b)
	}
	for _, c := range envelope.AllCodes {
		if !c.Known() || c.String() != string(c) {
			t.Errorf("code %q", c)
		}
	}
	if envelope.Code("nope").Known() {
		t.Error("an unknown code is known")
	}
	if e := envelope.Errorf(envelope.CodeNotFound, "x"); e.Error() != "not_found: x" {
		t.Errorf("ToolError.Error: %q", e.Error())
	}
}

// selfWriter is data that writes its own JSON (JSONWriter).
type selfWriter struct {
	json string
	err  error
}

func (s selfWriter) WriteJSON(b *bytes.Buffer) error {
	if s.err != nil {
		return s.err
	}
	b.WriteString(s.json)
	return nil
}

// Data that is a JSONWriter is written as it writes itself, in a success
// and as a failure's data; its error fails the encoding, naming the key.
func TestJSONWriterData(t *testing.T) {
	ok := envelope.OK(selfWriter{json: `{"a":[1,2]}`}).WithMeta("tool", "x")
	b, err := ok.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ok":true,"data":{"a":[1,2]},"meta":{"tool":"x"}}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	fail := envelope.Fail("no", envelope.CodeInvalidInput)
	fail.Data = selfWriter{json: `{"partial":true}`}
	if b, err = fail.MarshalJSON(); err != nil || !bytes.Contains(b, []byte(`"data":{"partial":true}`)) {
		t.Fatalf("failure: %s, %v", b, err)
	}
	_, err = envelope.OK(selfWriter{err: errors.New("boom")}).MarshalJSON()
	if err == nil || !strings.Contains(err.Error(), "data: boom") {
		t.Fatalf("err = %v, want the writer's error under data", err)
	}
}

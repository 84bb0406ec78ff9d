package server

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
)

// sdkFrame is the line the SDK writes for the response of a call whose
// handler returned toResult(res, wire): the result marshalled as
// jsonrpc2 does (json.Marshal), then the message encoded.
func sdkFrame(t *testing.T, id jsonrpc.ID, res *envelope.ToolResult, wire []byte) []byte {
	t.Helper()
	result, err := json.Marshal(toResult(res, wire))
	if err != nil {
		t.Fatal(err)
	}
	frame, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
	if err != nil {
		t.Fatal(err)
	}
	return append(frame, '\n')
}

// TestHeldResultIsTheSDKEncoding: the line a held result is written as is
// byte for byte the line the SDK writes for the same result, for
// successes and failures, HTML characters, U+2028, non-ASCII text, and
// number and string ids (one needing escapes).
func TestHeldResultIsTheSDKEncoding(t *testing.T) {
	ctx := context.Background()
	reg := cursus.Registry()
	type answer struct {
		res  *envelope.ToolResult
		wire []byte
	}
	var cases []answer
	for _, c := range []struct {
		tool string
		args string
	}{
		{"tools.describe_tool", `{"name":"catalog.search"}`},
		{"tools.help", `{}`},
		{"tools.describe_tool", `{"name":"catalog.serch"}`},
		{"catalog.search", `{"query":"xgboost"}`},
		{"dag.validate_integrity", `{"dag":{"nodes":["a"],"edges":[["a","b"]]}}`},
	} {
		res, wire := reg.CallJSON(ctx, c.tool, json.RawMessage(c.args))
		cases = append(cases, answer{res, wire})
	}
	odd := envelope.OK(map[string]any{"html": "<a href=\"x\">&amp;</a>", "sep": "line\u2028para\u2029", "text": "été — 日本", "ctl": "tab\tnl\n"})
	for _, res := range []*envelope.ToolResult{odd, envelope.Fail("failed: <b> & \u2028", envelope.CodeInvalidInput)} {
		wire, err := res.MarshalJSON() // as the registry encodes: HTML characters not escaped
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, answer{res, wire})
	}
	ids := []jsonrpc.ID{}
	for _, v := range []any{float64(7), float64(0), "a-string", "quote\" <tag> & \u2028"} {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i, c := range cases {
		res, wire := c.res, c.wire
		if !bytes.ContainsAny(wire, "<>&") && i >= len(cases)-2 {
			t.Fatalf("case %d: the wire escapes HTML characters already: %s", i, wire)
		}
		for _, id := range ids {
			got, err := responseFrame(id, encodeResult(wire, !res.OK))
			if err != nil {
				t.Fatal(err)
			}
			if want := sdkFrame(t, id, res, wire); !bytes.Equal(got, want) {
				t.Errorf("case %d, id %v:\n got %s\nwant %s", i, id.Raw(), got, want)
			}
		}
	}
}

// TestResultHoldTickets: a ticket is taken once; a result without one,
// one of another hold, or a forged number is not taken; drop forgets
// what is held.
func TestResultHoldTickets(t *testing.T) {
	h, other := newResultHold(), newResultHold()
	ok := envelope.OK(map[string]any{"n": 1})
	wire, err := ok.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	ticketResult := func(h *resultHold) []byte {
		b, err := json.Marshal(h.hold(ok, wire))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r1 := ticketResult(h)
	if strings.Contains(string(r1), `"ok"`) {
		t.Fatalf("the SDK's result carries the envelope: %s", r1)
	}
	if enc, found := h.take(r1); !found || !bytes.Equal(enc, encodeResult(wire, false)) {
		t.Fatalf("take = %s, %v", enc, found)
	}
	if _, found := h.take(r1); found {
		t.Fatal("a ticket was taken twice")
	}
	r2 := ticketResult(other)
	if _, found := h.take(r2); found {
		t.Fatal("a ticket of another hold was taken")
	}
	forged := bytes.Replace(ticketResult(h), []byte(":2\""), []byte(":99\""), 1)
	if _, found := h.take(forged); found {
		t.Fatalf("a forged ticket was taken: %s", forged)
	}
	if _, found := h.take([]byte(`{"content":[{"type":"text","text":"` + ticketPrefix + `0:1"}]}`)); found {
		t.Fatal("a ticket without the hold's nonce was taken")
	}
	h.drop()
	if len(h.held) != 0 {
		t.Fatalf("drop left %d held", len(h.held))
	}
}

// TestFirstListUsesTheToolsEncodedAhead: a static stdio server encodes the
// tools array of its first tools/list in the background (describe), and
// the held list puts it in the result the SDK made: the line is the
// encoding of the whole result, and it carries the array made ahead, not
// one encoded again.
func TestFirstListUsesTheToolsEncodedAhead(t *testing.T) {
	hold := newResultHold()
	_, c, err := build(cursus.Registry(), Options{}, hold)
	if err != nil {
		t.Fatal(err)
	}
	defs := c.descriptors()
	if c.firstTools == nil {
		t.Fatal("no tools array encoded ahead for a static stdio server")
	}
	s := &session{c: c}
	lr := &mcp.ListToolsResult{Tools: make([]*mcp.Tool, len(c.order))}
	for i, w := range c.order {
		lr.Tools[i] = defs[w]
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(lr); err != nil {
		t.Fatal(err)
	}
	heldLine := func() []byte {
		t.Helper()
		res, ok := s.heldList(&mcp.ListToolsRequest{}, lr, true).(*mcp.ListToolsResult)
		if !ok || len(res.Tools) != 1 {
			t.Fatalf("heldList did not hold the list: %#v", res)
		}
		line, found := hold.take([]byte(`"` + res.Tools[0].Name + `"`))
		if !found {
			t.Fatal("the held list's ticket holds nothing")
		}
		return line
	}
	if got := heldLine(); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
		t.Errorf("the held first list (%d bytes) is not the encoding of the result (%d bytes)", len(got), want.Len()-1)
	}
	c.firstTools = []byte(`["made ahead"]`)
	if got := string(heldLine()); !strings.HasSuffix(got, `,"tools":["made ahead"]}`) {
		t.Errorf("the held first list does not carry the array made ahead: %.80s", got)
	}
	if _, c, err = build(cursus.Registry(), Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if c.descriptors(); c.firstTools != nil {
		t.Error("a server whose results the SDK encodes (no hold) encoded a tools array ahead")
	}
}

// A descriptor whose _meta could hold the sentinel's text, or whose schema
// is not encoded JSON, leaves the tools array to encoding/json.
func TestEncodeToolsLeavesOddDescriptorsToEncodingJSON(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	plain := &mcp.Tool{Name: "a", InputSchema: schema, OutputSchema: schema}
	got := encodeTools([]*mcp.Tool{plain})
	want, err := json.Marshal([]*mcp.Tool{plain})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encodeTools = %s, want %s", got, want)
	}
	for _, odd := range []*mcp.Tool{
		{Name: "m", Meta: mcp.Meta{"inputSchema": 0}, InputSchema: schema},
		{Name: "s", InputSchema: map[string]any{"type": "object"}},
		{Name: "o", InputSchema: schema, OutputSchema: map[string]any{"type": "object"}},
	} {
		if b := encodeTools([]*mcp.Tool{plain, odd}); b != nil {
			t.Errorf("%s: encodeTools = %s, want nil", odd.Name, b)
		}
	}
}

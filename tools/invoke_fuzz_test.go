package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// FuzzCall: whatever name and arguments arrive, the invoker answers an
// envelope (never a panic, never nil) that encodes to JSON, with a known
// code when it failed and meta.tool naming a known tool. The calls run under
// a policy (a temporary root, every gate closed) on the real tools, those
// that reach the network left out.
func FuzzCall(f *testing.F) {
	reg := cursus.Registry()
	var offline []*registry.ToolDef
	for _, t := range reg.List("") {
		if !t.Network {
			offline = append(offline, t)
		}
	}
	for i, t := range offline {
		for _, ex := range t.Examples {
			if _, args, _, err := registry.ParseExample(ex); err == nil {
				b, _ := json.Marshal(args)
				f.Add(uint16(i), "", b)
			}
		}
	}
	f.Add(uint16(0), "no.such_tool", []byte(`{}`))
	f.Add(uint16(0), "catalog__search", []byte(`{"query": null}`))
	f.Add(uint16(1), "", []byte(`[1,2]`))
	f.Add(uint16(2), "", []byte(`{"dag": {"dag": {"dag": {}}}}`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, pick uint16, name string, args []byte) {
		if name == "" {
			name = offline[int(pick)%len(offline)].Name
		} else if tl, ok := reg.Get(name); ok && tl.Network {
			return
		}
		ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
		res := reg.Call(ctx, name, args)
		if res == nil {
			t.Fatalf("%s: nil result", name)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("%s: the result does not encode: %v", name, err)
		}
		if !res.OK && !slices.Contains(envelope.AllCodes, res.Code) {
			t.Fatalf("%s: unknown code %q", name, res.Code)
		}
		if res.Code == envelope.CodeInternalError {
			t.Fatalf("%s %.300q: internal_error %s", name, args, res.Error)
		}
		if _, known := reg.Get(name); known && res.Meta["tool"] == nil {
			t.Fatalf("%s: no meta.tool", name)
		}
	})
}

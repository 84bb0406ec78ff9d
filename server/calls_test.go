package server_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// holdNamespace has one tool that reports it started on entered and
// answers once release is closed (or its call is cancelled).
func holdNamespace(entered chan<- struct{}, release <-chan struct{}) registry.Namespace {
	type none struct{}
	return registry.Namespace{Name: "hold", Description: "Calls that wait.", Tools: []*registry.ToolDef{
		registry.New("hold.wait", spec("Answers once released."), func(ctx context.Context, _ none) (*envelope.ToolResult, error) {
			entered <- struct{}{}
			select {
			case <-release:
				return envelope.OK("released"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
	}}
}

// TestSessionCallsBounded: one session ran any number of calls at once
// (eight config.template calls took 720 MiB). Past the bound, a call
// answers too_many_calls at once and nothing of it runs; another session
// is not held by the first's calls; once a call answers, the session may
// call again.
func TestSessionCallsBounded(t *testing.T) {
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	s := newServer(t, testRegistry(t, holdNamespace(entered, release)), server.Options{MaxSessionCalls: 2})
	a, b := connect(t, s, ""), connect(t, s, "")
	ctx := testCtx(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "hold__wait", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Errorf("a held call: %v %v", err, res)
			}
		}()
	}
	<-entered
	<-entered
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "hold__wait", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		OK   bool   `json:"ok"`
		Code string `json:"code"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &env); err != nil || env.OK || env.Code != string(envelope.CodeTooManyCalls) || !res.IsError {
		t.Errorf("the third call of a session bounded at 2: %s", raw)
	}
	if _, err := a.ReadResource(ctx, &mcp.ReadResourceParams{URI: "cursus://docs/tools.md"}); err == nil {
		t.Error("a resource read past the bound was served")
	}
	select {
	case <-entered:
		t.Error("the refused call ran")
	default:
	}
	// Another session is not held by the first's calls.
	if res, err := b.CallTool(ctx, &mcp.CallToolParams{Name: "other__ping", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("another session's call: %v %v", err, res)
	}
	close(release)
	wg.Wait()
	if res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "other__ping", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("a call once the held ones answered: %v %v", err, res)
	}
}

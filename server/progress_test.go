package server_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// A tool's registry.ReportProgress reaches the client as notifications/progress carrying the
// request's progress token, in order; a call without a token gets none.
func TestProgressNotifications(t *testing.T) {
	t.Parallel()
	slow := registry.Namespace{Name: "slow", Description: "A tool that reports progress.", Tools: []*registry.ToolDef{
		registry.New("slow.steps", spec("Reports progress three times."), func(ctx context.Context, _ noArgs) (*envelope.ToolResult, error) {
			for i := 1; i <= 3; i++ {
				registry.ReportProgress(ctx, float64(i), 3, fmt.Sprintf("step %d of 3", i))
			}
			return envelope.OK("done"), nil
		}),
	}}
	s := newServer(t, testRegistry(t, slow), server.Options{})
	ctx := testCtx(t)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "progress-test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r.Params)
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	// notified returns the notifications once n have arrived (the client
	// handles them on its own goroutine, possibly after the call returned).
	notified := func(n int) []*mcp.ProgressNotificationParams {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			mu.Lock()
			out := slices.Clone(got)
			mu.Unlock()
			if len(out) >= n {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d progress notifications a minute after the call, want %d", len(out), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	call := func(token any) {
		t.Helper()
		params := &mcp.CallToolParams{Name: "slow__steps", Arguments: map[string]any{}}
		if token != nil {
			params.SetProgressToken(token)
		}
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
	call("tok-42")
	first := notified(3)
	for i, p := range first {
		if p.ProgressToken != "tok-42" || p.Progress != float64(i+1) || p.Total != 3 || p.Message != fmt.Sprintf("step %d of 3", i+1) {
			t.Errorf("notification %d = %+v", i, p)
		}
	}
	// A call without a token, then one with another: the notifications
	// arrive in order, so once the second token's three are in, any the
	// tokenless call caused would be in before them.
	call(nil)
	call("tok-43")
	all := notified(6)
	if len(all) != 6 || all[3].ProgressToken != "tok-43" || all[5].ProgressToken != "tok-43" {
		t.Errorf("a call without a progress token got notifications: %+v", all[3:])
	}
}

package server_test

import (
	"context"
	"fmt"
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

	params := &mcp.CallToolParams{Name: "slow__steps", Arguments: map[string]any{}}
	params.SetProgressToken("tok-42")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("%d progress notifications, want 3", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "tok-42" || p.Progress != float64(i+1) || p.Total != 3 || p.Message != fmt.Sprintf("step %d of 3", i+1) {
			t.Errorf("notification %d = %+v", i, p)
		}
	}

	got = nil
	mu.Unlock()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow__steps", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("a call without a progress token got %d notifications", len(got))
	}
}

package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

const testVersion = "9.8.7-test"

// TestMain keeps the default logger (used by the registry and by
// demo.noisy) off the test output.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	code := m.Run()
	cleanupBin()
	os.Exit(code)
}

type echoArgs struct {
	Msg string `json:"msg" jsonschema:"required" jsonschema_description:"Text to echo."`
	N   int    `json:"n,omitempty" jsonschema_description:"A number to echo."`
}

type countArgs struct {
	N int `json:"n" jsonschema:"required,minimum=1" jsonschema_description:"How many."`
}

type saveArgs struct {
	Path    string `json:"path" jsonschema:"required" jsonschema_description:"Where to write."`
	Content string `json:"content,omitempty" jsonschema_description:"What to write."`
}

type noArgs struct{}

func spec(desc string) registry.Spec {
	return registry.Spec{Description: desc, When: "testing", Tags: []string{registry.PhasePlanner}}
}

func flagged(desc string, set func(*registry.Spec)) registry.Spec {
	s := spec(desc)
	set(&s)
	return s
}

func echo(_ context.Context, a echoArgs) (*envelope.ToolResult, error) {
	return envelope.OK(map[string]any{"msg": a.Msg, "n": a.N}), nil
}

func save(ctx context.Context, a saveArgs) (*envelope.ToolResult, error) {
	p, err := registry.ResolveWritePath(ctx, "path", a.Path)
	if err != nil {
		return nil, err
	}
	if err := safefs.From(ctx).WriteFile(p, []byte(a.Content), 0o644); err != nil {
		return nil, err
	}
	return envelope.OK(map[string]any{"written": p}), nil
}

func noop(_ context.Context, _ noArgs) (*envelope.ToolResult, error) {
	return envelope.OK(map[string]any{"done": true}), nil
}

// demoNamespaces are the fake tools of the in-process tests: one of each
// capability kind.
func demoNamespaces() []registry.Namespace {
	return []registry.Namespace{
		{Name: "demo", Description: "Fake tools for the server tests.", Tools: []*registry.ToolDef{
			registry.New("demo.echo", spec("Echoes its arguments."), echo),
			registry.New("demo.fail", spec("Always fails with not_found."), func(context.Context, noArgs) (*envelope.ToolResult, error) {
				return nil, envelope.NotFound("there is no such thing").WithDetails("what", "thing").WithRemedy("look elsewhere", "demo.echo")
			}),
			registry.New("demo.count", spec("Takes a positive count."), func(_ context.Context, a countArgs) (*envelope.ToolResult, error) {
				return envelope.OK(a.N), nil
			}),
			registry.New("demo.save", flagged("Writes a file under the project root.", func(s *registry.Spec) { s.Writes = true }), save),
			registry.New("demo.deploy", flagged("Mutates external state over the network.", func(s *registry.Spec) { s.Destructive = true; s.Network = true }), noop),
			registry.New("demo.run", flagged("Executes code.", func(s *registry.Spec) { s.ExecCode = true; s.Network = true }), noop),
			registry.New("demo.run_and_save", flagged("Executes code and writes files.", func(s *registry.Spec) { s.ExecCode = true; s.Writes = true }), noop),
			registry.New("demo.old", flagged("Old echo.", func(s *registry.Spec) { s.DeprecatedBy = "demo.echo" }), echo),
			registry.New("demo.noisy", spec("Logs at every level, then fails."), func(ctx context.Context, _ noArgs) (*envelope.ToolResult, error) {
				slog.Debug("noisy debug")
				slog.Info("noisy info")
				slog.Warn("noisy warn")
				return nil, fmt.Errorf("noisy failure")
			}),
		}},
		{Name: "other", Description: "A second namespace.", Tools: []*registry.ToolDef{
			registry.New("other.ping", spec("Answers pong."), func(context.Context, noArgs) (*envelope.ToolResult, error) {
				return envelope.OK("pong"), nil
			}),
		}},
	}
}

func testRegistry(t testing.TB, extra ...registry.Namespace) *registry.Registry {
	t.Helper()
	reg, err := registry.Build(append(demoNamespaces(), extra...))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func newServer(t testing.TB, reg *registry.Registry, opts server.Options) *mcp.Server {
	t.Helper()
	if opts.Version == "" {
		opts.Version = testVersion
	}
	s, err := server.New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens one in-memory client session to s (protocol "" = the SDK's latest).
func connect(t testing.TB, s *mcp.Server, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx := testCtx(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func listNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testCtx(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func listTools(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(testCtx(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

// callEnv calls a tool and checks the result's shape: exactly one text
// block holding the envelope JSON, the same envelope as structuredContent,
// and isError == !ok. It returns the result and the decoded envelope.
func callEnv(t testing.TB, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: JSON-RPC error %v (a tool failure must be a result)", name, err)
	}
	return res, checkResult(t, name, res)
}

func checkResult(t testing.TB, name string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("call %s: %d content blocks, want 1", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("call %s: content is %T, want text", name, res.Content[0])
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &env); err != nil {
		t.Fatalf("call %s: text is not JSON: %v\n%s", name, err, tc.Text)
	}
	sb, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var structured map[string]any
	if err := json.Unmarshal(sb, &structured); err != nil {
		t.Fatalf("call %s: structuredContent is not an object: %s", name, sb)
	}
	if !reflect.DeepEqual(env, structured) {
		t.Fatalf("call %s: structuredContent differs from the text envelope:\n%s\n%s", name, tc.Text, sb)
	}
	okv, isBool := env["ok"].(bool)
	if !isBool {
		t.Fatalf("call %s: envelope has no boolean ok: %s", name, tc.Text)
	}
	if res.IsError == okv {
		t.Fatalf("call %s: isError=%v but ok=%v", name, res.IsError, okv)
	}
	if !okv {
		if _, has := env["code"].(string); !has {
			t.Fatalf("call %s: failure without code: %s", name, tc.Text)
		}
		if _, has := env["error"].(string); !has {
			t.Fatalf("call %s: failure without error: %s", name, tc.Text)
		}
	}
	return env
}

func details(env map[string]any) map[string]any {
	meta, _ := env["meta"].(map[string]any)
	d, _ := meta["details"].(map[string]any)
	return d
}

func wantCode(t testing.TB, env map[string]any, code string) {
	t.Helper()
	if env["ok"] != false || env["code"] != code {
		t.Fatalf("want a failure with code %s, got %v", code, env)
	}
}

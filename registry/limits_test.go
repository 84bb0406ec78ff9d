package registry_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

type bigArgs struct {
	N      int    `json:"n" jsonschema:"required"`
	Format string `json:"format,omitempty" jsonschema:"enum=json,enum=markdown"`
	Name   string `json:"name,omitempty"`
	Path   string `json:"config_file,omitempty"`
}

func bigRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := registry.Build([]registry.Namespace{{Name: "big", Description: "Big answers.", Tools: []*registry.ToolDef{
		registry.New("big.answer", registry.Spec{Description: "Answers n kilobytes."}, func(_ context.Context, a bigArgs) (*envelope.ToolResult, error) {
			return envelope.OK(map[string]any{"blob": strings.Repeat("x", a.N<<10)}), nil
		}),
		registry.New("big.narrow", registry.Spec{Description: "Answers n kilobytes, narrowed by level.", NarrowBy: []string{"level"}}, func(_ context.Context, a struct {
			N     int    `json:"n"`
			Level string `json:"level,omitempty"`
		}) (*envelope.ToolResult, error) {
			return envelope.OK([]string{strings.Repeat("y", a.N<<10)}), nil
		}),
		registry.New("big.read", registry.Spec{Description: "Reads a config file."}, func(ctx context.Context, a bigArgs) (*envelope.ToolResult, error) {
			if _, err := safefs.From(ctx).ReadFile(a.Path, safefs.KindConfig); err != nil {
				return nil, registry.FileError("config_file", a.Path, err)
			}
			return envelope.OK(nil), nil
		}),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestAnswerCap: an answer over the cap is a too_large failure naming the
// limit and the arguments that narrow it; one under the cap passes.
func TestAnswerCap(t *testing.T) {
	reg := bigRegistry(t)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: t.TempDir(), MaxResultBytes: 64 << 10})
	if res := reg.Call(ctx, "big.answer", map[string]any{"n": 32}); !res.OK {
		t.Fatalf("32 KiB under a 64 KiB cap: %s %s", res.Code, res.Error)
	}
	for _, n := range []int{65, 10 << 10} {
		res := reg.Call(ctx, "big.answer", map[string]any{"n": n})
		if res.OK || res.Code != envelope.CodeTooLarge || res.Remedy == nil || !strings.Contains(res.Remedy.FixAction, "format") {
			t.Fatalf("%d KiB: %+v, want too_large naming format", n, res)
		}
		if !strings.Contains(res.Error, "64KiB") || res.Meta["tool"] != "big.answer" {
			t.Errorf("%d KiB: %q, meta %v", n, res.Error, res.Meta)
		}
	}
	if res := reg.Call(ctx, "big.narrow", map[string]any{"n": 100}); res.Code != envelope.CodeTooLarge || !strings.Contains(res.Remedy.FixAction, "level") {
		t.Errorf("NarrowBy is not named: %+v", res.Remedy)
	}
	// The default cap applies to a trusted caller too; the variable moves it.
	if res := reg.Call(context.Background(), "big.answer", map[string]any{"n": 9 << 10}); res.Code != envelope.CodeTooLarge {
		t.Errorf("9 MiB under the default cap: %s", res.Code)
	}
	t.Setenv(registry.EnvMaxResultBytes, "16MiB")
	if res := reg.Call(context.Background(), "big.answer", map[string]any{"n": 9 << 10}); !res.OK {
		t.Errorf("9 MiB under %s=16MiB: %s", registry.EnvMaxResultBytes, res.Code)
	}
}

// TestArgumentCaps: arguments over MaxArgBytes answer too_large naming the
// file arguments; a name over MaxNameLength and any string over the
// default bound are invalid_input.
func TestArgumentCaps(t *testing.T) {
	reg := bigRegistry(t)
	ctx := context.Background()
	res := reg.Call(ctx, "big.answer", map[string]any{"n": 1, "format": "json", "extra": strings.Repeat("z", registry.MaxArgBytes)})
	if res.Code != envelope.CodeTooLarge || !strings.Contains(res.Remedy.FixAction, "config_file") {
		t.Errorf("oversized arguments: %+v", res)
	}
	if res := reg.Call(ctx, "big.answer", map[string]any{"n": 1, "name": strings.Repeat("n", registry.MaxNameLength+1)}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("a name over %d characters: %s", registry.MaxNameLength, res.Code)
	}
	if res := reg.Call(ctx, "big.answer", map[string]any{"n": 1, "config_file": strings.Repeat("p", registry.DefaultMaxLength+1)}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("a string over %d characters: %s", registry.DefaultMaxLength, res.Code)
	}
	t2, _ := reg.Get("big.answer")
	props := t2.Schema()["properties"].(map[string]any)
	// Schema is decoded JSON: its numbers are float64.
	if props["name"].(map[string]any)["maxLength"] != float64(registry.MaxNameLength) {
		t.Errorf("the name bound is not published: %v", props["name"])
	}
	if _, ok := props["config_file"].(map[string]any)["maxLength"]; ok {
		t.Errorf("the default bound is published: %v", props["config_file"])
	}
}

// TestFileErrors: the file-access layer's refusals map to tool errors that
// name the argument and never tell an escape from an absent file.
func TestFileErrors(t *testing.T) {
	reg := bigRegistry(t)
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "s.json"), []byte(`{"secret": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "big.json"), make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, FileLimits: map[string]int64{"config": 1024}})
	for path, code := range map[string]envelope.Code{
		"link/s.json":                    envelope.CodeNotFound,
		"absent.json":                    envelope.CodeNotFound,
		filepath.Join(outside, "s.json"): envelope.CodeInvalidInput,
		"../outside/s.json":              envelope.CodeInvalidInput,
		"big.json":                       envelope.CodeTooLarge,
		"fifo":                           envelope.CodeInvalidInput,
		".":                              envelope.CodeInvalidInput,
	} {
		res := reg.Call(ctx, "big.read", map[string]any{"n": 1, "config_file": path})
		if res.Code != code || !strings.Contains(res.Error, "config_file") || strings.Contains(res.Error, "secret") {
			t.Errorf("%s: %s %q, want %s naming config_file", path, res.Code, res.Error, code)
		}
	}
	esc := reg.Call(ctx, "big.read", map[string]any{"n": 1, "config_file": "link/s.json"})
	abs := reg.Call(ctx, "big.read", map[string]any{"n": 1, "config_file": "link/t.json"})
	if strings.Replace(esc.Error, "s.json", "t.json", 1) != abs.Error {
		t.Errorf("an escape reads differently from an absent file: %q vs %q", esc.Error, abs.Error)
	}
	if res := reg.Call(ctx, "big.read", map[string]any{"n": 1, "config_file": "big.json"}); !strings.Contains(res.Error, "1KiB") || res.Remedy == nil || !strings.Contains(res.Remedy.FixAction, registry.EnvFileLimits) {
		t.Errorf("the size refusal does not name the limit: %+v", res)
	}
	var te *envelope.ToolError
	if err := registry.FileError("x", "y", errors.New("plain")); errors.As(err, &te) {
		t.Error("a plain error was turned into a tool error")
	}
}

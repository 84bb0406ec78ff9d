package registry_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// ResolveReadPath takes a relative path from the policy's project root,
// else from the working directory; confines a policy caller's paths to the
// root (and its read-only roots); refuses blanks.
func TestResolveReadPath(t *testing.T) {
	t.Setenv(registry.EnvProjectRoot, "")
	root, ro := t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, ReadRoots: []string{ro}})
	if got, err := registry.ResolveReadPath(ctx, "path", "a/b.json"); err != nil || got != filepath.Join(root, "a", "b.json") {
		t.Errorf("relative under a root: %q %v", got, err)
	}
	var te *envelope.ToolError
	for _, p := range []string{filepath.Join(filepath.Dir(root), "elsewhere", "x.json"), "../up.json", "/etc/passwd"} {
		if _, err := registry.ResolveReadPath(ctx, "path", p); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput {
			t.Errorf("%s outside the root: %v, want invalid_input", p, err)
		}
	}
	inRO := filepath.Join(ro, "x.json")
	if got, err := registry.ResolveReadPath(ctx, "path", inRO); err != nil || filepath.Base(got) != "x.json" {
		t.Errorf("a read-only root is readable: %q %v", got, err)
	}
	if _, err := registry.ResolveWritePath(ctx, "path", inRO); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput {
		t.Errorf("a read-only root is not writable: %v", err)
	}
	// The error names the argument the path came from, message and details.
	if _, err := registry.ResolveWritePath(ctx, "output_file", "../up.json"); !errors.As(err, &te) ||
		!strings.HasPrefix(te.Message, "output_file ") || te.Details["output_file"] != "../up.json" {
		t.Errorf("a refused output_file: %v (details %v)", err, te.Details)
	}
	if _, err := registry.ResolveReadPath(ctx, "config_file", "/etc/passwd"); !errors.As(err, &te) || !strings.HasPrefix(te.Message, "config_file ") {
		t.Errorf("a refused config_file: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := registry.ResolveReadPath(context.Background(), "path", "c.json"); err != nil || got != filepath.Join(wd, "c.json") {
		t.Errorf("relative without a root: %q %v", got, err)
	}
	if got, err := registry.ResolveReadPath(context.Background(), "path", "/etc/passwd"); err != nil || got != "/etc/passwd" {
		t.Errorf("a trusted caller reads anywhere: %q %v", got, err)
	}
	if _, err := registry.ResolveReadPath(ctx, "path", "  "); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput {
		t.Errorf("blank path: %v", err)
	}
}

// TestErrorsShowPathsRelativeToTheRoot: an error text showed the absolute
// project root ("open /home/me/work/p/config.json: ..."); a confined
// caller's errors, remedies and warnings now name project files relative
// to the root, and the root as "."; a trusted caller's stay as they are.
func TestErrorsShowPathsRelativeToTheRoot(t *testing.T) {
	root := t.TempDir()
	msg := func(root string) string {
		return "open " + filepath.Join(root, "p", "config.json") + ": bad; in " + root + "; not " + root + "2/x nor /other" + root + "/y"
	}
	reg := demoRegistry(t, registry.New("demo.abs", registry.Spec{Description: "Fails naming an absolute path."},
		func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
			return envelope.Fail(msg(root), envelope.CodeNotFound).WithRemedy("edit " + filepath.Join(root, "p")).WithWarnings("wrote " + root + "/runs/x"), nil
		}))
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	res := reg.Call(ctx, "demo.abs", map[string]any{})
	want := "open p/config.json: bad; in .; not " + root + "2/x nor /other" + root + "/y"
	if res.Error != want {
		t.Errorf("error:\n got %q\nwant %q", res.Error, want)
	}
	if res.Remedy == nil || res.Remedy.FixAction != "edit p" || len(res.Warnings) != 1 || res.Warnings[0] != "wrote runs/x" {
		t.Errorf("remedy %v, warnings %q", res.Remedy, res.Warnings)
	}
	if res := reg.Call(context.Background(), "demo.abs", map[string]any{}); res.Error != msg(root) {
		t.Errorf("a trusted caller's error changed: %q", res.Error)
	}
}

package registry_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// ResolveReadPath takes a relative path from the policy's project root,
// else from the working directory; keeps absolute paths; refuses blanks;
// does not confine.
func TestResolveReadPath(t *testing.T) {
	t.Setenv(registry.EnvProjectRoot, "")
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	if got, err := registry.ResolveReadPath(ctx, "a/b.json"); err != nil || got != filepath.Join(root, "a", "b.json") {
		t.Errorf("relative under a root: %q %v", got, err)
	}
	outside := filepath.Join(filepath.Dir(root), "elsewhere", "x.json")
	if got, err := registry.ResolveReadPath(ctx, outside); err != nil || got != outside {
		t.Errorf("absolute path outside the root: %q %v", got, err)
	}
	if got, err := registry.ResolveReadPath(ctx, "../up.json"); err != nil || got != filepath.Join(filepath.Dir(root), "up.json") {
		t.Errorf("reads are not confined: %q %v", got, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := registry.ResolveReadPath(context.Background(), "c.json"); err != nil || got != filepath.Join(wd, "c.json") {
		t.Errorf("relative without a root: %q %v", got, err)
	}
	var te *envelope.ToolError
	if _, err := registry.ResolveReadPath(ctx, "  "); !errors.As(err, &te) || te.Code != envelope.CodeInvalidInput {
		t.Errorf("blank path: %v", err)
	}
}

package registry

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/envelope"
)

// The environment variables the safe-by-default front ends read.
const (
	// EnvEnableDestructive opens the gate of tools that are destructive or write files.
	EnvEnableDestructive = "CURSUS_MCP_ENABLE_DESTRUCTIVE"
	// EnvAllowScriptExec opens the gate of tools that execute code.
	EnvAllowScriptExec = "CURSUS_MCP_ALLOW_SCRIPT_EXEC"
	// EnvProjectRoot confines file writes to a directory.
	EnvProjectRoot = "CURSUS_MCP_PROJECT_ROOT"
)

// Policy is the safety policy of a caller. The zero Policy is the safest:
// every gated tool is closed.
type Policy struct {
	// AllowDestructive opens tools that are destructive or write files.
	AllowDestructive bool
	// AllowScriptExec opens tools that execute code.
	AllowScriptExec bool
	// ProjectRoot, when set, confines every file write to this directory.
	ProjectRoot string
}

// PolicyFromEnv reads the policy from the environment: a gate is open when
// its variable is non-empty (any value, as in the original). The project
// root is CURSUS_MCP_PROJECT_ROOT, or defaultRoot when that is empty.
func PolicyFromEnv(defaultRoot string) Policy {
	root := os.Getenv(EnvProjectRoot)
	if root == "" {
		root = defaultRoot
	}
	return Policy{
		AllowDestructive: os.Getenv(EnvEnableDestructive) != "",
		AllowScriptExec:  os.Getenv(EnvAllowScriptExec) != "",
		ProjectRoot:      root,
	}
}

// Allows reports whether the policy lets the tool run; when not, it returns
// the variable that would open its gate.
func (p Policy) Allows(t *ToolDef) (bool, string) {
	gated, env := t.Gated()
	if !gated {
		return true, ""
	}
	switch env {
	case EnvAllowScriptExec:
		if t.ExecCode && !p.AllowScriptExec {
			return false, env
		}
		if (t.Destructive || t.Writes) && !p.AllowDestructive {
			return false, EnvEnableDestructive
		}
		return true, ""
	default:
		return p.AllowDestructive, env
	}
}

type ctxKey int

const (
	policyKey ctxKey = iota
	registryKey
	scopeKey
)

// WithPolicy returns a context whose calls are checked against p.
func WithPolicy(ctx context.Context, p Policy) context.Context {
	return context.WithValue(ctx, policyKey, &p)
}

// PolicyFrom returns the context's policy, or nil for a trusted caller.
func PolicyFrom(ctx context.Context) *Policy {
	p, _ := ctx.Value(policyKey).(*Policy)
	return p
}

// ProjectRoot returns the directory writes are confined to: the policy's
// root, else CURSUS_MCP_PROJECT_ROOT, else "" (no confinement: a trusted
// in-process or CLI caller without that variable).
func ProjectRoot(ctx context.Context) string {
	if p := PolicyFrom(ctx); p != nil && p.ProjectRoot != "" {
		return p.ProjectRoot
	}
	return os.Getenv(EnvProjectRoot)
}

// ResolveWritePath turns path into the absolute path to write, confined to
// the project root when one is in force (see ProjectRoot): a relative path
// is taken from the root, and a path that resolves outside it (through "..",
// an absolute path or a symbolic link) is refused with invalid_input and
// nothing should be written. Without a root a relative path is taken from
// the working directory.
func ResolveWritePath(ctx context.Context, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", envelope.InvalidInput("path must be a non-empty string")
	}
	root := ProjectRoot(ctx)
	if root == "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", envelope.InvalidInput("path %q: %v", path, err)
		}
		return abs, nil
	}
	base, err := filepath.Abs(root)
	if err != nil {
		return "", envelope.InvalidInput("project root %q: %v", root, err)
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	target := path
	if !filepath.IsAbs(target) {
		target = filepath.Join(base, target)
	}
	target = filepath.Clean(target)
	resolved := resolveExisting(target)
	if !within(base, resolved) {
		return "", envelope.InvalidInput("refusing to write outside the confined project root: %q resolves to %q, outside %q", path, resolved, base).
			WithDetails("path", path, "resolved_target", resolved, "base", base, "env_var", EnvProjectRoot).
			WithRemedy("write under the project root, or start the server with " + EnvProjectRoot + " set to a directory that contains the target")
	}
	return resolved, nil
}

// ResolveReadPath turns path into the absolute path to read: a relative
// path is taken from the project root when one is in force (see
// ProjectRoot), else from the working directory; an absolute path is kept
// (cleaned). Reads are not confined: a tool may read any file its caller
// names. A blank path is invalid_input. With it a server started with a
// project root elsewhere reads the same files its writing tools write
// (ResolveWritePath takes relative paths from the same root).
func ResolveReadPath(ctx context.Context, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", envelope.InvalidInput("path must be a non-empty string")
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	if root := ProjectRoot(ctx); root != "" {
		base, err := filepath.Abs(root)
		if err != nil {
			return "", envelope.InvalidInput("project root %q: %v", root, err)
		}
		return filepath.Join(base, path), nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", envelope.InvalidInput("path %q: %v", path, err)
	}
	return abs, nil
}

// resolveExisting resolves symbolic links in the longest existing prefix of p.
func resolveExisting(p string) string {
	rest := ""
	cur := p
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			if rest == "" {
				return real
			}
			return filepath.Join(real, rest)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		if rest == "" {
			rest = filepath.Base(cur)
		} else {
			rest = filepath.Join(filepath.Base(cur), rest)
		}
		cur = parent
	}
}

func within(base, target string) bool {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// Scope restricts which tools a session may call (the guided stages use it).
type Scope interface {
	// Allows reports whether the tool may be called; when not, it returns
	// the failure to answer with.
	Allows(t *ToolDef) (bool, *envelope.ToolError)
}

// WithScope returns a context whose calls are checked against s.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey, s)
}

// ScopeFrom returns the context's scope, or nil.
func ScopeFrom(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey).(Scope)
	return s
}

// WithRegistry returns a context carrying r, so handlers can call other tools.
func WithRegistry(ctx context.Context, r *Registry) context.Context {
	return context.WithValue(ctx, registryKey, r)
}

// FromContext returns the registry a handler was called through, or nil.
func FromContext(ctx context.Context) *Registry {
	r, _ := ctx.Value(registryKey).(*Registry)
	return r
}

// Call calls another tool from inside a handler, through the registry the
// handler was called by, under the same policy. The caller's Scope does not
// apply to the nested call: a scope restricts which tools a session may
// call directly, not which tools a tool composes (the policy's gates still
// apply), and nested calls are not observed.
func Call(ctx context.Context, name string, args any) *envelope.ToolResult {
	r := FromContext(ctx)
	if r == nil {
		return envelope.Fail("registry.Call: no registry in context", envelope.CodeInternalError)
	}
	if ScopeFrom(ctx) != nil {
		ctx = context.WithValue(ctx, scopeKey, nil)
	}
	return r.Call(ctx, name, args)
}

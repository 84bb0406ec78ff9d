package registry

import (
	"context"
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
	// EnvProjectRoot confines file reads and writes to a directory.
	EnvProjectRoot = "CURSUS_MCP_PROJECT_ROOT"
	// EnvReadRoots lists further directories the server may read (not
	// write), separated like PATH (os.PathListSeparator).
	EnvReadRoots = "CURSUS_MCP_READ_ROOTS"
	// EnvMaxResultBytes caps the size of a tool's answer, in bytes (units
	// as in CURSUS_FILE_LIMITS), for every caller.
	EnvMaxResultBytes = "CURSUS_MAX_RESULT_BYTES"
)

// Policy is the safety policy of a caller. The zero Policy is the safest:
// every gated tool is closed.
type Policy struct {
	// AllowDestructive opens tools that are destructive or write files.
	AllowDestructive bool
	// AllowScriptExec opens tools that execute code.
	AllowScriptExec bool
	// ProjectRoot confines every file read and write to this directory
	// (relative paths are taken from it); empty is the working directory.
	ProjectRoot string
	// ReadRoots are further directories that may be read, not written.
	ReadRoots []string
	// FileLimits overrides read size caps per kind of file, in bytes:
	// "config", "dag", "script", "step", "document", "data" (see
	// FileLimitKinds); kinds left out keep their defaults.
	FileLimits map[string]int64
	// MaxResultBytes caps the size of an answer's JSON; 0 is
	// DefaultMaxResultBytes (or CURSUS_MAX_RESULT_BYTES).
	MaxResultBytes int64
}

// PolicyFromEnv reads the policy from the environment: a gate is open when
// its variable is non-empty (any value: "0" and "false" open it too). The project
// root is CURSUS_MCP_PROJECT_ROOT, or defaultRoot when that is empty; the
// read-only roots are CURSUS_MCP_READ_ROOTS.
func PolicyFromEnv(defaultRoot string) Policy {
	root := os.Getenv(EnvProjectRoot)
	if root == "" {
		root = defaultRoot
	}
	var readRoots []string
	for _, r := range filepath.SplitList(os.Getenv(EnvReadRoots)) {
		if strings.TrimSpace(r) != "" {
			readRoots = append(readRoots, r)
		}
	}
	return Policy{
		AllowDestructive: os.Getenv(EnvEnableDestructive) != "",
		AllowScriptExec:  os.Getenv(EnvAllowScriptExec) != "",
		ProjectRoot:      root,
		ReadRoots:        readRoots,
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

// AllowWrite is the write gate of a tool's WriteArg: a call that gives arg
// under a policy that keeps writes closed gets tool_disabled, as a writing
// tool would, with a remedy to leave the argument out (the answer then
// carries the artifact). A trusted caller (no policy) may write.
func AllowWrite(ctx context.Context, arg string) error {
	p := PolicyFrom(ctx)
	if p == nil || p.AllowDestructive {
		return nil
	}
	return envelope.Errorf(envelope.CodeToolDisabled,
		"%s writes a file, and this server keeps writes closed: leave %s out to get the result in the answer, or set %s=1 (or the matching server flag) if the user agrees", arg, arg, EnvEnableDestructive).
		WithDetails("argument", arg, "env_var", EnvEnableDestructive).
		WithRemedy("call again without " + arg + ": the answer carries the result")
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

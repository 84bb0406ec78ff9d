package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
)

// EnvFileLimits overrides read size caps per kind of file for every
// caller: kind=size pairs ("config=16MiB,script=2MiB").
const EnvFileLimits = safefs.EnvLimits

// FileLimitKinds lists the kinds of file Policy.FileLimits takes, sorted.
var FileLimitKinds = func() []string {
	out := make([]string, len(safefs.Kinds))
	for i, k := range safefs.Kinds {
		out[i] = string(k)
	}
	return out
}()

// ParseFileLimits reads a comma-separated list of kind=size pairs
// ("config=16MiB,script=2MiB"), the form of CURSUS_FILE_LIMITS and of the
// server's --file-limit flag.
func ParseFileLimits(s string) (map[string]int64, error) {
	l, err := safefs.ParseLimits(s)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(l))
	for k, v := range l {
		out[string(k)] = v
	}
	return out, nil
}

// ParseSize reads a byte count with an optional unit (KiB, MiB, GiB, KB,
// MB, GB), as the size flags and variables take it.
func ParseSize(s string) (int64, error) { return safefs.ParseSize(s) }

// FormatSize renders a byte count ("8MiB").
func FormatSize(n int64) string { return safefs.FormatSize(n) }

// openFS opens the file-access layer of a call (see the package doc): a
// caller with a policy is confined to the policy's project root (the
// working directory when empty) and its read-only roots; a caller without
// one is trusted, unless CURSUS_MCP_PROJECT_ROOT names a root.
func openFS(ctx context.Context) (*safefs.FS, error) {
	envLimits, err := safefs.LimitsFromEnv()
	if err != nil {
		return nil, envelope.InvalidInput("%v", err).WithDetails("env_var", safefs.EnvLimits).
			WithRemedy("fix " + safefs.EnvLimits + ": kind=size pairs such as config=16MiB,script=2MiB")
	}
	opts := safefs.Options{Limits: envLimits}
	if p := PolicyFrom(ctx); p != nil {
		opts.Root, opts.ReadRoots = p.ProjectRoot, p.ReadRoots
		if opts.Root == "" {
			opts.Root = os.Getenv(EnvProjectRoot)
		}
		if opts.Root == "" {
			if opts.Root, err = os.Getwd(); err != nil {
				return nil, envelope.Errorf(envelope.CodeInternalError, "no working directory to confine files to: %v", err)
			}
		}
		for k, v := range p.FileLimits {
			opts.Limits[safefs.Kind(k)] = v
		}
	} else if root := os.Getenv(EnvProjectRoot); root != "" {
		opts.Root = root
	} else if len(envLimits) == 0 {
		return safefs.Trusted(), nil
	}
	f, err := safefs.New(opts)
	if err != nil {
		return nil, envelope.InvalidInput("the project root cannot be opened: %v", err).
			WithDetails("project_root", opts.Root, "read_roots", opts.ReadRoots, "env_var", EnvProjectRoot).
			WithRemedy("set the project root (" + EnvProjectRoot + " or --project-root) to an existing directory")
	}
	return f, nil
}

// OpenFS opens the file-access layer a call under ctx gets (see the
// package doc). A front end that serves many calls under one policy opens
// it once and hands it to each call (safefs.WithFS), sparing every call the
// opening of the root; the caller closes it.
func OpenFS(ctx context.Context) (*safefs.FS, error) { return openFS(ctx) }

// callFS is the file-access layer of the call ctx belongs to, or, outside
// a call, the one the context's policy gives (closed by done).
func callFS(ctx context.Context) (fsys *safefs.FS, done func(), err error) {
	if safefs.InContext(ctx) {
		return safefs.From(ctx), func() {}, nil
	}
	f, err := openFS(ctx)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { _ = f.Close() }, nil
}

// ProjectRoot returns the directory the caller's files are confined to
// (symbolic links resolved), or "" for a trusted caller. Inside a call it
// is the root of the call's file-access layer; outside one it is the
// policy's root, else CURSUS_MCP_PROJECT_ROOT.
func ProjectRoot(ctx context.Context) string {
	if safefs.InContext(ctx) {
		return safefs.From(ctx).Root()
	}
	if p := PolicyFrom(ctx); p != nil && p.ProjectRoot != "" {
		return p.ProjectRoot
	}
	return os.Getenv(EnvProjectRoot)
}

// ResolveReadPath turns a path argument into the absolute path to read: a
// relative path is taken from the project root (the working directory for
// a trusted caller). A confined caller's path must lie under the project
// root or a read-only root as written (invalid_input otherwise); the read
// itself, through the call's file-access layer, also refuses symbolic
// links out of the root. A blank path is invalid_input. arg is the
// argument the path came from, which an error names.
func ResolveReadPath(ctx context.Context, arg, path string) (string, error) {
	fsys, done, err := callFS(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	p, err := fsys.Abs(path)
	if err != nil {
		return "", FileError(arg, path, err)
	}
	return p, nil
}

// ResolveWritePath turns a path argument into the absolute path to write.
// A confined caller's path must lie under the project root, also through
// the symbolic links that exist now, and must not be the root itself:
// otherwise invalid_input and nothing should be written. The write itself,
// through the call's file-access layer, checks again without a race. arg
// is the argument the path came from, which an error names.
func ResolveWritePath(ctx context.Context, arg, path string) (string, error) {
	fsys, done, err := callFS(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	p, err := fsys.AbsWrite(path)
	if err != nil {
		return "", FileError(arg, path, err)
	}
	return p, nil
}

// FileError maps an error of the file-access layer about the argument arg
// (given as given) to a tool error; any other error is returned as it is.
// The message names the argument and the path as given, never a resolved
// path outside the root or the file's content, and a file that is absent
// reads exactly like one reached through a symbolic link out of the root.
func FileError(arg, given string, err error) error {
	var pe *safefs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	var tl *safefs.TooLargeError
	var nr *safefs.NotRegularError
	switch {
	case errors.Is(err, safefs.ErrInvalidPath):
		return envelope.InvalidInput("%s must be a non-empty path", arg).WithDetails(arg, given)
	case errors.Is(err, safefs.ErrOutside):
		return envelope.InvalidInput("%s %q is outside the project root", arg, given).
			WithDetails(arg, given, "env_var", EnvProjectRoot).
			WithRemedy("use a path under the project root (relative paths are taken from it); only the user can widen it, with " + EnvProjectRoot + " or " + EnvReadRoots)
	case errors.Is(err, fs.ErrNotExist):
		return envelope.NotFound("%s not found: %s", arg, given).WithDetails(arg, given).
			WithRemedy("check the path; relative paths are taken from the project root")
	case errors.As(err, &tl):
		return envelope.Errorf(envelope.CodeTooLarge, "%s %s is too large: %v", arg, given, tl).
			WithDetails(arg, given, "kind", string(tl.Kind), "limit_bytes", tl.Limit, "env_var", safefs.EnvLimits).
			WithRemedy(fmt.Sprintf("pass a smaller file; the user can raise the cap with %s=%s=<size>", safefs.EnvLimits, tl.Kind))
	case errors.As(err, &nr):
		return envelope.InvalidInput("%s %s is %s", arg, given, nr).WithDetails(arg, given).
			WithRemedy("pass the path of a regular file")
	case errors.Is(err, safefs.ErrIsRoot), errors.Is(err, safefs.ErrIsDir):
		return envelope.InvalidInput("%s %s: %v", arg, given, pe.Err).WithDetails(arg, given).
			WithRemedy("name a file, not a directory")
	}
	msg := pe.Err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	switch pe.Op {
	case "read", "open", "stat", "lstat", "readdir", "walk", "resolve":
		return envelope.InvalidInput("cannot %s %s %s: %s", pe.Op, arg, given, msg).WithDetails(arg, given)
	}
	return envelope.Errorf(envelope.CodeToolError, "cannot %s %s %s: %s", pe.Op, arg, given, msg).WithDetails(arg, given)
}

// relativeToRoot rewrites the absolute paths under the project root of a
// confined call (ctx's policy; none for a trusted caller) in s relative to
// the root, and the root itself as ".": an error names a project's files
// as the caller names them, never where the project lies on the machine.
func relativeToRoot(ctx context.Context, s string) string {
	p := PolicyFrom(ctx)
	if p == nil || s == "" {
		return s
	}
	root := p.ProjectRoot
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return s
		}
		root = wd
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return s
	}
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	for _, r := range roots {
		if len(r) > 1 {
			s = replaceRoot(s, r)
		}
	}
	return s
}

// replaceRoot rewrites the occurrences of root in s that are whole paths
// or the start of one: "<root>/x" as "x", "<root>" as ".".
func replaceRoot(s, root string) string {
	pathByte := func(c byte) bool {
		return c == '/' || c == '.' || c == '_' || c == '-' || c == '~' || c == '+' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	var b strings.Builder
	for {
		i := strings.Index(s, root)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(root)
		switch {
		case i > 0 && pathByte(s[i-1]):
			// Inside a longer path (/x/<root>): not the root.
			b.WriteString(s[:end])
		case end < len(s) && s[end] == '/':
			b.WriteString(s[:i])
			end++ // drop the separator too
			if end >= len(s) || !pathByte(s[end]) {
				b.WriteString(".")
			}
		case end == len(s) || !pathByte(s[end]):
			b.WriteString(s[:i])
			b.WriteString(".")
		default:
			// A longer name (<root>2): not the root.
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

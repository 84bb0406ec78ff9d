package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

const serveDescription = `Serves every tool to an MCP host (Claude Desktop, Cursor, ...) over stdio, or over
Streamable HTTP with --http. stdout carries JSON-RPC only; logs go to stderr.

Safe by default: tools that change external state or write files are hidden and refused
unless CURSUS_MCP_ENABLE_DESTRUCTIVE is set (any non-empty value) or --allow-destructive
is given; tools that execute code need CURSUS_MCP_ALLOW_SCRIPT_EXEC or --allow-script-exec.
A flag can only open a gate, never close one the environment opened. Reads and writes are
confined to --project-root, else CURSUS_MCP_PROJECT_ROOT, else the directory the server
starts in; --read-root (or CURSUS_MCP_READ_ROOTS) adds directories that may be read, not
written. Only regular files are read, each within the size cap of its kind (--file-limit,
CURSUS_FILE_LIMITS); an answer over --max-result-size answers too_large.

Over HTTP, a bearer token (CURSUS_MCP_AUTH_TOKEN, --auth-token-file or --auth-token) is
required on every request, on any address: without one the server does not start, unless
--no-auth serves the loopback interface without a token.
Sessions are bounded (--max-sessions) and closed when idle (--session-idle-timeout).

Toolsets: every namespace is a toolset, and "core" is the front door (tools__help,
tools__describe_tool, catalog__search, pipeline_catalog__recommend, config__template, config__merge_save,
compile__validate, compile__definition, execution__run_local and tools__toolsets, within
20 KB). A session lists the core toolset first; the other tools are callable by name, and
tools__toolsets {"enable": ["compile"]} lists a toolset (notifications/tools/list_changed).
--toolsets picks what sessions list at first: core, all (every tool, as before toolsets),
or namespaces (comma-separated, e.g. --toolsets core,execution).

--namespaces and --tools narrow the tools the server answers and list what they name
(--tools adds single tools to the namespaces, or alone lists only those tools);
--exclude-tools removes tools. The gates always win: naming a gated tool does not open
its gate.

--guided lists, per MCP session, only the tools of the session's active stage (orchestrator,
plan, author_step, configure, validate, compile): workflow__start_stage moves the session to
the stage a run needs and the server sends notifications/tools/list_changed. --stage NAME pins
every session to one stage, for hosts that ignore list changes. See docs/guided-mode.md.`

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "serve the tools over the Model Context Protocol (stdio, or Streamable HTTP with --http)",
		Description: serveDescription,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "allow-destructive", Usage: "list and allow tools that change external state or write files (as " + registry.EnvEnableDestructive + "=1)"},
			&cli.BoolFlag{Name: "allow-script-exec", Usage: "list and allow tools that execute code (as " + registry.EnvAllowScriptExec + "=1)"},
			&cli.StringFlag{Name: "project-root", Usage: "confine file reads and writes to `DIR` (default: " + registry.EnvProjectRoot + ", else the current directory)"},
			&cli.StringSliceFlag{Name: "read-root", Usage: "also let tools read (not write) files under `DIR` (repeatable; adds to " + registry.EnvReadRoots + ")"},
			&cli.StringSliceFlag{Name: "file-limit", Usage: "read size cap of a kind of file, `KIND=SIZE` (kinds: " + strings.Join(registry.FileLimitKinds, ", ") + "; e.g. config=16MiB); overrides " + registry.EnvFileLimits},
			&cli.StringFlag{Name: "max-result-size", Usage: "cap the JSON of one answer at `SIZE` (default " + registry.FormatSize(registry.DefaultMaxResultBytes) + ", or " + registry.EnvMaxResultBytes + ")"},
			&cli.StringSliceFlag{Name: "toolsets", Usage: "toolsets each session lists at first: core (the default), all, or namespaces (comma-separated); the others stay callable by name and tools__toolsets lists them"},
			&cli.StringSliceFlag{Name: "namespaces", Usage: "list only the tools of these namespaces (comma-separated)"},
			&cli.StringSliceFlag{Name: "tools", Usage: "list these tools (comma-separated dotted or wire names)"},
			&cli.StringSliceFlag{Name: "exclude-tools", Usage: "never list these tools (comma-separated)"},
			&cli.BoolFlag{Name: "guided", Usage: "list only the tools of each session's active stage; workflow__start_stage and workflow__complete_stage move between stages"},
			&stageFlag{cli.StringFlag{Name: "stage"}},
			&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP on `ADDR` (a port or host:port; 127.0.0.1 unless a host is given) instead of stdio"},
			&cli.StringFlag{Name: "auth-token-file", Usage: "HTTP: require the bearer token held in `FILE` on every request (prefer it, or " + server.EnvAuthToken + ", to --auth-token, which other local users can read from the process list)"},
			&cli.BoolFlag{Name: "no-auth", Usage: "HTTP on the loopback interface only: serve without a bearer token (any local user could then call the tools)"},
			&cli.StringFlag{Name: "auth-token", Usage: "HTTP: require bearer token `TOKEN` on every request (default: " + server.EnvAuthToken + "); needed on any address but with --no-auth"},
			&cli.IntFlag{Name: "max-sessions", Value: server.DefaultMaxSessions, Usage: "HTTP: sessions alive at once; a new one beyond answers 503"},
			&cli.DurationFlag{Name: "session-idle-timeout", Value: server.DefaultSessionIdleTimeout, Usage: "HTTP: close a session after this long without a request"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "stderr log level: debug, info, warn or error"},
		},
		Action: mcpServe,
	}
}

func mcpServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp serve takes no arguments, got %q", c.Args().First())
	}
	level, err := parseLogLevel(c.String("log-level"))
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: level}))
	// The registry and the tools log through the default logger: keep it on
	// stderr while serving.
	prev := slog.Default()
	slog.SetDefault(logger)
	defer slog.SetDefault(prev)

	policy, err := servePolicy(c)
	if err != nil {
		return err
	}
	if filepath.Dir(policy.ProjectRoot) == policy.ProjectRoot && (policy.AllowDestructive || policy.AllowScriptExec) {
		// Some hosts start servers in "/": that root confines nothing.
		logger.Warn("file writes are confined to the filesystem root, which confines nothing; pass --project-root or set "+registry.EnvProjectRoot,
			"project_root", policy.ProjectRoot)
	}
	stage := strings.TrimSpace(c.String("stage"))
	if c.IsSet("stage") && !slices.Contains(stageNames(), stage) {
		return usagef("--stage must be one of %s, got %q", strings.Join(stageNames(), ", "), c.String("stage"))
	}
	if c.IsSet("toolsets") && (c.Bool("guided") || c.IsSet("stage")) {
		return usagef("--toolsets does not apply with --guided or --stage: a guided session lists its stage's tools")
	}
	httpOpts, err := serveHTTPOptions(c)
	if err != nil {
		return err
	}
	opts := server.Options{
		HTTP:         httpOpts,
		Guided:       c.Bool("guided"), // a --stage implies it (server.Options.Stage)
		Stage:        stage,
		Policy:       policy,
		Namespaces:   c.StringSlice("namespaces"),
		Tools:        c.StringSlice("tools"),
		Toolsets:     c.StringSlice("toolsets"),
		ExcludeTools: c.StringSlice("exclude-tools"),
		Logger:       logger,
		Version:      cursus.Version,
	}
	ctx, stop := signal.NotifyContext(ctxOf(c), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal stops the server gracefully (bounded: calls in
	// flight are cancelled, a stuck one abandoned); from then on the signals
	// have their default effect, so a second one ends the process at once.
	go func() { <-ctx.Done(); stop() }()

	reg := cursus.Registry()
	if addr := c.String("http"); addr != "" {
		err = server.ServeHTTP(ctx, reg, opts, addr)
	} else {
		out := c.App.Writer
		if f, ok := out.(*os.File); ok && f == os.Stdout {
			// stdout is the protocol channel: anything else that prints to
			// os.Stdout (a library, a tool, a child process handed
			// os.Stdout) lands on stderr instead.
			os.Stdout = os.Stderr
			defer func() { os.Stdout = f }()
		}
		var in io.Reader = c.App.Reader
		if in == nil {
			in = os.Stdin
		}
		err = server.ServeStdio(ctx, reg, opts, in, out)
	}
	if errors.Is(err, server.ErrUnauthenticatedBind) || errors.Is(err, server.ErrNoAuthToken) {
		return usagef("--http %s: %v", c.String("http"), err)
	}
	var se *server.SelectionError
	if errors.As(err, &se) {
		return usagef("%s", selectionMessage(se))
	}
	if err != nil {
		return failure{msg: "mcp serve: " + err.Error()}
	}
	logger.Info("mcp server stopped")
	return nil
}

// serveHTTPOptions reads the HTTP flags: the token from --auth-token, else
// --auth-token-file, else CURSUS_MCP_AUTH_TOKEN.
func serveHTTPOptions(c *cli.Context) (server.HTTPOptions, error) {
	o := server.HTTPOptions{MaxSessions: c.Int("max-sessions"), SessionIdleTimeout: c.Duration("session-idle-timeout")}
	if o.MaxSessions < 1 {
		return o, usagef("--max-sessions must be at least 1, got %d", o.MaxSessions)
	}
	if o.SessionIdleTimeout < time.Second {
		return o, usagef("--session-idle-timeout must be at least 1s, got %s", o.SessionIdleTimeout)
	}
	switch {
	case c.IsSet("auth-token"):
		o.AuthToken = strings.TrimSpace(c.String("auth-token"))
		if o.AuthToken == "" {
			return o, usagef("--auth-token must not be blank")
		}
	case c.IsSet("auth-token-file"):
		b, err := safefs.Trusted().ReadFile(c.String("auth-token-file"), safefs.KindDocument)
		if err != nil {
			return o, usagef("--auth-token-file: %v", err)
		}
		if o.AuthToken = strings.TrimSpace(string(b)); o.AuthToken == "" {
			return o, usagef("--auth-token-file %s holds no token", c.String("auth-token-file"))
		}
	default:
		o.AuthToken = strings.TrimSpace(os.Getenv(server.EnvAuthToken))
	}
	if o.NoAuth = c.Bool("no-auth"); o.NoAuth && o.AuthToken != "" {
		return o, usagef("--no-auth and a bearer token (--auth-token, --auth-token-file or %s) exclude each other", server.EnvAuthToken)
	}
	return o, nil
}

// servePolicy combines the environment and the flags: a flag only opens a gate.
func servePolicy(c *cli.Context) (registry.Policy, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return registry.Policy{}, failure{msg: "mcp serve: " + err.Error()}
	}
	p := registry.PolicyFromEnv(cwd)
	if c.Bool("allow-destructive") {
		p.AllowDestructive = true
	}
	if c.Bool("allow-script-exec") {
		p.AllowScriptExec = true
	}
	source := registry.EnvProjectRoot
	if os.Getenv(registry.EnvProjectRoot) == "" {
		source = "the current directory"
	}
	if c.IsSet("project-root") {
		p.ProjectRoot = c.String("project-root")
		source = "--project-root"
	}
	if strings.TrimSpace(p.ProjectRoot) == "" {
		return p, usagef("--project-root must name a directory")
	}
	abs, err := filepath.Abs(p.ProjectRoot)
	if err != nil {
		return p, usagef("project root %q (%s): %v", p.ProjectRoot, source, err)
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return p, usagef("project root %q (%s) is not an existing directory", p.ProjectRoot, source)
	}
	p.ProjectRoot = abs
	for _, r := range c.StringSlice("read-root") {
		if r = strings.TrimSpace(r); r != "" {
			p.ReadRoots = append(p.ReadRoots, r)
		}
	}
	for i, r := range p.ReadRoots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return p, usagef("read root %q: %v", r, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return p, usagef("read root %q is not an existing directory", r)
		}
		p.ReadRoots[i] = abs
	}
	if env := os.Getenv(registry.EnvFileLimits); strings.TrimSpace(env) != "" {
		if _, err := registry.ParseFileLimits(env); err != nil {
			return p, usagef("%s: %v", registry.EnvFileLimits, err)
		}
	}
	if fl := c.StringSlice("file-limit"); len(fl) > 0 {
		l, err := registry.ParseFileLimits(strings.Join(fl, ","))
		if err != nil {
			return p, usagef("--file-limit: %v", err)
		}
		p.FileLimits = l
	}
	if v := c.String("max-result-size"); c.IsSet("max-result-size") {
		n, err := registry.ParseSize(v)
		if err != nil {
			return p, usagef("--max-result-size: %v", err)
		}
		p.MaxResultBytes = n
	} else if v := os.Getenv(registry.EnvMaxResultBytes); strings.TrimSpace(v) != "" {
		n, err := registry.ParseSize(v)
		if err != nil {
			return p, usagef("%s: %v", registry.EnvMaxResultBytes, err)
		}
		p.MaxResultBytes = n
	}
	return p, nil
}

func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, usagef("--log-level must be one of debug, info, warn, error, got %q", s)
}

func selectionMessage(e *server.SelectionError) string {
	var parts []string
	if len(e.UnknownNamespaces) > 0 {
		parts = append(parts, fmt.Sprintf("--namespaces names unknown namespace(s): %s", strings.Join(e.UnknownNamespaces, ", ")))
	}
	if len(e.UnknownTools) > 0 {
		parts = append(parts, fmt.Sprintf("--tools names unknown tool(s): %s", strings.Join(e.UnknownTools, ", ")))
	}
	if len(e.UnknownExcluded) > 0 {
		parts = append(parts, fmt.Sprintf("--exclude-tools names unknown tool(s): %s", strings.Join(e.UnknownExcluded, ", ")))
	}
	if len(e.UnknownToolsets) > 0 {
		parts = append(parts, fmt.Sprintf("--toolsets names unknown toolset(s): %s (toolsets: core, all, or a namespace)", strings.Join(e.UnknownToolsets, ", ")))
	}
	return strings.Join(parts, "; ") + " (see `cursus mcp list-tools`)"
}

// stageFlag is the --stage flag. Its usage names the stages, and is made
// only when a help is printed: made with the command, it had every start
// parse the stages file (a sixth of our part of a start) for a help text.
type stageFlag struct{ cli.StringFlag }

// GetUsage is the flag's usage (cli.DocGenerationFlag).
func (f *stageFlag) GetUsage() string {
	return "pin every session to stage `NAME` (" + strings.Join(stageNames(), ", ") + "); implies --guided"
}

// String renders the flag for a help, with this usage.
func (f *stageFlag) String() string { return cli.FlagStringer(f) }

// stageNames lists the guided stages --stage accepts.
func stageNames() []string {
	var out []string
	for _, st := range cursus.Stages() {
		out = append(out, st.Name)
	}
	return out
}

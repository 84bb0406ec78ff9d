package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// cursusBin builds ./cli/cursus once per test run into a temporary
// directory (removed by TestMain) and returns its path.
func cursusBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "cursus-server-test-")
		if binErr != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binPath = filepath.Join(binDir, "cursus")
		cmd := exec.Command(goTool, "build", "-o", binPath, "github.com/cursus-go/cursus/cli/cursus")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build ./cli/cursus: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// serveEnv is the environment of a subprocess: the gates closed unless
// extra opens them.
func serveEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == registry.EnvEnableDestructive || k == registry.EnvAllowScriptExec || k == registry.EnvProjectRoot {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// startPiped starts cmd with pipes to its stdin and from its stdout (set
// its Stderr first).
func startPiped(t testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

func serveCmd(t testing.TB, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(cursusBin(t), append([]string{"mcp", "serve"}, args...)...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	return cmd
}

// subprocessSession starts `cursus mcp serve` and connects the go-sdk client over stdio.
func subprocessSession(t testing.TB, env []string, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cmd := serveCmd(t, env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &lockedBuffer{b: &stderr}
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if st := cmd.ProcessState; st == nil || st.ExitCode() != 0 {
			t.Errorf("server exit: %v\nstderr:\n%s", st, stderr.String())
		}
	})
	return cs, &stderr
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func binVersion(t *testing.T) string {
	out, err := exec.Command(cursusBin(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "cursus ")
	if !ok || v == "" {
		t.Fatalf("cursus version printed %q", out)
	}
	return v
}

// wireNames lists the wire names of the tools a server lists that keep
// accepts (the generated <ns>.help tools are callable, not listed).
func wireNames(keep func(*registry.ToolDef) bool) []string {
	var out []string
	for _, t := range cursus.Registry().List("") {
		if keep(t) && !t.NamespaceHelp() {
			out = append(out, t.WireName())
		}
	}
	return out
}

// coreReadOnly keeps the read-only tools of the core toolset: what a
// server with closed gates lists at first.
func coreReadOnly(t *registry.ToolDef) bool { return t.Core && t.ReadOnly() }

func TestSubprocessStdio(t *testing.T) {
	t.Parallel()
	cs, _ := subprocessSession(t, serveEnv())
	info := cs.InitializeResult().ServerInfo
	if info.Name != "cursus" || info.Version != binVersion(t) {
		t.Fatalf("serverInfo = %+v, want cursus %s", info, binVersion(t))
	}
	listed := listTools(t, cs)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range listed {
			if !yield(n) {
				return
			}
		}
	})
	if want := wireNames(coreReadOnly); !slices.Equal(names, want) {
		t.Fatalf("default list = %v, want the read-only tools of the core toolset %v", names, want)
	}
	for n, tool := range listed {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s listed by default but not read-only", n)
		}
	}

	_, env := callEnv(t, cs, "tools__help", map[string]any{})
	if env["ok"] != true {
		t.Fatalf("tools__help: %v", env)
	}
	_, env = callEnv(t, cs, "tools__help", map[string]any{"namespace": "nope"})
	if env["ok"] != false {
		t.Fatalf("tools__help with an unknown namespace succeeded: %v", env)
	}
	_, env = callEnv(t, cs, "no__such", map[string]any{})
	wantCode(t, env, "unknown_tool")
	_, env = callEnv(t, cs, "tools__by_phase", map[string]any{"phase": 3})
	wantCode(t, env, "invalid_input")
	for _, def := range cursus.Registry().List("") {
		gated, envVar := def.Gated()
		if !gated {
			continue
		}
		_, env = callEnv(t, cs, def.WireName(), map[string]any{})
		wantCode(t, env, "tool_disabled")
		if details(env)["env_var"] != envVar {
			t.Errorf("%s: tool_disabled names %v, want %s", def.Name, details(env)["env_var"], envVar)
		}
	}
}

// Expected hints of the engine's gated tools (readOnly, destructive,
// openWorld), as the tools' safety flags give them.
var realGated = map[string][3]bool{
	"compile__dag":          {false, true, true},
	"project__init":         {false, true, false},
	"dag__serialize":        {false, false, false},
	"validate__run_scripts": {false, false, true},
}

func TestSubprocessGatesOpen(t *testing.T) {
	t.Parallel()
	all := wireNames(func(*registry.ToolDef) bool { return true })
	byEnv, _ := subprocessSession(t, serveEnv(registry.EnvEnableDestructive+"=1", registry.EnvAllowScriptExec+"=yes"), "--toolsets", "all")
	byFlag, _ := subprocessSession(t, serveEnv(), "--allow-destructive", "--allow-script-exec", "--toolsets", "all")
	destructiveOnly, _ := subprocessSession(t, serveEnv(), "--allow-destructive", "--toolsets", "all")
	for label, cs := range map[string]*mcp.ClientSession{"env": byEnv, "flags": byFlag} {
		listed := listTools(t, cs)
		if got := listNames(t, cs); !slices.Equal(got, all) {
			t.Fatalf("%s: gates open lists %v, want every tool %v", label, got, all)
		}
		for name, want := range realGated {
			tool := listed[name]
			if tool == nil {
				t.Errorf("%s: gated tool %s is not listed", label, name)
				continue
			}
			a := tool.Annotations
			if got := [3]bool{a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint}; got != want {
				t.Errorf("%s: readOnly/destructive/openWorld = %v, want %v", name, got, want)
			}
		}
	}
	want := wireNames(func(t *registry.ToolDef) bool { return !t.ExecCode })
	if got := listNames(t, destructiveOnly); !slices.Equal(got, want) {
		t.Fatalf("--allow-destructive lists %v, want %v", got, want)
	}
}

// TestSubprocessStdoutIsJSONRPCOnly reads the server's raw stdout while
// tools fail and the server logs at debug level: every line must be a
// JSON-RPC message, and the logs must have gone to stderr.
func TestSubprocessStdoutIsJSONRPCOnly(t *testing.T) {
	t.Parallel()
	cmd := serveCmd(t, serveEnv(), "--log-level", "debug")
	var stderr, raw bytes.Buffer
	cmd.Stderr = &lockedBuffer{b: &stderr}
	stdin, stdout := startPiped(t, cmd)
	c := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, &raw)), Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	listNames(t, cs)
	for _, call := range []struct {
		name string
		args any
	}{
		{"tools__help", map[string]any{"namespace": "nope"}},
		{"tools__by_phase", map[string]any{"phase": 3}},
		{"tools__describe_tool", map[string]any{"name": "no.such"}},
		{"no__such", nil},
		{"compile__dag", map[string]any{}},
		{"tools__help", map[string]any{"format": "markdown"}},
	} {
		callEnv(t, cs, call.name, call.args)
	}
	cs.Close() // closes stdin
	if exited, err := waitExit(cmd, 15*time.Second); !exited {
		t.Fatal("server did not exit at end of input")
	} else if err != nil {
		t.Fatalf("server exit: %v\n%s", err, stderr.String())
	}
	lines := 0
	sc := bufio.NewScanner(&raw)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line %d is not a JSON-RPC message: %q", lines, sc.Text())
		}
	}
	if lines < 8 {
		t.Fatalf("only %d stdout lines", lines)
	}
	if !strings.Contains(stderr.String(), "level=DEBUG") || !strings.Contains(stderr.String(), "level=INFO") {
		t.Fatalf("no debug/info logs on stderr:\n%s", stderr.String())
	}
}

func TestSubprocessUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tools", "tools.help,nope.tool,zzz"}, []string{"--tools", "nope.tool", "zzz"}},
		{[]string{"--namespaces", "tools,ghost"}, []string{"--namespaces", "ghost"}},
		{[]string{"--exclude-tools", "gone"}, []string{"--exclude-tools", "gone"}},
		{[]string{"--log-level", "loud"}, []string{"--log-level"}},
		{[]string{"--project-root", "/no/such/dir"}, []string{"/no/such/dir"}},
		{[]string{"--http", "host:"}, nil},
		{[]string{"extra"}, []string{"extra"}},
		{[]string{"--no-such-flag"}, nil},
	} {
		cmd := serveCmd(t, serveEnv(), c.args...)
		var stderr, stdout bytes.Buffer
		cmd.Stderr, cmd.Stdout = &stderr, &stdout
		cmd.Stdin = strings.NewReader("")
		err := cmd.Run()
		var ee *exec.ExitError
		wantExit := 2
		if c.args[0] == "--http" {
			wantExit = 1 // a failure to listen, not a usage error
		}
		if !errors.As(err, &ee) || ee.ExitCode() != wantExit {
			t.Errorf("%v: err %v, want exit %d\n%s", c.args, err, wantExit, stderr.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%v: stderr does not name %q: %s", c.args, w, stderr.String())
			}
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: wrote to stdout: %q", c.args, stdout.String())
		}
	}
	// An unknown project root in the environment is refused too.
	cmd := serveCmd(t, serveEnv(registry.EnvProjectRoot+"=/no/such/root"))
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), registry.EnvProjectRoot) {
		t.Errorf("bad %s: %v %s", registry.EnvProjectRoot, err, out)
	}
}

// TestSubprocessExits: the server exits 0 at end of input, on SIGINT and
// on SIGTERM, with stdin still open for the signals.
func TestSubprocessExits(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "sigint", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			cmd := serveCmd(t, serveEnv())
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			var stderr bytes.Buffer
			cmd.Stderr = &lockedBuffer{b: &stderr}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, initLine+"\n")
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.Contains(line, `"serverInfo"`) {
				t.Fatalf("initialize: %q %v", line, err)
			}
			switch how {
			case "eof":
				stdin.Close()
			case "sigint":
				cmd.Process.Signal(os.Interrupt)
			case "sigterm":
				cmd.Process.Signal(syscall.SIGTERM)
			}
			if exited, err := waitExit(cmd, 10*time.Second); !exited {
				t.Fatalf("no exit 10s after %s", how)
			} else if err != nil {
				t.Fatalf("exit after %s: %v\n%s", how, err, stderr.String())
			}
			stdin.Close()
			if strings.Contains(stderr.String(), "level=ERROR") {
				t.Fatalf("a normal stop logged an error:\n%s", stderr.String())
			}
		})
	}
}

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

func TestSubprocessHTTP(t *testing.T) {
	t.Parallel()
	cmd := serveCmd(t, serveEnv(), "--http", "127.0.0.1:0", "--no-auth")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var logs bytes.Buffer
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-urlc:
	case <-time.After(15 * time.Second):
		t.Fatal("no listening URL logged")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("listening on %s, want 127.0.0.1", url)
	}
	cs := httpSession(t, url, "")
	if cs.InitializeResult().ServerInfo.Name != "cursus" {
		t.Fatal("serverInfo")
	}
	if got, want := listNames(t, cs), wireNames(coreReadOnly); !slices.Equal(got, want) {
		t.Fatalf("HTTP list = %v, want %v", got, want)
	}
	_, env := callEnv(t, cs, "tools__help", nil)
	if env["ok"] != true {
		t.Fatal(env)
	}
	_, env = callEnv(t, cs, "tools__by_phase", map[string]any{"phase": "nope"})
	wantCode(t, env, "invalid_input")
	cs.Close()
	cmd.Process.Signal(os.Interrupt)
	if exited, err := waitExit(cmd, 15*time.Second); !exited {
		t.Fatal("HTTP server did not stop on SIGINT")
	} else if err != nil {
		t.Fatalf("exit after SIGINT: %v", err)
	}
}

// waitExit waits up to limit for cmd, started, to exit and returns its
// exit error; a process still running then is killed, and exited is false.
func waitExit(cmd *exec.Cmd, limit time.Duration) (exited bool, err error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return true, err
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return false, nil
	}
}

// cleanupBin removes the built binary; TestMain calls it.
func cleanupBin() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

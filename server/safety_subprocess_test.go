package server_test

// The reproductions of "safe by default", each against a real
// `cursus mcp serve` subprocess: the go-sdk client where the client can say
// it, raw JSON-RPC lines where it cannot (a hostile frame, a stuck call
// while a signal arrives).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
)

// rawServe is a `cursus mcp serve` subprocess driven line by line.
type rawServe struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
	nextID int
	stray  []string
	mu     sync.Mutex
}

func startRawServe(t testing.TB, dir string, env []string, args ...string) *rawServe {
	t.Helper()
	cmd := exec.Command(cursusBin(t), append([]string{"mcp", "serve"}, args...)...)
	cmd.Env, cmd.Dir = append(slices.Clip(env), "GOTRACEBACK=all"), dir // all goroutines, should wait time out
	s := &rawServe{cmd: cmd, lines: make(chan string, 1000), stderr: &lockedBuffer{b: &bytes.Buffer{}}, nextID: 100}
	cmd.Stderr = s.stderr
	var out io.ReadCloser
	s.in, out = startPiped(t, cmd)
	go func() {
		defer close(s.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = s.in.Close()
		_, _ = waitExit(cmd, 10*time.Second)
	})
	s.send(t, initLine)
	s.wait(t, "1", 30*time.Second)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServe) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			t.Fatalf("write to the server: %v (stderr: %s)", err, s.stderr.String())
		}
	}
}

// wait returns the answer with the given id (as its JSON text).
func (s *rawServe) wait(t testing.TB, id string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("the server closed stdout while %s was awaited; stderr:\n%s", id, s.stderr.String())
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
				s.stray = append(s.stray, line)
				continue
			}
			if fmt.Sprint(m["id"]) == id {
				return m
			}
		case <-deadline:
			// Where a server that stopped answering is stuck: SIGQUIT makes
			// the Go runtime write every goroutine's stack to stderr
			// (GOTRACEBACK=all, startRawServe) and exit; Wait has read all
			// of stderr when it returns.
			_ = s.cmd.Process.Signal(syscall.SIGQUIT)
			_, _ = waitExit(s.cmd, 10*time.Second)
			t.Fatalf("no answer to %s within %v; stderr, with the server's goroutines:\n%s", id, timeout, s.stderr.String())
		}
	}
}

// call calls a tool and returns the envelope; an answer later than limit
// fails the test (the limit turns a hang into a failure).
func (s *rawServe) call(t *testing.T, tool string, args any, limit time.Duration) map[string]any {
	t.Helper()
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	s.send(t, string(b))
	m := s.wait(t, strconv.Itoa(id), limit)
	res, _ := m["result"].(map[string]any)
	env, _ := res["structuredContent"].(map[string]any)
	if env == nil {
		t.Fatalf("%s answered %v, want a tool result", tool, m)
	}
	return env
}

// peakRSS is the subprocess's peak resident set in MiB (Linux).
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n >> 10
		}
	}
	return -1
}

// hostileLayout is a project root beside a directory outside it: a secret
// file outside, a symbolic link out, a FIFO inside.
func hostileLayout(t *testing.T) (root, outside, secret string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(outside, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"configuration": {"shared": {"role": "arn:aws:iam::999999999999:role/TopSecretRole", "bucket": "secret-bucket"}}, "dag": {"nodes": ["SecretNode"], "edges": []}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside, secret
}

// toolCall is one tool call of a hostile table.
type toolCall struct {
	tool string
	args map[string]any
}

// specialFileCalls are the reads of special files (devices, the server's
// own stdin and stdout, /proc, a FIFO under root) that used to exhaust
// memory, hijack the stream or hang.
func specialFileCalls(root string) []toolCall {
	fifo := filepath.Join(root, "fifo.json")
	return []toolCall{
		{"config__load", map[string]any{"config_file": "/dev/zero"}},
		{"config__load", map[string]any{"config_file": "/dev/stdin"}},
		{"config__load", map[string]any{"config_file": "/proc/self/fd/1"}},
		{"config__load", map[string]any{"config_file": "/proc/self/environ"}},
		{"config__load", map[string]any{"config_file": fifo}},
		{"dag__deserialize", map[string]any{"dag_file": "/dev/zero"}},
		{"dag__render", map[string]any{"dag_file": "/dev/urandom"}},
		{"compile__definition", map[string]any{"dag_file": "/dev/zero", "config_file": "/dev/zero"}},
		{"compile__validate", map[string]any{"dag_file": fifo, "config_file": fifo}},
		{"author__check_script", map[string]any{"step_name": "TabularPreprocessing", "script_path": "/dev/zero"}},
		{"author__check_script", map[string]any{"step_name": "TabularPreprocessing", "script_path": fifo}},
	}
}

// outsideReadCalls read outside the root: the secret by its absolute
// path, through the link out, through "..", a system file, and directories
// out of the root.
func outsideReadCalls(outside, secret string) []toolCall {
	return []toolCall{
		{"config__load", map[string]any{"config_file": secret}},
		{"config__load", map[string]any{"config_file": "link/secret.json"}},
		{"config__load", map[string]any{"config_file": "../outside/secret.json"}},
		{"config__load", map[string]any{"config_file": "/etc/passwd"}},
		{"dag__deserialize", map[string]any{"dag_file": "link/secret.json"}},
		{"dag__render", map[string]any{"dag_file": secret}},
		{"compile__definition", map[string]any{"dag_file": "link/secret.json", "config_file": secret}},
		{"config__requirements", map[string]any{"dag_file": "link/secret.json"}},
		{"validate__alignment", map[string]any{"script_dirs": []string{outside}}},
		{"catalog__list_steps", map[string]any{"workspace_dirs": []string{"link"}}},
	}
}

// secretLeaks are the strings no refusal of a read outside may carry.
var secretLeaks = []string{"TopSecretRole", "secret-bucket", "SecretNode", "root:x:"}

// TestSafeSpecialFiles: with the root at "/" (nothing is outside it), the
// special files that used to exhaust memory, hijack the stream or hang are
// refused at once, every later request is answered, and the memory stays
// low. Without such a root they are outside the root anyway.
func TestSafeSpecialFiles(t *testing.T) {
	t.Parallel()
	root, _, _ := hostileLayout(t)
	s := startRawServe(t, root, serveEnv(), "--project-root", "/")
	calls := specialFileCalls(root)
	for _, c := range calls {
		// A read that hangs (a FIFO, a terminal) never answers: the call's
		// limit turns that into a failure.
		if env := s.call(t, c.tool, c.args, time.Minute); env["ok"] != false {
			t.Errorf("%s %v: ok=%v (%v), want a refusal", c.tool, c.args, env["ok"], env["error"])
		}
	}
	// The stream was not hijacked: five calls, five answers.
	for i := range 5 {
		if env := s.call(t, "tools__help", map[string]any{}, time.Minute); env["ok"] != true {
			t.Fatalf("call %d after the special files: %v", i, env)
		}
	}
	if mib := peakRSS(s.cmd.Process.Pid); mib > 256 {
		t.Errorf("the server peaked at %d MiB", mib)
	}
	if len(s.stray) > 0 {
		t.Errorf("stdout carried non-JSON-RPC lines: %q", s.stray)
	}
	// The trusted CLI is protected the same way.
	out, err := exec.Command(cursusBin(t), "mcp", "call", "config.load", `{"config_file":"/dev/zero"}`).Output()
	if err == nil || !strings.Contains(string(out), "not a regular file") {
		t.Errorf("cursus mcp call config.load /dev/zero: %v %s", err, out)
	}
}

// TestSafeReadsConfined: the default server reads only under its root:
// absolute paths, "..", and links out are refused, nothing of the secret
// comes back, and a link out reads exactly like an absent file.
func TestSafeReadsConfined(t *testing.T) {
	t.Parallel()
	root, outside, secret := hostileLayout(t)
	s := startRawServe(t, root, serveEnv())
	for _, c := range outsideReadCalls(outside, secret) {
		env := s.call(t, c.tool, c.args, time.Minute)
		text, _ := json.Marshal(env)
		if env["ok"] != false {
			t.Errorf("%s %v outside the root: ok", c.tool, c.args)
		}
		for _, leak := range secretLeaks {
			if strings.Contains(string(text), leak) {
				t.Errorf("%s %v: the answer holds %q: %s", c.tool, c.args, leak, text)
			}
		}
	}
	viaLink := s.call(t, "config__load", map[string]any{"config_file": "link/secret.json"}, time.Minute)
	absent := s.call(t, "config__load", map[string]any{"config_file": "link/absent.json"}, time.Minute)
	if viaLink["code"] != absent["code"] || strings.Replace(fmt.Sprint(viaLink["error"]), "secret", "absent", 1) != fmt.Sprint(absent["error"]) {
		t.Errorf("a link out of the root tells an existing file from an absent one:\n%v\n%v", viaLink, absent)
	}
}

// TestSafeHTTPHostileReads: the special files and the reads outside the
// root, over Streamable HTTP: refused at once, nothing of the secret in
// any answer, the server's memory low, the session alive.
func TestSafeHTTPHostileReads(t *testing.T) {
	t.Parallel()
	root, outside, secret := hostileLayout(t)
	for _, c := range []struct {
		name  string
		args  []string
		calls []toolCall
	}{
		{"special files (root /)", []string{"--project-root", "/"}, specialFileCalls(root)},
		{"reads outside the root", nil, outsideReadCalls(outside, secret)},
	} {
		cs, pid, _ := httpServeIn(t, root, serveEnv(), c.args...)
		for _, call := range c.calls {
			env, _ := callEnvOf(t, cs, call.tool, call.args)
			text, _ := json.Marshal(env)
			if env["ok"] != false {
				t.Errorf("%s: %s %v: ok=%v, want a refusal", c.name, call.tool, call.args, env["ok"])
			}
			for _, leak := range secretLeaks {
				if strings.Contains(string(text), leak) {
					t.Errorf("%s: %s %v: the answer holds %q", c.name, call.tool, call.args, leak)
				}
			}
		}
		if env, _ := callEnvOf(t, cs, "tools__help", map[string]any{}); env["ok"] != true {
			t.Errorf("%s: the session did not survive: %v", c.name, env)
		}
		if mib := peakRSS(pid); mib > 256 {
			t.Errorf("%s: the HTTP server peaked at %d MiB", c.name, mib)
		}
	}
}

// TestSafeSignalsAfterAFIFO: a call on a FIFO (which used to block
// forever, and then no signal would end the server) is refused, and
// SIGTERM, SIGINT and the end of input each end the stdio server.
func TestSafeSignalsAfterAFIFO(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "SIGINT", "EOF"} {
		t.Run(how, func(t *testing.T) {
			root, _, _ := hostileLayout(t)
			s := startRawServe(t, root, serveEnv())
			if env := s.call(t, "config__load", map[string]any{"config_file": "fifo.json"}, time.Minute); env["ok"] != false {
				t.Errorf("config.load on a FIFO: %v", env["code"])
			}
			stopAndWait(t, s, how)
		})
	}
}

// TestSafeFrames: the stdio server answers a 1,200-deep frame, the line
// [], a batch, invalid UTF-8 and a huge line with JSON-RPC errors and goes
// on; the same deep body over HTTP answers 400 and the session lives.
func TestSafeFrames(t *testing.T) {
	t.Parallel()
	s := startRawServe(t, t.TempDir(), serveEnv())
	s.send(t, `{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"tools__help","arguments":`+deepArgs(1200)+`}}`,
		`{"jsonrpc":"2.0","id":9002,"method":"tools/call","params":{"name":"tools__help","arguments":`+deepArgs(998)+`}}`,
		`[]`, `[{"jsonrpc":"2.0","id":31,"method":"ping"}]`, "\xff\xfe{", "{\"jsonrpc\":\"2.0\",\"id\":32,\"method\":\"ping\",\"x\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"tools__help","arguments":{"x":"`+strings.Repeat("y", 17<<20)+`"}}}`)
	if m := s.wait(t, "9001", 30*time.Second); m["error"] == nil {
		t.Errorf("the 1,200-deep frame answered %v, want a JSON-RPC error", m)
	}
	if m := s.wait(t, "9002", 30*time.Second); m["error"] == nil && m["result"] == nil {
		t.Errorf("the 998-deep frame answered %v, want an answer", m)
	}
	if m := s.wait(t, "32", 30*time.Second); m["result"] == nil {
		t.Errorf("a ping with invalid UTF-8 in a string answered %v", m)
	}
	if m := s.wait(t, "33", 30*time.Second); m["error"] == nil {
		t.Errorf("the 17 MiB line answered %v, want a JSON-RPC error with its id", m)
	}
	if env := s.call(t, "tools__help", map[string]any{}, time.Minute); env["ok"] != true {
		t.Fatalf("the session did not survive: %v", env)
	}

	port := freePort(t)
	cmd := exec.Command(cursusBin(t), "mcp", "serve", "--http", port, "--no-auth")
	cmd.Env, cmd.Dir = serveEnv(), t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	url := "http://127.0.0.1:" + port + "/mcp"
	waitHTTP(t, url)
	resp := postJSON(t, url, "", "", initBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	deep := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tools__help","arguments":` + deepArgs(1200) + `}}`
	if r := postJSON(t, url, "", sid, deep); r.StatusCode != http.StatusBadRequest {
		t.Errorf("HTTP deep body: %d, want 400", r.StatusCode)
	}
	deep998 := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tools__help","arguments":` + deepArgs(998) + `}}`
	if r := postJSON(t, url, "", sid, deep998); r.StatusCode >= 500 {
		t.Errorf("HTTP 998-deep body: %d", r.StatusCode)
	}
	if r := postJSON(t, url, "", sid, `[]`); r.StatusCode != http.StatusBadRequest {
		t.Errorf("HTTP body []: %d, want 400", r.StatusCode)
	}
	if r := postJSON(t, url, "", sid, `{"jsonrpc":"2.0","id":6,"method":"ping"}`); r.StatusCode != http.StatusOK {
		t.Errorf("HTTP session after the deep bodies: %d", r.StatusCode)
	}
}

// TestSafeBigInputs: oversized arguments and the inputs that used to cost
// gigabytes are refused fast, no answer goes over the cap, the memory stays
// under the budget.
func TestSafeBigInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "big.py")
	if err := os.WriteFile(script, bytes.Repeat([]byte("x = '/opt/ml/processing/input/data'\n"), 280000), 0o644); err != nil { // 9.8 MB
		t.Fatal(err)
	}
	s := startRawServe(t, dir, serveEnv())
	nodeList := func(n int) []string {
		nodes := make([]string, n)
		for i := range nodes {
			nodes[i] = fmt.Sprintf("XGBoostTraining_%d", i)
		}
		return nodes
	}
	for _, c := range []struct {
		tool, code string
		args       map[string]any
	}{
		{"catalog__search", "too_large", map[string]any{"query": strings.Repeat("xgb ", 2_200_000)}},
		{"catalog__search", "invalid_input", map[string]any{"query": strings.Repeat("xgb ", 1000)}},
		{"config__requirements", "invalid_input", map[string]any{"dag": map[string]any{"nodes": nodeList(50_000), "edges": []any{}}}},
		{"config__requirements", "invalid_input", map[string]any{"dag": map[string]any{"nodes": nodeList(100_000), "edges": []any{}}}},
		{"author__check_script", "too_large", map[string]any{"step_name": "TabularPreprocessing", "script_path": "big.py"}},
	} {
		if env := s.call(t, c.tool, c.args, time.Minute); env["code"] != c.code {
			t.Errorf("%s: %v %v, want %s", c.tool, env["code"], env["error"], c.code)
		}
	}
	if mib := peakRSS(s.cmd.Process.Pid); mib > 256 {
		t.Errorf("the server peaked at %d MiB", mib)
	}
}

// TestSafeHTTPBigInputsAndWrites: over Streamable HTTP, a body over the
// argument cap is refused (413) and the session lives, config.requirements
// on 50k nodes and a 9.8 MB script are refused fast, and with writes
// allowed a write through a link out of the root, at the root itself or
// down a path too deep leaves nothing outside the root and no directory.
func TestSafeHTTPBigInputsAndWrites(t *testing.T) {
	t.Parallel()
	root, outside, _ := hostileLayout(t)
	if err := os.WriteFile(filepath.Join(root, "big.py"), bytes.Repeat([]byte("x = '/opt/ml/processing/input/data'\n"), 280000), 0o644); err != nil {
		t.Fatal(err)
	}
	parentBefore := listTree(t, filepath.Dir(root))
	cs, pid, url := httpServeIn(t, root, serveEnv(registry.EnvEnableDestructive+"=1"))
	nodes := make([]string, 50_000)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("XGBoostTraining_%d", i)
	}
	for _, c := range []struct {
		tool, code string
		args       map[string]any
	}{
		{"config__requirements", "invalid_input", map[string]any{"dag": map[string]any{"nodes": nodes, "edges": []any{}}}},
		{"author__check_script", "too_large", map[string]any{"step_name": "TabularPreprocessing", "script_path": "big.py"}},
	} {
		if env, _ := callEnvOf(t, cs, c.tool, c.args); env["code"] != c.code {
			t.Errorf("HTTP %s: %v %v, want %s", c.tool, env["code"], env["error"], c.code)
		}
	}
	small := map[string]any{"nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}}
	for _, out := range []string{"link/dag.json", ".", root, strings.Repeat("d/", 200) + strings.Repeat("n", 300) + "/x.json"} {
		if env, _ := callEnvOf(t, cs, "dag__serialize", map[string]any{"dag": small, "output_file": out}); env["ok"] != false {
			t.Errorf("HTTP dag.serialize to %.40q: ok, want refused", out)
		}
	}
	// The body over the cap, on a session of its own (the SDK's client
	// ends its session on a transport error): 413, and the server lives.
	resp := postJSON(t, url, "", "", initBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	big := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"catalog__search","arguments":{"query":"` + strings.Repeat("xgb ", 2_200_000) + `"}}}`
	if r := postJSON(t, url, "", sid, big); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an 8.8 MB body over HTTP: %d, want 413", r.StatusCode)
	}
	if env, _ := callEnvOf(t, cs, "tools__help", map[string]any{}); env["ok"] != true {
		t.Errorf("the HTTP session did not survive: %v", env)
	}
	if _, err := os.Stat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Error("a failed deep write over HTTP left directories")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("HTTP writes landed outside the root: %d entries", len(ents)-1)
	}
	if after := listTree(t, filepath.Dir(root)); !sameOutside(parentBefore, after, root) {
		t.Errorf("the root's parent changed:\nbefore %v\nafter  %v", parentBefore, after)
	}
	noTempFiles(t, filepath.Dir(root))
	if mib := peakRSS(pid); mib > 256 {
		t.Errorf("the HTTP server peaked at %d MiB", mib)
	}
}

// TestSafeWrites: with writes allowed, runs/ or runs/<id> as a link out of
// the root (before a run, or swapped in under a guided session's active
// run), a path through a link, the root itself and a failed deep path write
// nothing outside the root and leave nothing behind.
func TestSafeWrites(t *testing.T) {
	t.Parallel()
	root, outside, _ := hostileLayout(t)
	parentBefore := listTree(t, filepath.Dir(root))
	env := serveEnv(registry.EnvEnableDestructive + "=1")
	cs := subprocessSessionIn(t, root, env)
	small := map[string]any{"nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}}
	for _, out := range []string{"link/dag.json", ".", root, strings.Repeat("d/", 200) + strings.Repeat("n", 300) + "/x.json"} {
		if env, _ := callEnvOf(t, cs, "dag__serialize", map[string]any{"dag": small, "output_file": out}); env["ok"] != false {
			t.Errorf("dag.serialize to %.40q: ok, want refused", out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Errorf("a failed deep write left directories")
	}
	// runs/ as a link out of the root.
	if err := os.Symlink(outside, filepath.Join(root, "runs")); err != nil {
		t.Fatal(err)
	}
	callEnvOf(t, cs, "workflow__new_run", map[string]any{"run_id": "r1"})
	callEnvOf(t, cs, "workflow__run", map[string]any{"workflow": "init-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}})
	// runs/<id> as a link out of the root.
	if err := os.Remove(filepath.Join(root, "runs")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "runs", "evil")); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"workflow__start_stage", "workflow__complete_stage", "workflow__status"} {
		callEnvOf(t, cs, tool, map[string]any{"run_id": "evil"})
	}
	callEnvOf(t, cs, "workflow__run", map[string]any{"resume": "evil"})
	// A guided session's run swapped for a link out while it is active:
	// the reports the stage records are not written through the link.
	g := subprocessSessionIn(t, root, env, "--stage", "validate")
	if env, _ := callEnvOf(t, g, "workflow__new_run", map[string]any{"run_id": "g1"}); env["ok"] != true {
		t.Fatalf("new_run: %v", env)
	}
	callEnvOf(t, g, "workflow__start_stage", map[string]any{"run_id": "g1"})
	g1 := filepath.Join(root, "runs", "g1")
	if err := os.Rename(g1, g1+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, g1); err != nil {
		t.Fatal(err)
	}
	res, _ := callEnvOf(t, g, "dag__validate_integrity", map[string]any{"dag": small})
	if !strings.Contains(fmt.Sprint(res["warnings"]), "could not record") {
		t.Errorf("the report through a link out was not refused: %v", res["warnings"])
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("files written outside the root: %v", names)
	}
	if after := listTree(t, filepath.Dir(root)); !sameOutside(parentBefore, after, root) {
		t.Errorf("the root's parent changed:\nbefore %v\nafter  %v", parentBefore, after)
	}
	noTempFiles(t, root)
}

var swapRace = flag.Duration("swap-race", 10*time.Second, "how long TestSafeSymlinkSwapRace swaps runs/ for a link out of the root")

// TestSafeSymlinkSwapRace: dag.serialize through the server while runs/
// is swapped for a link out of the root and back (for -swap-race, 10 s by
// default): nothing lands outside, no temporary file is left.
func TestSafeSymlinkSwapRace(t *testing.T) {
	t.Parallel()
	root, outside, _ := hostileLayout(t)
	runs := filepath.Join(root, "runs")
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startRawServe(t, root, serveEnv(registry.EnvEnableDestructive+"=1"))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	swaps := 0
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(runs, runs+".real") == nil {
				_ = os.Symlink(outside, runs)
				swaps++
				time.Sleep(5 * time.Millisecond)
				_ = os.Remove(runs)
				// The server may have made a fresh runs/ in the instant
				// it was absent: drop it and put the real one back.
				for os.Rename(runs+".real", runs) != nil {
					_ = os.RemoveAll(runs)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	deadline := time.Now().Add(*swapRace)
	calls := 0
	for ; time.Now().Before(deadline); calls++ {
		// A call takes milliseconds; the bound only catches a server that
		// stopped answering. Two such stops, at 10 s and at 30 s, were the
		// Go runtime's stall of a stop-the-world behind a blocking read of
		// stdin (the goroutine dump showed it); ServeStdio no longer
		// blocks in that read (waitingReader).
		s.call(t, "dag__serialize", map[string]any{"dag": map[string]any{"nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}},
			"output_file": fmt.Sprintf("runs/r%d/dag.json", calls%20)}, 30*time.Second)
	}
	close(stop)
	wg.Wait()
	ents, _ := os.ReadDir(outside)
	t.Logf("%d dag.serialize calls, %d swaps in %v: %d entries outside the root besides the secret", calls, swaps, *swapRace, len(ents)-1)
	if swaps == 0 {
		t.Error("the swapper never swapped: the test proved nothing")
	}
	if len(ents) != 1 {
		t.Errorf("%d entries escaped the root", len(ents)-1)
	}
	noTempFiles(t, filepath.Dir(root))
}

// TestSafeSignalsWithAStuckCall: with a call in flight that does not
// return (a script beating forever), SIGTERM, SIGINT and the end of input
// each end the stdio server, and the script with it.
func TestSafeSignalsWithAStuckCall(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "SIGINT", "EOF"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			s := startStuck(t, dir)
			stopAndWait(t, s, how)
			// The script went with the server (its process group was killed).
			time.Sleep(300 * time.Millisecond)
			last := heartbeat(dir)
			time.Sleep(time.Second)
			if now := heartbeat(dir); now != last {
				t.Errorf("%s: the script outlived the server (beat %s, then %s)", how, last, now)
			}
		})
	}
}

// stopAndWait stops the stdio server the way how says (SIGTERM, SIGINT,
// or EOF: its input closed) and waits for it to exit; a server still
// running a minute later (a hang: it exits within its grace periods) is
// killed and fails the test.
func stopAndWait(t *testing.T, s *rawServe, how string) {
	t.Helper()
	switch how {
	case "SIGTERM":
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
	case "SIGINT":
		_ = s.cmd.Process.Signal(syscall.SIGINT)
	default:
		_ = s.in.Close()
	}
	if exited, _ := waitExit(s.cmd, time.Minute); !exited {
		t.Fatalf("%s: the server was still running a minute later", how)
	}
}

// startStuck starts the stdio server in dir (gates open) with a call in
// flight that never returns: validate.run_scripts of a script that beats
// forever. It returns once the script beats.
func startStuck(t testing.TB, dir string) *rawServe {
	t.Helper()
	py := scriptPython(t)
	writeSleeper(t, dir, 0)
	s := startRawServe(t, dir, serveEnv(registry.EnvAllowScriptExec+"=1", registry.EnvEnableDestructive+"=1", "CURSUS_PYTHON="+py))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": map[string]any{"name": "validate__run_scripts", "arguments": sleeperArgs}})
	s.send(t, string(b))
	waitFor(t, func() bool { return heartbeat(dir) != "" }, 60*time.Second, "the script to start")
	return s
}

// BenchmarkSIGTERMWithAStuckCall reports how long the stdio server takes
// to exit on SIGTERM while a call that never returns is in flight
// (exit-s; bounded by server.ShutdownGrace).
func BenchmarkSIGTERMWithAStuckCall(b *testing.B) {
	var total time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		s := startStuck(b, dir)
		b.StartTimer()
		start := time.Now()
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
		total += time.Since(start)
		n++
	}
	b.ReportMetric(total.Seconds()/float64(n), "exit-s")
}

// TestSafeHTTPAuth: a token is required on any address and honoured when
// set; session ids never reach the logs.
func TestSafeHTTPAuth(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(cursusBin(t), "mcp", "serve", "--http", "0.0.0.0:"+freePort(t))
	cmd.Env, cmd.Dir = serveEnv(), t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if exited, err := waitExit(cmd, 10*time.Second); !exited {
		t.Fatal("binding 0.0.0.0 without a token was not refused")
	} else if err == nil {
		t.Error("binding 0.0.0.0 without a token exited 0")
	}
	// Loopback too needs a token, unless --no-auth says otherwise.
	cmd = exec.Command(cursusBin(t), "mcp", "serve", "--http", freePort(t))
	cmd.Env, cmd.Dir = serveEnv(), t.TempDir()
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if exited, err := waitExit(cmd, 10*time.Second); !exited {
		t.Fatal("serving loopback without a token was not refused")
	} else if err == nil || !strings.Contains(stderr.String(), "--no-auth") {
		t.Errorf("serving loopback without a token: %v\n%s", err, stderr.String())
	}

	port := freePort(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(cursusBin(t), "mcp", "serve", "--http", port, "--auth-token-file", tokenFile, "--log-level", "debug")
	cmd.Env, cmd.Dir = serveEnv(), t.TempDir()
	logs := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	url := "http://127.0.0.1:" + port + "/mcp"
	waitHTTP(t, url)
	if r := postJSON(t, url, "", "", initBody); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", r.StatusCode)
	}
	if r := postJSON(t, url, "wrong", "", initBody); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", r.StatusCode)
	}
	r := postJSON(t, url, "s3cret-token", "", initBody)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("right token: %d", r.StatusCode)
	}
	sid := r.Header.Get("Mcp-Session-Id")
	// The SDK logs the new session with its id as an attribute: once that
	// record is in, the id's absence means the filter dropped it.
	waitFor(t, func() bool { return strings.Contains(logs.String(), "server session connected") }, 10*time.Second, "the session's log record")
	if sid == "" || strings.Contains(logs.String(), sid) {
		t.Errorf("session id %q in the logs:\n%s", sid, logs.String())
	}
	if strings.Contains(logs.String(), "s3cret-token") {
		t.Error("the token is in the logs")
	}
}

// TestSafeHTTPDrainOnSIGTERM: SIGTERM with a call in flight over HTTP (a
// step script that has started, known from its heartbeat, and ends a
// moment later) delivers the call's answer, then exits.
func TestSafeHTTPDrainOnSIGTERM(t *testing.T) {
	t.Parallel()
	py := scriptPython(t)
	dir := t.TempDir()
	writeSleeper(t, dir, 20) // beats, then ends after 20 beats (about a second)
	port := freePort(t)
	cmd := exec.Command(cursusBin(t), "mcp", "serve", "--http", port, "--no-auth")
	cmd.Env, cmd.Dir = serveEnv(registry.EnvAllowScriptExec+"=1", registry.EnvEnableDestructive+"=1", "CURSUS_PYTHON="+py), dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:" + port + "/mcp"
	waitHTTP(t, url)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "validate__run_scripts", Arguments: sleeperArgs})
		if err != nil {
			answered <- map[string]any{"error": err.Error()}
			return
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env map[string]any
		_ = json.Unmarshal(b, &env)
		answered <- env
	}()
	waitFor(t, func() bool { return heartbeat(dir) != "" }, 60*time.Second, "the script to start")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if env := <-answered; env["ok"] != true {
		t.Errorf("the call in flight at SIGTERM answered %v", env)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after the drain: %v", err)
	}
}

// TestSafeCLIWritesWherePointed: the CLI is a trusted caller: it writes
// where its user points it, outside the working directory included.
func TestSafeCLIWritesWherePointed(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "elsewhere", "config.json")
	cmd := exec.Command(cursusBin(t), "mcp", "call", "config.merge_save", `{"dag": {"nodes": ["DummyDataLoading_training"]}, "base": {"author": "a", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R", "region": "NA", "service_name": "S", "pipeline_version": "1.0.0", "project_root_folder": "p"}, "steps": {"DummyDataLoading_training": {"data_source": "s3://example-bucket/x/"}}, "output_file": "`+out+`"}`)
	cmd.Env, cmd.Dir = serveEnv(), t.TempDir()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the CLI did not write where it was pointed: %v", err)
	}
}

// TestSafeDeepPython: a script nested deeper than the parser can follow is
// a script_analysis_error naming the cause, not an internal error with a
// traceback.
func TestSafeDeepPython(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "x = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "deep.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startRawServe(t, dir, serveEnv("CURSUS_PYTHON="+scriptPython(t)))
	env := s.call(t, "author__check_script", map[string]any{"step_name": "TabularPreprocessing", "script_path": "deep.py"}, time.Minute)
	text, _ := json.Marshal(env)
	if env["code"] == "internal_error" || strings.Contains(string(text), "Traceback") {
		t.Errorf("deeply nested Python answered %s", text)
	}
}

func subprocessSessionIn(t *testing.T, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(cursusBin(t), append([]string{"mcp", "serve"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	stderr := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// httpServeIn starts `cursus mcp serve --http` in dir and connects the
// go-sdk client to it; it returns the session, the server's pid and its
// endpoint.
func httpServeIn(t *testing.T, dir string, env []string, args ...string) (*mcp.ClientSession, int, string) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(cursusBin(t), append([]string{"mcp", "serve", "--http", port, "--no-auth"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	stderr := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = waitExit(cmd, 10*time.Second)
	})
	url := "http://127.0.0.1:" + port + "/mcp"
	waitHTTP(t, url)
	return httpSession(t, url, "2025-06-18"), cmd.Process.Pid, url
}

func callEnvOf(t *testing.T, cs *mcp.ClientSession, name string, args any) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	res, env := callEnv(t, cs, name, args)
	return env, res
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// sameOutside reports whether two listings agree on everything outside root.
func sameOutside(a, b []string, root string) bool {
	filter := func(in []string) []string {
		var out []string
		for _, p := range in {
			if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
				out = append(out, p)
			}
		}
		return out
	}
	fa, fb := filter(a), filter(b)
	return strings.Join(fa, "\n") == strings.Join(fb, "\n")
}

func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	for _, p := range listTree(t, dir) {
		if strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	waitFor(t, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}, 20*time.Second, "the HTTP server to listen")
}

func waitFor(t testing.TB, cond func() bool, timeout time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeSleeper writes a one-node project (the simple-training example's
// config) whose script, run by validate.run_scripts (sleeperArgs), beats
// (rewrites a count into its output directory every 50 ms), and ends after
// beats beats, or never when beats is 0.
func writeSleeper(t testing.TB, dir string, beats int) {
	t.Helper()
	cfg, err := os.ReadFile("../examples/simple-training/config.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sleepers"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The script runs sandboxed: only its output directory reaches the
	// project (under the runner's run directory).
	script := fmt.Sprintf("import os, time\nd = '/opt/ml/processing/output/data'\nos.makedirs(d, exist_ok=True)\ni = 0\nwhile %d == 0 or i < %d:\n", beats, beats) +
		"    i += 1\n    with open(d + '/beat.tmp', 'w') as f:\n        f.write(str(i))\n    os.replace(d + '/beat.tmp', d + '/beat')\n    time.sleep(0.05)\n"
	if err := os.WriteFile(filepath.Join(dir, "sleepers", "dummy_data_loading.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sleeperArgs are the arguments of the validate.run_scripts call that runs
// the script writeSleeper writes.
var sleeperArgs = map[string]any{"dag": map[string]any{"nodes": []string{"DummyDataLoading_training"}}, "config_file": "config.json", "script_dirs": []string{"sleepers"}, "timeout_seconds": 3600}

// scriptPython is the interpreter every test runs step scripts with
// (testenv.Python); the test skips where there is none, and fails under CI.
func scriptPython(t testing.TB) string {
	t.Helper()
	py := testenv.Python()
	if py == "" {
		testenv.Missing(t, "python3 is needed to run a step script: set CURSUS_PYTHON or install /usr/bin/python3")
	}
	return py
}

// heartbeat is the sleeper's last count, or "" before it started.
func heartbeat(dir string) string {
	var beat string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "beat" {
			b, _ := os.ReadFile(p)
			beat = string(b)
			return fs.SkipAll
		}
		return nil
	})
	return beat
}

// String returns what was written so far.
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/cli"
	"github.com/cursus-go/cursus/registry"
)

// serveRun runs `cursus mcp serve ARGS` in process with the given JSON-RPC
// lines on stdin, and returns the exit code, the decoded stdout messages
// by id, and stderr. Every stdout line must be a JSON-RPC message.
func serveRun(t *testing.T, lines []string, args ...string) (int, map[string]map[string]any, string) {
	t.Helper()
	t.Setenv(registry.EnvProjectRoot, t.TempDir())
	var out, errb bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	code := cli.Run(append([]string{"cursus", "mcp", "serve"}, args...), in, &out, &errb)
	msgs := map[string]map[string]any{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		msgs[fmt.Sprint(m["id"])] = m
	}
	return code, msgs, errb.String()
}

var session = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"0"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
}

func listedNames(t *testing.T, msgs map[string]map[string]any) []string {
	t.Helper()
	res, _ := msgs["2"]["result"].(map[string]any)
	tools, ok := res["tools"].([]any)
	if !ok {
		t.Fatalf("no tools/list answer: %v", msgs["2"])
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// expected lists the wire names of the tools a policy lets through: of
// the core toolset (what a session lists at first), or all of them.
func expected(p registry.Policy, all bool) []string {
	var names []string
	for _, tool := range cursus.ListTools("") {
		def, _ := cursus.Registry().Get(tool.Name)
		if ok, _ := p.Allows(def); ok && !def.NamespaceHelp() && (all || def.Core) {
			names = append(names, tool.WireName)
		}
	}
	sort.Strings(names)
	return names
}

func TestServeStdioInProcess(t *testing.T) {
	t.Setenv(registry.EnvEnableDestructive, "")
	t.Setenv(registry.EnvAllowScriptExec, "")
	var gated string
	for _, tool := range cursus.ListTools("") {
		if tool.Destructive || tool.Writes {
			gated = tool.WireName
			break
		}
	}
	lines := append(session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tools__by_phase","arguments":{"phase":"planner"}}}`)
	if gated != "" {
		lines = append(lines, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"`+gated+`","arguments":{}}}`)
	}
	code, msgs, stderr := serveRun(t, lines)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res, _ := msgs["1"]["result"].(map[string]any)
	info, _ := res["serverInfo"].(map[string]any)
	if info["name"] != "cursus" || info["version"] != cursus.Version {
		t.Fatalf("serverInfo = %v", info)
	}
	if got, want := listedNames(t, msgs), expected(registry.Policy{}, false); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("default list = %v, want %v", got, want)
	}
	if r, _ := msgs["3"]["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Fatalf("tools__by_phase: %v", msgs["3"])
	}
	if gated != "" {
		r, _ := msgs["4"]["result"].(map[string]any)
		if r["isError"] != true || !strings.Contains(fmt.Sprint(r["content"]), "tool_disabled") {
			t.Fatalf("%s by name: %v", gated, msgs["4"])
		}
	}
	if !strings.Contains(stderr, "mcp server built") {
		t.Fatalf("no server log on stderr: %s", stderr)
	}
}

func TestServePolicyFromEnvAndFlags(t *testing.T) {
	cases := []struct {
		name        string
		destructive string // environment values
		exec        string
		args        []string
		want        registry.Policy
	}{
		{"closed", "", "", nil, registry.Policy{}},
		{"env-any-value-opens", "0", "", nil, registry.Policy{AllowDestructive: true}},
		{"flag-opens", "", "", []string{"--allow-script-exec"}, registry.Policy{AllowScriptExec: true}},
		{"env-and-flag", "1", "", []string{"--allow-script-exec"}, registry.Policy{AllowDestructive: true, AllowScriptExec: true}},
		{"flags", "", "", []string{"--allow-destructive", "--allow-script-exec"}, registry.Policy{AllowDestructive: true, AllowScriptExec: true}},
		{"selection", "", "", []string{"--namespaces", "tools", "--exclude-tools", "tools.help"}, registry.Policy{}},
		{"toolsets-all", "", "", []string{"--toolsets", "all", "--allow-destructive"}, registry.Policy{AllowDestructive: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(registry.EnvEnableDestructive, c.destructive)
			t.Setenv(registry.EnvAllowScriptExec, c.exec)
			code, msgs, stderr := serveRun(t, session, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want := expected(c.want, c.name == "toolsets-all")
			if c.name == "selection" {
				want = []string{"tools__by_phase", "tools__describe_tool", "tools__toolsets"}
			}
			if got := listedNames(t, msgs); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("list = %v, want %v", got, want)
			}
		})
	}
}

func TestServeUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tools", "nope.tool,tools.help"}, "nope.tool"},
		{[]string{"--namespaces", "ghost"}, "ghost"},
		{[]string{"--exclude-tools", "gone__tool"}, "gone__tool"},
		{[]string{"--toolsets", "core,ghostset"}, "ghostset"},
		{[]string{"--toolsets", "all", "--guided"}, "--toolsets"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--project-root", "/no/such/dir"}, "/no/such/dir"},
		{[]string{"stray"}, "stray"},
	} {
		code, msgs, stderr := serveRun(t, session, c.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) || len(msgs) != 0 {
			t.Errorf("%v: exit %d, stdout %v, stderr %q; want exit 2 naming %q", c.args, code, msgs, stderr, c.want)
		}
	}
}

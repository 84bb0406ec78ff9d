package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// onRequestNamespace holds a tool listed only on request.
func onRequestNamespace() registry.Namespace {
	return registry.Namespace{Name: "later", Description: "Tools listed on request.", Tools: []*registry.ToolDef{
		registry.New("later.peek", flagged("Answers peeked.", func(s *registry.Spec) { s.OnRequest = true }), func(context.Context, noArgs) (*envelope.ToolResult, error) {
			return envelope.OK("peeked"), nil
		}),
	}}
}

// TestOnRequestTools: a static server leaves a tool marked OnRequest out of
// its default list, names it in its instructions and runs it when called by
// name; a selection that names its namespace lists it; one that leaves the
// namespace out refuses it; guided mode is not affected (its stages list
// what they list).
func TestOnRequestTools(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, onRequestNamespace())

	cs := connect(t, newServer(t, reg, server.Options{}), "")
	if names := listNames(t, cs); slices.Contains(names, "later__peek") || !slices.Contains(names, "demo__echo") {
		t.Errorf("default list %v: want demo__echo, not later__peek", names)
	}
	if inst := cs.InitializeResult().Instructions; !strings.Contains(inst, "Listed on request, callable by name (tools__describe_tool gives their schemas): later__peek.") {
		t.Errorf("instructions do not name the tool listed on request: %s", inst)
	}
	if _, env := callEnv(t, cs, "later__peek", map[string]any{}); env["ok"] != true || env["data"] != "peeked" {
		t.Errorf("call by name: %v", env)
	}

	cs = connect(t, newServer(t, reg, server.Options{Namespaces: []string{"later"}}), "")
	if names := listNames(t, cs); !slices.Contains(names, "later__peek") {
		t.Errorf("--namespaces later lists %v, without later__peek", names)
	}
	if strings.Contains(cs.InitializeResult().Instructions, "Listed on request") {
		t.Error("instructions name tools listed on request although the selection lists them")
	}

	cs = connect(t, newServer(t, reg, server.Options{Tools: []string{"later.peek"}}), "")
	if names := listNames(t, cs); !slices.Equal(names, []string{"later__peek"}) {
		t.Errorf("--tools later.peek lists %v", names)
	}

	cs = connect(t, newServer(t, reg, server.Options{Namespaces: []string{"demo"}}), "")
	_, env := callEnv(t, cs, "later__peek", map[string]any{})
	wantCode(t, env, string(envelope.CodeToolDisabled))
}

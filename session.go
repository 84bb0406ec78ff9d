package cursus

import (
	"context"
	"slices"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
	"github.com/cursus-go/cursus/workflow"
)

// SessionOptions configures NewSession.
type SessionOptions struct {
	// Stage pins the session to one stage ("plan", "compile", ...): it
	// lists and calls only that stage's tools and never moves. Empty starts
	// in "orchestrator" and follows workflow.start_stage and
	// workflow.complete_stage.
	Stage string
	// Policy, when set, applies its gates and file confinement (as the MCP
	// server does); nil is a trusted caller. Runs live under the policy's
	// ProjectRoot, else CURSUS_MCP_PROJECT_ROOT, else the working directory.
	Policy *registry.Policy
	// Registry is the registry the session calls (the MCP server's, with
	// its selection); nil is Registry().
	Registry *registry.Registry
}

// Session is a guided session: the Go counterpart of one MCP session of
// `cursus mcp serve --guided`. Its active stage decides which tools
// ListTools returns and CallTool accepts; a tool outside the stage answers
// tool_not_in_stage with a remedy naming the stages that offer it. While a
// stage of a run is active, the results of the tools the stage records are
// saved in the run folder. A Session is safe for concurrent use, and
// sessions are independent of each other.
type Session struct{ s *workflow.Session }

// NewSession starts a guided session. It fails on an unknown stage.
func NewSession(opts SessionOptions) (*Session, error) {
	reg := opts.Registry
	if reg == nil {
		var err error
		if reg, err = Build(); err != nil {
			return nil, err
		}
	}
	s, err := workflow.NewSession(workflow.SessionOptions{Stage: opts.Stage, Policy: opts.Policy, Registry: reg})
	if err != nil {
		return nil, err
	}
	return &Session{s: s}, nil
}

// CallTool calls a tool in the session (dotted or wire name; args as for
// the package-level CallTool).
func (s *Session) CallTool(ctx context.Context, name string, args any) *envelope.ToolResult {
	return s.s.Call(ctx, name, args)
}

// CallToolJSON is CallTool that also returns the result's wire form (its
// JSON), encoded once: a front end sends these bytes as they are. Do not
// modify them.
func (s *Session) CallToolJSON(ctx context.Context, name string, args any) (*envelope.ToolResult, []byte) {
	return s.s.CallJSON(ctx, name, args)
}

// ListTools lists the tools of the active stage (allowed by the session's
// policy), sorted by name.
func (s *Session) ListTools() []Tool {
	defs := s.s.Tools()
	out := make([]Tool, 0, len(defs))
	for _, t := range defs {
		out = append(out, toTool(t, true))
	}
	return out
}

// Tools returns the registry's definitions of the tools ListTools lists,
// without building their descriptions: for a front end (the MCP server)
// that registers them itself.
func (s *Session) Tools() []*registry.ToolDef { return s.s.Tools() }

// Stage returns the active stage.
func (s *Session) Stage() string { return s.s.Stage() }

// Pinned reports whether the session is pinned to one stage.
func (s *Session) Pinned() bool { return s.s.Pinned() }

// RunID returns the run the active stage works on ("" before
// workflow.start_stage).
func (s *Session) RunID() string { return s.s.RunID() }

// OnStageChange registers fn to run after each change of the active stage.
func (s *Session) OnStageChange(fn func(from, to string)) { s.s.OnStageChange(fn) }

// Stage describes one guided stage.
type Stage struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	ModelTier   string   `json:"model_tier"` // "strong" or "fast"
	Tools       []string `json:"tools"`      // besides the tools.* and workflow.* tools, visible everywhere
	Prompt      string   `json:"prompt"`     // with {run_id}, {dag_file}, ... placeholders
	Checklist   []string `json:"checklist"`
}

// Stages returns the guided stages: the hub (orchestrator), then the
// stages in the order workflow.start_stage walks them.
func Stages() []Stage {
	set, err := stages.Default()
	if err != nil {
		panic("cursus: embedded stages: " + err.Error()) // the stages tests load them
	}
	var out []Stage
	for _, st := range set.Stages() {
		out = append(out, Stage{
			Name: st.Name, Description: st.Description, ModelTier: string(st.ModelTier),
			Tools: append([]string{}, st.Tools...), Prompt: st.Prompt, Checklist: append([]string{}, st.Checklist...),
		})
	}
	return out
}

// RecordedTools returns the tools whose results some guided stage saves
// as run reports while it is active, sorted: in guided mode a call of one
// of them writes a file into the run folder, whatever the tool itself
// does.
func RecordedTools() []string {
	set, err := stages.Default()
	if err != nil {
		panic("cursus: embedded stages: " + err.Error()) // the stages tests load them
	}
	seen := map[string]bool{}
	var out []string
	for _, st := range set.Stages() {
		for _, r := range st.Record {
			if !seen[r.Tool] {
				seen[r.Tool] = true
				out = append(out, r.Tool)
			}
		}
	}
	slices.Sort(out)
	return out
}

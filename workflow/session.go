package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
)

// SessionOptions configures NewSession.
type SessionOptions struct {
	// Stage pins the session to one stage (the server's --stage): it never
	// changes. Empty starts in the hub (orchestrator) and follows
	// workflow.start_stage and workflow.complete_stage.
	Stage string
	// Policy, when set, applies its gates and write confinement to every
	// call, as the MCP server does. Nil is a trusted caller.
	Policy *registry.Policy
	// Registry is the registry the session calls (required; the facade's
	// default registry holds every tool the stages list).
	Registry *registry.Registry
}

// Session is one agent's guided session: its active stage decides which
// tools it sees and may call. It implements registry.Scope (an out-of-stage
// call answers tool_not_in_stage with the stages that offer the tool) and
// registry.CallObserver (while a run is active, the results of the tools
// the stage records become the run's reports). A Session is safe for
// concurrent use; sessions are independent of each other.
type Session struct {
	reg    *registry.Registry
	set    *stages.Set
	policy *registry.Policy
	pinned bool

	mu        sync.Mutex
	stage     string
	run       *stages.Run
	listeners []func(from, to string)
}

// NewSession returns a session in the hub stage, or pinned to opts.Stage.
// An unknown stage is an error listing the known ones; so is a session
// without a registry.
func NewSession(opts SessionOptions) (*Session, error) {
	reg := opts.Registry
	if reg == nil {
		return nil, errors.New("workflow: a session needs the registry it calls (SessionOptions.Registry)")
	}
	set, err := stages.Default()
	if err != nil {
		return nil, err
	}
	s := &Session{reg: reg, set: set, policy: opts.Policy, stage: set.Hub()}
	if opts.Stage != "" {
		if _, err := set.Lookup(opts.Stage); err != nil {
			return nil, err
		}
		s.stage, s.pinned = opts.Stage, true
	}
	return s, nil
}

// Stage returns the active stage.
func (s *Session) Stage() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stage
}

// Pinned reports whether the session is pinned to one stage.
func (s *Session) Pinned() bool { return s.pinned }

// RunID returns the id of the run the active stage works on, or "".
func (s *Session) RunID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		return ""
	}
	return s.run.ID
}

// Stages returns the stage definitions the session uses.
func (s *Session) Stages() *stages.Set { return s.set }

// Registry returns the registry the session calls.
func (s *Session) Registry() *registry.Registry { return s.reg }

// OnStageChange registers fn to run after every change of the active
// stage (the MCP server uses it to update the session's tool list). fn runs
// on the goroutine that made the change, outside the session's lock.
func (s *Session) OnStageChange(fn func(from, to string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

// setStage makes stage active for run (nil keeps the current run) and
// reports the previous stage and whether it changed. A pinned session
// never changes.
func (s *Session) setStage(stage string, run *stages.Run) (from string, changed bool) {
	s.mu.Lock()
	from = s.stage
	if s.pinned {
		if run != nil {
			s.run = run
		}
		s.mu.Unlock()
		return from, false
	}
	if run != nil {
		s.run = run
	}
	changed = from != stage
	s.stage = stage
	ls := append([]func(string, string){}, s.listeners...)
	s.mu.Unlock()
	if changed {
		for _, fn := range ls {
			fn(from, stage)
		}
	}
	return from, changed
}

// Visible reports whether a tool is visible in the active stage. A
// deprecated tool is visible where its replacement is.
func (s *Session) Visible(t *registry.ToolDef) bool {
	return s.visibleIn(s.Stage(), t)
}

func (s *Session) visibleIn(stage string, t *registry.ToolDef) bool {
	name := t.Name
	if t.DeprecatedBy != "" {
		name = t.DeprecatedBy
	}
	if t.CallsTools {
		// A tool that runs other tools would carry the session past its
		// stage: only a stage that names it offers it.
		return s.set.Lists(stage, name)
	}
	return s.set.Visible(stage, name)
}

// Tools returns the tools the session lists: visible in the active stage,
// not deprecated, and allowed by the session's policy, sorted by name.
func (s *Session) Tools() []*registry.ToolDef {
	return s.toolsIn(s.Stage())
}

// toolsIn lists a stage's tools: visible in it, allowed by the policy,
// and not a generated <ns>.help (tools.help {"namespace": ...} answers the
// same; it stays callable).
func (s *Session) toolsIn(stage string) []*registry.ToolDef {
	var out []*registry.ToolDef
	for _, t := range s.reg.List("") {
		if !s.visibleIn(stage, t) || t.NamespaceHelp() {
			continue
		}
		if s.policy != nil {
			if ok, _ := s.policy.Allows(t); !ok {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// Allows implements registry.Scope.
func (s *Session) Allows(t *registry.ToolDef) (bool, *envelope.ToolError) {
	stage := s.Stage()
	if s.visibleIn(stage, t) {
		return true, nil
	}
	return false, s.notInStage(stage, t)
}

func (s *Session) notInStage(stage string, t *registry.ToolDef) *envelope.ToolError {
	offered := s.set.Offering(t.Name)
	if t.DeprecatedBy != "" {
		offered = s.set.Offering(t.DeprecatedBy)
	}
	offered = nonNilStrings(offered)
	visible := []string{}
	for _, v := range s.toolsIn(stage) {
		visible = append(visible, v.Name)
	}
	var msg, fix string
	switch {
	case len(offered) == 0:
		msg = fmt.Sprintf("tool '%s' is not offered in stage '%s' nor in any other guided stage", t.Name, stage)
		fix = "use one of the tools of this stage (meta.details.visible_tools); this tool is only available on a server started without --guided or --stage"
	case s.pinned:
		msg = fmt.Sprintf("tool '%s' is not offered in stage '%s', which this session is pinned to; stage(s) offering it: %s", t.Name, stage, strings.Join(offered, ", "))
		fix = "use the tools of stage " + stage + ", or ask the user to restart the server with --stage " + offered[0] + " (or --guided to move between stages)"
	default:
		msg = fmt.Sprintf("tool '%s' is not offered in the active stage '%s'; stage(s) offering it: %s", t.Name, stage, strings.Join(offered, ", "))
		if stage == s.set.Hub() {
			fix = "call workflow.start_stage {\"run_id\": ...}: the server picks the stage the run needs and lists its tools (" + t.Name + " is in " + strings.Join(offered, ", ") + ")"
		} else {
			fix = "finish this stage with workflow.complete_stage, then workflow.start_stage moves the run to the stage its artifacts need (" + t.Name + " is in " + strings.Join(offered, ", ") + ")"
		}
	}
	remedy := []string{"workflow.status", "workflow.start_stage"}
	if stage != s.set.Hub() {
		remedy = []string{"workflow.complete_stage", "workflow.start_stage", "workflow.status"}
	}
	return envelope.Errorf(envelope.CodeToolNotInStage, "%s", msg).
		WithDetails("active_stage", stage, "offered_in", offered, "visible_tools", visible, "pinned", s.pinned).
		WithRemedy(fix, remedy...)
}

// Context returns ctx with the session as its scope and, when set, its
// policy: calls through the registry with it behave as Call.
func (s *Session) Context(ctx context.Context) context.Context {
	if s.policy != nil {
		ctx = registry.WithPolicy(ctx, *s.policy)
	}
	return registry.WithScope(ctx, s)
}

// Call calls a tool (dotted or wire name) in the session.
func (s *Session) Call(ctx context.Context, name string, args any) *envelope.ToolResult {
	return s.reg.Call(s.Context(ctx), name, args)
}

// CallJSON is Call that also returns the wire form of the result, encoded
// once (see registry.Registry.CallJSON).
func (s *Session) CallJSON(ctx context.Context, name string, args any) (*envelope.ToolResult, []byte) {
	return s.reg.CallJSON(s.Context(ctx), name, args)
}

// SessionFrom returns the session a call runs in, or nil (a call outside a
// guided session, or a nested call).
func SessionFrom(ctx context.Context) *Session {
	s, _ := registry.ScopeFrom(ctx).(*Session)
	return s
}

// writesAllowed reports whether the session may write run files: a trusted
// session may, a policy must open the write gate.
func (s *Session) writesAllowed() bool {
	return s.policy == nil || s.policy.AllowDestructive
}

// ObserveCall implements registry.CallObserver: the result's next steps
// stay within the active stage (scopeNextSteps); while a run is active, the
// result of a tool the active stage records is written to
// reports/<tool>.json, and a captured field to its run artifact; meta.recorded
// (and meta.saved) name the files. Nothing is written when the session's
// policy keeps the write gate closed (a warning says so).
func (s *Session) ObserveCall(ctx context.Context, t *registry.ToolDef, args []byte, res *envelope.ToolResult) {
	s.mu.Lock()
	stage, run := s.stage, s.run
	s.mu.Unlock()
	if res == nil {
		return
	}
	s.scopeNextSteps(stage, run, res)
	if run == nil {
		return
	}
	run = run.WithFS(safefs.From(ctx)) // this call's file-access layer
	st, ok := s.set.Stage(stage)
	if !ok {
		return
	}
	rec, ok := st.RecordFor(t.Name)
	if !ok {
		return
	}
	if !s.writesAllowed() {
		res.WithWarnings(fmt.Sprintf("not recorded as a report of run %s: writes are disabled (%s)", run.ID, registry.EnvEnableDestructive))
		return
	}
	if rec.Capture != nil && res.OK && t.WriteArg != "" && givenArg(args, t.WriteArg) {
		// The tool wrote what the run keeps to a file of the caller's, so
		// its answer has nothing to capture.
		res.WithWarnings(fmt.Sprintf("not recorded as a report of run %s: %s wrote its %s to the %s file instead of answering it; call %s without %s so the run keeps it",
			run.ID, t.Name, rec.Capture.Field, t.WriteArg, t.Name, t.WriteArg))
		return
	}
	if err := s.record(run, stage, rec, args, res); err != nil {
		slog.Warn("recording a run report failed", "run", run.ID, "tool", t.Name, "error", err)
		res.WithWarnings(fmt.Sprintf("could not record this result as a report of run %s: %v", run.ID, err))
	}
}

// scopeNextSteps keeps a result's next steps within the active stage: a
// step whose tool the stage does not offer gives way, once per stage that
// offers it, to the move there, which names the stage and the tools it
// offers: workflow.start_stage from the hub, workflow.complete_stage from
// another stage, workflow.status in a pinned session (which cannot move).
// A step whose tool no stage offers (workflow.run) is dropped.
func (s *Session) scopeNextSteps(stage string, run *stages.Run, res *envelope.ToolResult) {
	if len(res.NextSteps) == 0 {
		return
	}
	kept := make([]envelope.NextStep, 0, len(res.NextSteps))
	moves := map[string][]string{} // stage -> the tools the steps named there
	var order []string
	for _, ns := range res.NextSteps {
		t, ok := s.reg.Get(ns.Tool)
		if !ok || s.visibleIn(stage, t) {
			kept = append(kept, ns)
			continue
		}
		name := t.Name
		if t.DeprecatedBy != "" {
			name = t.DeprecatedBy
		}
		to := ""
		for _, st := range s.set.Names() {
			if s.visibleIn(st, t) {
				to = st
				break
			}
		}
		if to == "" {
			continue
		}
		if _, seen := moves[to]; !seen {
			order = append(order, to)
		}
		if !slices.Contains(moves[to], name) {
			moves[to] = append(moves[to], name)
		}
	}
	var hint map[string]any
	if run != nil {
		hint = map[string]any{"run_id": run.ID}
	}
	for _, to := range order {
		tools := strings.Join(moves[to], ", ")
		switch {
		case s.pinned:
			kept = append(kept, envelope.NextStep{Tool: "workflow.status",
				When: fmt.Sprintf("the next tools (%s) are in stage %s, which this session (pinned to %s) does not offer", tools, to, stage),
				Why:  fmt.Sprintf("says where the run is; a server started with --stage %s (or --guided) offers them", to), ArgsHint: hint})
		case stage == s.set.Hub():
			kept = append(kept, envelope.NextStep{Tool: "workflow.start_stage",
				When: fmt.Sprintf("the next tools (%s) are in stage %s", tools, to),
				Why:  "moves the run to the stage its artifacts need and lists that stage's tools", ArgsHint: hint})
		default:
			kept = append(kept, envelope.NextStep{Tool: "workflow.complete_stage",
				When: fmt.Sprintf("this stage's checklist is done; the next tools (%s) are in stage %s", tools, to),
				Why:  "checks this stage's artifacts and returns to the orchestrator, where workflow.start_stage moves the run on", ArgsHint: hint})
		}
	}
	res.NextSteps = kept
}

// givenArg reports whether the call's arguments give name a non-empty value.
func givenArg(args []byte, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	v, ok := m[name]
	return ok && string(v) != "null" && string(v) != `""`
}

func (s *Session) record(run *stages.Run, stage string, rec stages.Record, args []byte, res *envelope.ToolResult) error {
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if rec.Capture != nil && res.OK {
		path := run.Path(rec.Capture.File)
		pretty, slim, err := stages.CaptureField(body, rec.Capture.Field, path)
		if err != nil {
			return err
		}
		if err := run.WriteArtifact(rec.Capture.File, pretty); err != nil {
			return err
		}
		res.SetMeta("saved", path)
		body = slim
	}
	wd, _ := os.Getwd()
	if len(args) == 0 {
		args = []byte("{}")
	}
	rep := &stages.Report{Tool: res.Meta["tool"].(string), Stage: stage, RecordedAt: time.Now().UTC(), WorkDir: wd,
		Args: json.RawMessage(args), OK: res.OK, Result: body}
	if err := run.WriteReport(rep); err != nil {
		return err
	}
	p, _ := run.ReportPath(rep.Tool)
	res.SetMeta("recorded", p)
	return nil
}

// stageToolNames returns the dotted names a stage lists in this session
// (policy-filtered), sorted.
func (s *Session) stageToolNames(stage string) []string {
	var out []string
	for _, t := range s.toolsIn(stage) {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

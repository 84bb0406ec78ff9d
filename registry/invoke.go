package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/suggest"
)

// maxSuggestions bounds the did-you-mean names of an unknown tool.
const maxSuggestions = 5

// UnknownTool is the failure of a call (or a lookup, as tools.describe_tool
// makes) of a name no tool has: code unknown_tool, the closest registered
// names in the message and in meta.details.available (at most five, best
// first, by edit distance; empty when nothing is close), the number of
// tools in meta.details.total_tools, and a remedy naming the suggestions
// and tools.help. It never lists every tool.
func (r *Registry) UnknownTool(name string) *envelope.ToolError {
	name = strings.ToValidUTF8(name, "\uFFFD")
	close := r.Suggest(name, maxSuggestions)
	msg := "unknown tool: '" + name + "'"
	fix := "call tools.help for the namespaces and their tools, or tools.describe_tool with an exact name"
	if len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
		fix = "call " + close[0] + " if that is the tool you meant; else " + fix
	}
	return envelope.Errorf(envelope.CodeUnknownTool, "%s", msg).
		WithDetails("name", name, "available", close, "total_tools", len(r.names)).
		WithRemedy(fix, append(append([]string(nil), close...), "tools.help")...)
}

// Suggest returns up to n listed tool names closest to name (dotted or
// wire form, any case), best first: did-you-mean for a misspelled tool.
// When nothing is close but name starts with a namespace, that
// namespace's help tool is suggested.
func (r *Registry) Suggest(name string, n int) []string {
	dotted := DottedName(strings.TrimSpace(name))
	out := suggest.Closest(dotted, r.names, n)
	if len(out) == 0 {
		ns, _, _ := strings.Cut(dotted, ".")
		if _, ok := r.byName[ns+".help"]; ok && n > 0 {
			out = []string{ns + ".help"}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// Call invokes a tool by dotted or wire name with args (nil, a JSON object
// as []byte / json.RawMessage / string, or any value that marshals to a JSON
// object). It never panics; see the package doc for the rules.
func (r *Registry) Call(ctx context.Context, name string, args any) *envelope.ToolResult {
	res, _ := r.call(ctx, name, args, false)
	return res
}

// CallJSON is Call that also returns the wire form of the result (its
// JSON), encoded once, as the answer cap measured it: a front end sends
// these bytes instead of marshalling the result again. Do not modify them;
// a result changed after the call must be marshalled again.
func (r *Registry) CallJSON(ctx context.Context, name string, args any) (*envelope.ToolResult, []byte) {
	return r.call(ctx, name, args, true)
}

func (r *Registry) call(ctx context.Context, name string, args any, wantJSON bool) (res *envelope.ToolResult, wire []byte) {
	start := time.Now()
	t, ok := r.Get(name)
	if !ok {
		res = envelope.FromError(r.UnknownTool(name))
		if wantJSON {
			wire, res = encode(res)
		}
		return res, wire
	}
	var (
		observer CallObserver
		raw      []byte
		aliased  []string // warnings for the deprecated argument names used
		closeFS  func()
	)
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			res = envelope.Fail(fmt.Sprintf("tool '%s' failed: panic: %v", t.Name, p), envelope.CodeInternalError).
				WithMeta("details", map[string]any{"exception": fmt.Sprintf("%T", p), "panic": true})
		}
		if res == nil {
			res = envelope.OK(nil)
		}
		res.WithWarnings(aliased...)
		relativeResult(ctx, res)
		res.SetMeta("tool", t.Name)
		res.SetMeta("duration_ms", float64(time.Since(start).Microseconds())/1000)
		if observer != nil {
			observe(ctx, observer, t, raw, res)
		}
		res, wire = capResult(ctx, t, res)
		if closeFS != nil {
			closeFS() // after the observer, which writes through it
		}
	}()
	if p := PolicyFrom(ctx); p != nil {
		if allowed, env := p.Allows(t); !allowed {
			return envelope.FromError(envelope.Errorf(envelope.CodeToolDisabled,
				"tool '%s' is disabled: it %s; set %s=1 (or the matching server flag) to enable it", t.Name, gateReason(t), env).
				WithDetails("env_var", env).
				WithRemedy("restart the server with "+env+"=1 if the user agrees, or use a read-only tool instead", "tools.help")), nil
		}
	}
	// The file-access layer of the call: open before the scope hands out
	// an observer, so whatever runs from here on (the handler, the
	// observer, nested calls) reads and writes through it.
	if !safefs.InContext(ctx) {
		fsys, err := openFS(ctx)
		if err != nil {
			var te *envelope.ToolError
			if errors.As(err, &te) {
				return envelope.FromError(te), nil
			}
			return envelope.Fail(err.Error(), envelope.CodeInternalError), nil
		}
		closeFS = func() { _ = fsys.Close() }
		ctx = safefs.WithFS(ctx, fsys)
	}
	if s := ScopeFrom(ctx); s != nil {
		if allowed, terr := s.Allows(t); !allowed {
			return envelope.FromError(terr), nil
		}
		observer, _ = s.(CallObserver)
	}
	if err := ctx.Err(); err != nil {
		return envelope.Fail("call cancelled: "+err.Error(), envelope.CodeCancelled), nil
	}
	raw, err := argBytes(args)
	if err != nil {
		return invalid(t.Name, []string{"(arguments): " + err.Error()}), nil
	}
	if len(raw) > MaxArgBytes {
		return argsTooLarge(t, len(raw)), nil
	}
	schema, err := t.compiled()
	if err != nil {
		return envelope.Fail(fmt.Sprintf("tool '%s' has a broken schema: %v", t.Name, err), envelope.CodeInternalError), nil
	}
	if raw, err = checkArgs(raw); err != nil {
		return invalid(t.Name, []string{"(arguments): " + err.Error()}), nil
	}
	if len(t.aliases()) > 0 {
		var errs []string
		if raw, aliased, errs = applyAliases(raw, t.aliases()); len(errs) > 0 {
			return invalid(t.Name, errs), nil
		}
	}
	if errs := schema.validate(raw); len(errs) > 0 {
		return invalid(t.Name, errs), nil
	}
	if FromContext(ctx) != r {
		ctx = WithRegistry(ctx, r)
	}
	out, herr := t.invoke(ctx, raw, schema.defaults)
	if herr != nil {
		var te *envelope.ToolError
		if errors.As(herr, &te) {
			return envelope.FromError(te), nil
		}
		if errors.Is(herr, context.Canceled) || errors.Is(herr, context.DeadlineExceeded) {
			return envelope.Fail(fmt.Sprintf("tool '%s' cancelled: %v", t.Name, herr), envelope.CodeCancelled), nil
		}
		slog.Debug("tool failed", "tool", t.Name, "error", herr)
		return envelope.Fail(fmt.Sprintf("tool '%s' failed: %v", t.Name, herr), envelope.CodeInternalError).
			WithMeta("details", map[string]any{"exception": errType(herr)}), nil
	}
	t.markdownView(raw, out)
	if out != nil && t.DeprecatedBy != "" {
		out.WithWarnings(fmt.Sprintf("%s is deprecated; use %s instead", t.Name, t.DeprecatedBy))
		if out.Remedy == nil {
			out.Remedy = &envelope.Remedy{SuggestedTools: []string{t.DeprecatedBy}, FixAction: "switch to " + t.DeprecatedBy}
		}
		if out.OK {
			out.WithNextSteps(envelope.NextStep{Tool: t.DeprecatedBy, When: "from now on", Why: t.Name + " is deprecated"})
		}
	}
	return out, nil
}

// relativeResult writes the paths under the project root in a result's
// error, remedy and warnings relative to the root (relativeToRoot).
func relativeResult(ctx context.Context, res *envelope.ToolResult) {
	if PolicyFrom(ctx) == nil {
		return
	}
	res.Error = relativeToRoot(ctx, res.Error)
	if res.Remedy != nil {
		res.Remedy.FixAction = relativeToRoot(ctx, res.Remedy.FixAction)
	}
	if len(res.Warnings) > 0 {
		ws := make([]string, len(res.Warnings))
		for i, w := range res.Warnings {
			ws[i] = relativeToRoot(ctx, w)
		}
		res.Warnings = ws
	}
}

// encode marshals a result once. A result that does not marshal (a
// handler's data that encoding/json refuses) becomes internal_error,
// meta.tool kept.
func encode(res *envelope.ToolResult) ([]byte, *envelope.ToolResult) {
	b, err := res.MarshalJSON()
	if err == nil {
		return b, res
	}
	fail := envelope.Fail("the tool's result is not JSON-serializable: "+err.Error(), envelope.CodeInternalError)
	for _, k := range []string{"tool", "duration_ms"} {
		if v, ok := res.Meta[k]; ok {
			fail.SetMeta(k, v)
		}
	}
	b, _ = fail.MarshalJSON()
	return b, fail
}

func gateReason(t *ToolDef) string {
	var r []string
	if t.Destructive {
		r = append(r, "mutates external state")
	}
	if t.Writes {
		r = append(r, "writes files")
	}
	if t.ExecCode {
		r = append(r, "executes code")
	}
	return strings.Join(r, " and ")
}

func errType(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		if reflect.TypeOf(err).String() != "*fmt.wrapError" {
			break
		}
		err = u
	}
	return fmt.Sprintf("%T", err)
}

func invalid(name string, errs []string) *envelope.ToolResult {
	return envelope.Fail(fmt.Sprintf("invalid arguments for '%s': %s", name, strings.Join(errs, "; ")), envelope.CodeInvalidInput).
		WithMeta("details", map[string]any{"errors": errs}).
		WithRemedy("fix the arguments named in meta.details.errors; tools.describe_tool shows the schema", "tools.describe_tool")
}

func argBytes(args any) ([]byte, error) {
	switch a := args.(type) {
	case nil:
		return []byte("{}"), nil
	case []byte:
		if len(a) == 0 {
			return []byte("{}"), nil
		}
		return a, nil
	case json.RawMessage:
		if len(a) == 0 {
			return []byte("{}"), nil
		}
		return a, nil
	case string:
		if strings.TrimSpace(a) == "" {
			return []byte("{}"), nil
		}
		return []byte(a), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("arguments do not marshal to JSON: %v", err)
	}
	return b, nil
}

// ValidateArgs checks args against the tool's schema without calling it and
// returns every problem (nil when valid).
func (t *ToolDef) ValidateArgs(args any) ([]string, error) {
	schema, err := t.compiled()
	if err != nil {
		return nil, err
	}
	raw, err := argBytes(args)
	if err == nil {
		raw, err = checkArgs(raw)
	}
	if err != nil {
		return []string{"(arguments): " + err.Error()}, nil
	}
	raw, _, errs := applyAliases(raw, t.aliases())
	if len(errs) > 0 {
		return errs, nil
	}
	return schema.validate(raw), nil
}

package registry

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/jsonsize"
)

// MaxArgBytes caps the JSON arguments of one call. A larger call answers
// too_large before anything is decoded: inputs that big belong in files
// (dag_file, config_file, script_path), which have caps of their own.
const MaxArgBytes = 4 << 20

// DefaultMaxResultBytes caps the JSON of one answer when neither the
// policy (Policy.MaxResultBytes) nor CURSUS_MAX_RESULT_BYTES says
// otherwise. A larger answer is replaced by a too_large failure whose
// remedy names the arguments that narrow it.
const DefaultMaxResultBytes = 8 << 20

// MaxResultBytes is the answer cap in force for a call in ctx: the
// policy's (Policy.MaxResultBytes), else CURSUS_MAX_RESULT_BYTES, else
// DefaultMaxResultBytes. What a front end answers other than through a
// tool (an MCP resource) is held to it too.
func MaxResultBytes(ctx context.Context) int64 {
	if p := PolicyFrom(ctx); p != nil && p.MaxResultBytes > 0 {
		return p.MaxResultBytes
	}
	if v := strings.TrimSpace(os.Getenv(EnvMaxResultBytes)); v != "" {
		if n, err := ParseSize(v); err == nil {
			return n
		}
	}
	return DefaultMaxResultBytes
}

// narrowingArgs are argument names that, where a tool has them, make its
// answer smaller; a too_large answer names those its tool declares.
var narrowingArgs = []string{"format", "namespace", "max_results", "limit", "offset", "cursor", "include_schema", "detail"}

// NarrowingArgs returns the arguments that make the tool's answer smaller:
// Spec.NarrowBy, else those of its arguments known to (a compact format, a
// namespace filter, a result count, paging).
func (t *ToolDef) NarrowingArgs() []string {
	if len(t.NarrowBy) > 0 {
		return t.NarrowBy
	}
	props, _ := t.Schema()["properties"].(map[string]any)
	var out []string
	for _, a := range narrowingArgs {
		if _, ok := props[a]; ok {
			out = append(out, a)
		}
	}
	return out
}

// capResult replaces an answer whose JSON is over the cap by a too_large
// failure (meta.tool and meta.duration_ms kept). It returns the result and
// its JSON, encoded once (encode).
func capResult(ctx context.Context, t *ToolDef, res *envelope.ToolResult) (*envelope.ToolResult, []byte) {
	limit := MaxResultBytes(ctx)
	// A lower bound first, in bounded memory: an answer far over the cap
	// is refused without encoding it (the encoding would cost several
	// times its size).
	size := jsonsize.AtLeast([]any{res.Data, res.Warnings, res.NextSteps, res.Meta, res.Error, res.Remedy}, limit)
	if size <= limit {
		var b []byte
		b, res = encode(res)
		if int64(len(b)) <= limit {
			return res, b
		}
		size = int64(len(b))
	}
	narrow := t.NarrowingArgs()
	fix := "call it on a smaller input (fewer DAG nodes, a shorter script, a narrower question)"
	if len(narrow) > 0 {
		fix = "call it again with " + strings.Join(narrow, ", ") + " set to narrow the answer, or on a smaller input"
	}
	out := envelope.Fail(fmt.Sprintf("the answer of '%s' is over the %s limit of one answer (at least %s of JSON)", t.Name, FormatSize(limit), FormatSize(size)), envelope.CodeTooLarge).
		WithMeta("details", map[string]any{"size_at_least_bytes": size, "limit_bytes": limit, "narrow_with": nonNil(narrow), "env_var": EnvMaxResultBytes}).
		WithRemedy(fix, "tools.describe_tool")
	for _, k := range []string{"tool", "duration_ms"} {
		if v, ok := res.Meta[k]; ok {
			out.SetMeta(k, v)
		}
	}
	b, out := encode(out)
	return out, b
}

// argsTooLarge answers arguments over MaxArgBytes.
func argsTooLarge(t *ToolDef, n int) *envelope.ToolResult {
	var fileArgs []string
	props, _ := t.Schema()["properties"].(map[string]any)
	for name := range props {
		if strings.HasSuffix(name, "_file") || strings.HasSuffix(name, "_path") || name == "path" {
			fileArgs = append(fileArgs, name)
		}
	}
	slices.Sort(fileArgs)
	fix := "pass a smaller input"
	if len(fileArgs) > 0 {
		fix = "pass the large input as a file instead (" + strings.Join(fileArgs, ", ") + ")"
	}
	return envelope.Fail(fmt.Sprintf("the arguments of '%s' are %s of JSON, over the %s limit of one call", t.Name, FormatSize(int64(n)), FormatSize(MaxArgBytes)), envelope.CodeTooLarge).
		WithMeta("details", map[string]any{"size_bytes": n, "limit_bytes": MaxArgBytes, "file_args": nonNil(fileArgs)}).
		WithRemedy(fix, "tools.describe_tool")
}

// nonNil is s, or an empty slice when s is nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

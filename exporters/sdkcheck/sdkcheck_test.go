package sdkcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	brtypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// hardArgs has a schema with nested objects, free-form maps, a nullable
// field (oneOf with null), an any field (the schema true), integer enums,
// formats and defaults: the constructs the exporters must carry or rewrite.
type hardArgs struct {
	Name   string            `json:"name" jsonschema:"required,minLength=1,maxLength=40,pattern=^[a-z]+$,default=x" jsonschema_description:"A name."`
	Opt    *string           `json:"opt,omitempty" jsonschema:"nullable"`
	Nested hardNested        `json:"nested" jsonschema:"required"`
	List   []hardNested      `json:"list,omitempty" jsonschema:"minItems=1,maxItems=3"`
	Labels map[string]string `json:"labels,omitempty"`
	Free   map[string]any    `json:"free,omitempty"`
	Anyway any               `json:"anyway,omitempty"`
	Level  int               `json:"level,omitempty" jsonschema:"enum=1,enum=2,minimum=1,maximum=2"`
	When   string            `json:"when,omitempty" jsonschema:"format=date-time"`
	Email  string            `json:"email,omitempty" jsonschema:"format=email"`
}

type hardNested struct {
	Mode  string   `json:"mode" jsonschema:"required,enum=fast,enum=slow"`
	Ratio float64  `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,maximum=1"`
	Items []string `json:"items,omitempty" jsonschema:"uniqueItems=true"`
}

var hardTool = registry.New("sdkcheck.hard", registry.Spec{
	Description: "A tool whose schema uses every construct the exporters handle.",
	When:        "checking exports",
	Examples:    []string{`sdkcheck.hard {"name": "a", "nested": {"mode": "fast"}}`},
	Tags:        []string{registry.PhaseValidator, registry.PhaseProgrammer},
	Destructive: true, Network: true,
}, func(ctx context.Context, a hardArgs) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })

var bareTool = registry.New("sdkcheck.bare", registry.Spec{Description: "No arguments, no tags."},
	func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })

// allTools is every tool of the real registry (deprecated ones too) and the
// two above.
func allTools(t testing.TB) []*registry.ToolDef {
	defs := append([]*registry.ToolDef{}, cursus.Registry().All()...)
	if len(defs) == 0 {
		t.Fatal("the registry has no tools")
	}
	return append(defs, hardTool, bareTool)
}

// export returns each exported tool as raw JSON, as a host would get it.
func export(t testing.TB, f exporters.Format, defs []*registry.ToolDef) []json.RawMessage {
	t.Helper()
	b, err := exporters.ExportJSON(f, defs, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(defs) {
		t.Fatalf("%s: %d exported, want %d", f, len(out), len(defs))
	}
	return out
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	return v
}

// diff lists where two decoded JSON values differ, by path ("" when equal).
func diff(path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		ks := map[string]bool{}
		for k := range am {
			ks[k] = true
		}
		for k := range bm {
			ks[k] = true
		}
		sorted := make([]string, 0, len(ks))
		for k := range ks {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			av, ina := am[k]
			bv, inb := bm[k]
			switch {
			case !ina:
				out = append(out, fmt.Sprintf("%s.%s: only in the SDK's output", path, k))
			case !inb:
				out = append(out, fmt.Sprintf("%s.%s: dropped by the SDK (we export %s)", path, k, short(av)))
			default:
				out = append(out, diff(path+"."+k, av, bv)...)
			}
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		var out []string
		for i := range as {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(a, b) {
		return []string{fmt.Sprintf("%s: we export %s, the SDK gives %s", path, short(a), short(b))}
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// roundTrip loads ours into a fresh SDK value of type T (via its JSON
// decoder), marshals it back and returns the value and the differences to
// want (ours, possibly less the fields the SDK is known to ignore).
func roundTrip[T any](t testing.TB, ours []byte, want any) (*T, []string) {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(ours, v); err != nil {
		return v, []string{fmt.Sprintf("the SDK type %T rejects the JSON: %v", *v, err)}
	}
	back, err := json.Marshal(v)
	if err != nil {
		return v, []string{fmt.Sprintf("the SDK type %T cannot marshal what it loaded: %v", *v, err)}
	}
	return v, diff("", want, decode(t, back))
}

// without deletes the key at path from a decoded JSON object (if there).
func without(v any, path ...string) any {
	m, _ := v.(map[string]any)
	for _, p := range path[:len(path)-1] {
		m, _ = m[p].(map[string]any)
	}
	delete(m, path[len(path)-1])
	return v
}

// onlyDropped checks that the full comparison reports exactly one
// difference: the SDK dropped the extension key at path.
func onlyDropped(t *testing.T, name string, d []string, path string) {
	t.Helper()
	if len(d) != 1 || !strings.HasPrefix(d[0], path+": dropped by the SDK") {
		t.Errorf("%s: want only %s dropped, got:\n  %s", name, path, strings.Join(d, "\n  "))
	}
}

func TestOpenAIChatCompletions(t *testing.T) {
	defs := allTools(t)
	for i, raw := range export(t, exporters.FormatOpenAI, defs) {
		td := defs[i]
		ours := decode(t, raw)
		_, hasMeta := ours.(map[string]any)["function"].(map[string]any)["metadata"]
		if hasMeta != (len(td.Tags) > 0) {
			t.Errorf("%s: metadata present=%v with %d tags", td.Name, hasMeta, len(td.Tags))
		}
		// function.metadata (the phase tags) is a Cursus extension: the
		// SDK loads the tool and drops it. Everything else must survive.
		want := without(decode(t, raw), "function", "metadata")
		p, d := roundTrip[openai.ChatCompletionFunctionToolParam](t, raw, want)
		if len(d) > 0 {
			t.Errorf("%s: ChatCompletionFunctionToolParam:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
		if p.Function.Name != td.WireName() || p.Function.Description.Value != td.RenderDescription() ||
			p.Function.Parameters["type"] != "object" || string(p.Type) != "function" {
			t.Errorf("%s: loaded as name=%q type=%q params=%v", td.Name, p.Function.Name, p.Type, p.Function.Parameters)
		}
		if hasMeta {
			_, full := roundTrip[openai.ChatCompletionFunctionToolParam](t, raw, ours)
			onlyDropped(t, td.Name, full, ".function.metadata")
		}
		u, d := roundTrip[openai.ChatCompletionToolUnionParam](t, raw, want)
		if len(d) > 0 || u.OfFunction == nil || u.OfCustom != nil {
			t.Errorf("%s: ChatCompletionToolUnionParam (function=%v):\n  %s", td.Name, u.OfFunction != nil, strings.Join(d, "\n  "))
		}
	}
}

func TestOpenAIResponses(t *testing.T) {
	defs := allTools(t)
	for i, raw := range export(t, exporters.FormatOpenAIResponses, defs) {
		td := defs[i]
		p, d := roundTrip[responses.FunctionToolParam](t, raw, decode(t, raw))
		if len(d) > 0 {
			t.Errorf("%s: FunctionToolParam:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
		if p.Name != td.WireName() || p.Description.Value != td.RenderDescription() || !p.Strict.Valid() || p.Strict.Value ||
			p.Parameters["type"] != "object" {
			t.Errorf("%s: loaded as name=%q strict=%v params=%v", td.Name, p.Name, p.Strict, p.Parameters)
		}
		u, d := roundTrip[responses.ToolUnionParam](t, raw, decode(t, raw))
		if len(d) > 0 || u.OfFunction == nil {
			t.Errorf("%s: ToolUnionParam (function=%v):\n  %s", td.Name, u.OfFunction != nil, strings.Join(d, "\n  "))
		}
	}
}

func TestAnthropic(t *testing.T) {
	defs := allTools(t)
	for i, raw := range export(t, exporters.FormatAnthropic, defs) {
		td := defs[i]
		p, d := roundTrip[anthropic.ToolParam](t, raw, decode(t, raw))
		if len(d) > 0 {
			t.Errorf("%s: ToolParam:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
		if p.Name != td.WireName() || p.Description.Value != td.RenderDescription() || p.InputSchema.Properties == nil ||
			p.InputSchema.ExtraFields["additionalProperties"] != false {
			t.Errorf("%s: loaded as name=%q schema=%+v", td.Name, p.Name, p.InputSchema)
		}
		if req, _ := td.Schema()["required"].([]any); len(req) != len(p.InputSchema.Required) {
			t.Errorf("%s: required %v loaded as %v", td.Name, req, p.InputSchema.Required)
		}
		u, d := roundTrip[anthropic.ToolUnionParam](t, raw, decode(t, raw))
		if len(d) > 0 || u.OfTool == nil {
			t.Errorf("%s: ToolUnionParam (tool=%v):\n  %s", td.Name, u.OfTool != nil, strings.Join(d, "\n  "))
		}
	}
}

func TestGemini(t *testing.T) {
	defs := allTools(t)
	for i, raw := range export(t, exporters.FormatGemini, defs) {
		td := defs[i]
		fd, d := roundTrip[genai.FunctionDeclaration](t, raw, decode(t, raw))
		if len(d) > 0 {
			t.Errorf("%s: FunctionDeclaration:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
		if fd.Name != td.WireName() || fd.Description != td.RenderDescription() || fd.ParametersJsonSchema != nil {
			t.Errorf("%s: loaded as name=%q parametersJsonSchema=%v", td.Name, fd.Name, fd.ParametersJsonSchema)
		}
		props, _ := td.Schema()["properties"].(map[string]any)
		if len(props) == 0 {
			if fd.Parameters != nil {
				t.Errorf("%s: no arguments but parameters %+v", td.Name, fd.Parameters)
			}
			continue
		}
		if fd.Parameters == nil || fd.Parameters.Type != genai.TypeObject || len(fd.Parameters.Properties) != len(props) {
			t.Fatalf("%s: parameters %+v, want an OBJECT with %d properties", td.Name, fd.Parameters, len(props))
		}
		checkGenaiSchema(t, td.Name, fd.Parameters)
	}
}

var genaiTypes = map[genai.Type]bool{genai.TypeString: true, genai.TypeNumber: true, genai.TypeInteger: true,
	genai.TypeBoolean: true, genai.TypeArray: true, genai.TypeObject: true, genai.TypeNULL: true}

// checkGenaiSchema walks a loaded genai.Schema: types are the SDK's
// constants (or unset), no unions, properties only on objects and items
// only on arrays, required only names properties.
func checkGenaiSchema(t *testing.T, path string, s *genai.Schema) {
	t.Helper()
	if s.Type != "" && !genaiTypes[s.Type] {
		t.Errorf("%s: type %q is not a genai.Type constant", path, s.Type)
	}
	if len(s.AnyOf) > 0 || s.Default != nil {
		t.Errorf("%s: anyOf/default present", path)
	}
	if len(s.Properties) > 0 && s.Type != genai.TypeObject {
		t.Errorf("%s: properties on %q", path, s.Type)
	}
	if s.Items != nil && s.Type != genai.TypeArray {
		t.Errorf("%s: items on %q", path, s.Type)
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil {
			t.Errorf("%s: required %q is not a property", path, r)
		}
	}
	for k, p := range s.Properties {
		checkGenaiSchema(t, path+"."+k, p)
	}
	if s.Items != nil {
		checkGenaiSchema(t, path+"[]", s.Items)
	}
}

func TestMCP(t *testing.T) {
	defs := allTools(t)
	for i, raw := range export(t, exporters.FormatMCP, defs) {
		td := defs[i]
		// "tags" is a Cursus extension of the tools/list entry: the go-sdk
		// Tool type loads the entry and drops it.
		want := without(decode(t, raw), "tags")
		tool, d := roundTrip[mcp.Tool](t, raw, want)
		if len(td.Tags) > 0 {
			_, full := roundTrip[mcp.Tool](t, raw, decode(t, raw))
			onlyDropped(t, td.Name, full, ".tags")
		}
		if len(d) > 0 {
			t.Errorf("%s: mcp.Tool:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
		a := exporters.Annotations(td)
		if tool.Name != td.WireName() || tool.Title != exporters.MCPTitle(td) || tool.Annotations == nil ||
			tool.Annotations.ReadOnlyHint != a.ReadOnlyHint || tool.Annotations.IdempotentHint != a.IdempotentHint ||
			tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint != a.DestructiveHint ||
			tool.Annotations.OpenWorldHint == nil || *tool.Annotations.OpenWorldHint != a.OpenWorldHint {
			t.Errorf("%s: loaded as %+v annotations %+v, want %+v", td.Name, tool, tool.Annotations, a)
		}
	}
}

// capture is an HTTP client that records the request body and fails the
// call, so the Bedrock client serializes a Converse request without any
// network.
type capture struct{ body []byte }

var errCaptured = errors.New("captured")

func (c *capture) Do(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	c.body = b
	return nil, errCaptured
}

// bedrockWire builds the SDK's types.Tool values from our exported JSON
// (reading only the fields Bedrock documents) and returns the
// toolConfig.tools the SDK's own serializer writes for a Converse call, and
// the SDK's validation error if it refused to send.
func bedrockWire(t testing.TB, exported []json.RawMessage) ([]any, []brtypes.Tool, error) {
	t.Helper()
	sdkTools := make([]brtypes.Tool, len(exported))
	for i, raw := range exported {
		var e struct {
			ToolSpec *struct {
				Name        *string `json:"name"`
				Description *string `json:"description"`
				InputSchema *struct {
					JSON map[string]any `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		spec := brtypes.ToolSpecification{}
		if e.ToolSpec != nil {
			spec.Name, spec.Description = e.ToolSpec.Name, e.ToolSpec.Description
			if e.ToolSpec.InputSchema != nil && e.ToolSpec.InputSchema.JSON != nil {
				spec.InputSchema = &brtypes.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(e.ToolSpec.InputSchema.JSON)}
			}
		}
		sdkTools[i] = &brtypes.ToolMemberToolSpec{Value: spec}
	}
	c := &capture{}
	client := bedrockruntime.New(bedrockruntime.Options{
		Region:           "us-east-1",
		HTTPClient:       c,
		RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", Source: "sdkcheck"}, nil
		}),
	})
	_, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{
		ModelId: aws.String("anthropic.claude-test"),
		Messages: []brtypes.Message{{Role: brtypes.ConversationRoleUser,
			Content: []brtypes.ContentBlock{&brtypes.ContentBlockMemberText{Value: "hi"}}}},
		ToolConfig: &brtypes.ToolConfiguration{Tools: sdkTools},
	})
	if !errors.Is(err, errCaptured) {
		return nil, sdkTools, err
	}
	var body struct {
		ToolConfig struct {
			Tools []any `json:"tools"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(c.body, &body); err != nil {
		t.Fatalf("Converse body %s: %v", c.body, err)
	}
	return body.ToolConfig.Tools, sdkTools, nil
}

func TestBedrock(t *testing.T) {
	defs := allTools(t)
	exported := export(t, exporters.FormatBedrock, defs)
	wire, sdkTools, err := bedrockWire(t, exported)
	if err != nil {
		t.Fatalf("the Bedrock client refused our tools: %v", err)
	}
	if len(wire) != len(defs) {
		t.Fatalf("the SDK sent %d tools, want %d", len(wire), len(defs))
	}
	for i, td := range defs {
		if d := diff("", decode(t, exported[i]), wire[i]); len(d) > 0 {
			t.Errorf("%s: Converse toolConfig.tools[%d]:\n  %s", td.Name, i, strings.Join(d, "\n  "))
		}
		spec := sdkTools[i].(*brtypes.ToolMemberToolSpec).Value
		if aws.ToString(spec.Name) != td.WireName() || aws.ToString(spec.Description) != td.RenderDescription() {
			t.Errorf("%s: loaded as name=%q", td.Name, aws.ToString(spec.Name))
		}
		// The schema document, as the SDK's smithy document encoder writes
		// it, decodes back to the registry's schema. (The lazy document's
		// UnmarshalSmithyDocument is meant for response documents and
		// cannot decode one built with NewLazyDocument.)
		doc, err := spec.InputSchema.(*brtypes.ToolInputSchemaMemberJson).Value.MarshalSmithyDocument()
		if err != nil {
			t.Fatalf("%s: encode schema document: %v", td.Name, err)
		}
		want, _ := json.Marshal(td.Schema())
		if d := diff("", decode(t, want), decode(t, doc)); len(d) > 0 {
			t.Errorf("%s: schema document:\n  %s", td.Name, strings.Join(d, "\n  "))
		}
	}
}

func asJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

// mutate rewrites one exported tool with edit (applied to its decoded JSON).
func mutate(t *testing.T, raw json.RawMessage, edit func(m map[string]any)) json.RawMessage {
	t.Helper()
	m := decode(t, raw).(map[string]any)
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChecksCatchMisplacedFields feeds each SDK a tool with a field moved,
// renamed or added, and requires the comparison above to report it: the
// checks can fail.
func TestChecksCatchMisplacedFields(t *testing.T) {
	defs := []*registry.ToolDef{hardTool}
	chat := export(t, exporters.FormatOpenAI, defs)[0]
	flat := export(t, exporters.FormatOpenAIResponses, defs)[0]
	anth := export(t, exporters.FormatAnthropic, defs)[0]
	gem := export(t, exporters.FormatGemini, defs)[0]
	mcpT := export(t, exporters.FormatMCP, defs)[0]
	bed := export(t, exporters.FormatBedrock, defs)[0]

	fails := func(name string, d []string) {
		t.Helper()
		if len(d) == 0 {
			t.Errorf("%s: the SDK comparison did not notice", name)
		} else {
			t.Logf("%s: caught: %s", name, d[0])
		}
	}
	chatOK := func(raw json.RawMessage) []string {
		_, d := roundTrip[openai.ChatCompletionFunctionToolParam](t, raw, without(decode(t, raw), "function", "metadata"))
		return d
	}
	fails("chat: parameters beside function", chatOK(mutate(t, chat, func(m map[string]any) {
		fn := m["function"].(map[string]any)
		m["parameters"] = fn["parameters"]
		delete(fn, "parameters")
	})))
	fails("chat: flat Responses shape", chatOK(mutate(t, flat, func(map[string]any) {})))
	fails("chat: strict as a string", chatOK(mutate(t, chat, func(m map[string]any) {
		m["function"].(map[string]any)["strict"] = "no"
	})))
	_, d := roundTrip[responses.FunctionToolParam](t, chat, decode(t, chat))
	fails("responses: chat shape", d)
	raw := mutate(t, anth, func(m map[string]any) {
		m["inputSchema"] = m["input_schema"]
		delete(m, "input_schema")
	})
	_, d = roundTrip[anthropic.ToolParam](t, raw, decode(t, raw))
	fails("anthropic: inputSchema instead of input_schema", d)
	raw = mutate(t, anth, func(m map[string]any) { m["parameters"] = m["input_schema"] })
	_, d = roundTrip[anthropic.ToolParam](t, raw, decode(t, raw))
	fails("anthropic: extra parameters key", d)
	// Gemini: the registry's own schema (additionalProperties, lower-case
	// types, oneOf, default) does not survive genai.Schema.
	raw = mutate(t, gem, func(m map[string]any) { m["parameters"] = asJSON(t, hardTool.Schema()) })
	_, d = roundTrip[genai.FunctionDeclaration](t, raw, decode(t, raw))
	fails("gemini: unrewritten JSON Schema", d)
	all := cursus.Registry().List("")
	i := slices.IndexFunc(all, func(td *registry.ToolDef) bool {
		props, _ := td.Schema()["properties"].(map[string]any)
		return len(props) > 0
	})
	if i < 0 {
		t.Fatal("no registry tool takes arguments: the gemini check below would not run")
	}
	td := all[i]
	plain := export(t, exporters.FormatGemini, []*registry.ToolDef{td})[0]
	raw = mutate(t, plain, func(m map[string]any) { m["parameters"] = asJSON(t, td.Schema()) })
	_, d = roundTrip[genai.FunctionDeclaration](t, raw, decode(t, raw))
	fails("gemini: "+td.Name+" with its JSON Schema as is", d)
	raw = mutate(t, gem, func(m map[string]any) { m["input_schema"] = m["parameters"]; delete(m, "parameters") })
	_, d = roundTrip[genai.FunctionDeclaration](t, raw, decode(t, raw))
	fails("gemini: input_schema instead of parameters", d)
	raw = mutate(t, mcpT, func(m map[string]any) { m["input_schema"] = m["inputSchema"] })
	_, d = roundTrip[mcp.Tool](t, raw, without(decode(t, raw), "tags"))
	fails("mcp: extra input_schema key", d)
	// Bedrock: a key the SDK does not know is not sent; a misplaced
	// inputSchema is refused by the SDK's validation.
	raw = mutate(t, bed, func(m map[string]any) { m["toolSpec"].(map[string]any)["strict"] = "yes" })
	wire, _, err := bedrockWire(t, []json.RawMessage{raw})
	if err != nil {
		t.Fatal(err)
	}
	fails("bedrock: unknown toolSpec key", diff("", decode(t, raw), wire[0]))
	raw = mutate(t, bed, func(m map[string]any) {
		spec := m["toolSpec"].(map[string]any)
		m["inputSchema"] = spec["inputSchema"]
		delete(spec, "inputSchema")
	})
	if _, _, err := bedrockWire(t, []json.RawMessage{raw}); err == nil || !strings.Contains(err.Error(), "InputSchema") {
		t.Errorf("bedrock: misplaced inputSchema: err = %v, want a validation error naming InputSchema", err)
	} else {
		t.Logf("bedrock: misplaced inputSchema: refused: %v", firstLine(err.Error()))
	}
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestDeferredLoading: the deferred exports load into the SDKs' tool
// unions as their tool search tool first, then tools whose DeferLoading
// is set exactly when the tool is not in the core toolset, nothing
// dropped.
func TestDeferredLoading(t *testing.T) {
	defs := cursus.Registry().List("")
	raws := func(f exporters.Format) []json.RawMessage {
		b, err := exporters.ExportJSONWith(f, defs, exporters.Options{DeferLoading: true}, false)
		if err != nil {
			t.Fatal(err)
		}
		var out []json.RawMessage
		if err := json.Unmarshal(b, &out); err != nil || len(out) != len(defs)+1 {
			t.Fatalf("%s: %d entries, %v", f, len(out), err)
		}
		return out
	}
	a := raws(exporters.FormatAnthropic)
	if u, d := roundTrip[anthropic.ToolUnionParam](t, a[0], decode(t, a[0])); len(d) > 0 || u.OfToolSearchToolBm25_20251119 == nil {
		t.Errorf("anthropic tool search %s: %v", a[0], d)
	}
	for i, raw := range a[1:] {
		u, d := roundTrip[anthropic.ToolUnionParam](t, raw, decode(t, raw))
		if len(d) > 0 || u.OfTool == nil || u.OfTool.DeferLoading.Valid() == defs[i].Core || (u.OfTool.DeferLoading.Valid() && !u.OfTool.DeferLoading.Value) {
			t.Errorf("anthropic %s (core %v): %s %v", defs[i].Name, defs[i].Core, raw[:80], d)
		}
	}
	o := raws(exporters.FormatOpenAIResponses)
	if u, d := roundTrip[responses.ToolUnionParam](t, o[0], decode(t, o[0])); len(d) > 0 || u.OfToolSearch == nil {
		t.Errorf("openai tool search %s: %v", o[0], d)
	}
	for i, raw := range o[1:] {
		u, d := roundTrip[responses.ToolUnionParam](t, raw, decode(t, raw))
		if len(d) > 0 || u.OfFunction == nil || u.OfFunction.DeferLoading.Valid() == defs[i].Core || (u.OfFunction.DeferLoading.Valid() && !u.OfFunction.DeferLoading.Value) {
			t.Errorf("openai-responses %s (core %v): %v", defs[i].Name, defs[i].Core, d)
		}
	}
}

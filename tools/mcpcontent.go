package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// This file holds the resources an MCP server offers besides tools: the
// step catalog, the pipeline catalog, the tool reference, the files of the
// project. Everything is read through the registry and the caller's
// file-access layer (the context a server gives a tool call), so a resource
// is confined exactly as a tool is. The prompts (each guided stage's
// prompt, each workflow's brief) are package workflow's.

// The URIs of the resources.
const (
	// StepURIPrefix + a step type is one step of the catalog.
	StepURIPrefix = "cursus://steps/"
	// PipelineURIPrefix + a DAG id is one shared DAG of the pipeline catalog.
	PipelineURIPrefix = "cursus://pipelines/"
	// ToolReferenceURI is the generated tool reference (docs/tools.md).
	ToolReferenceURI = "cursus://docs/tools.md"
	// ProjectURIPrefix + a relative path is a file of the project root.
	ProjectURIPrefix = "cursus://project/"
)

// Resource is one resource a server lists.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceNotFoundError is the error of ReadResource for a URI that names
// no resource.
type ResourceNotFoundError struct{ URI string }

// Error names the URI.
func (e *ResourceNotFoundError) Error() string { return "no resource " + e.URI }

// Resources lists the fixed resources: one per step type of the embedded
// catalog, one per shared DAG, and the tool reference of reg.
func Resources(ctx context.Context) ([]Resource, error) {
	cat, err := loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, s := range cat.Steps() {
		out = append(out, Resource{
			URI: StepURIPrefix + string(s.Type), Name: "step " + string(s.Type), Title: string(s.Type) + " step",
			Description: firstSentence(s.Description) + " Its interface, config fields and script.",
			MIMEType:    "text/markdown",
		})
	}
	pc, err := pipelines.Default()
	if err != nil {
		return nil, err
	}
	for _, e := range pc.Entries() {
		out = append(out, Resource{
			URI: PipelineURIPrefix + e.ID, Name: "pipeline " + e.ID, Title: e.ID + " pipeline",
			Description: firstSentence(e.Description) + " The shared DAG with its nodes, edges and features.",
			MIMEType:    "application/json",
		})
	}
	out = append(out, Resource{
		URI: ToolReferenceURI, Name: "tool reference", Title: "Tool reference",
		Description: "Every tool with its arguments and examples, generated from the registry.", MIMEType: "text/markdown",
	})
	return out, nil
}

// ResourceTemplates lists the resource templates: a step (also a project's
// own, or a job-type variant), a shared DAG, and a file of the project.
func ResourceTemplates() []ResourceTemplate {
	return []ResourceTemplate{
		{URITemplate: StepURIPrefix + "{step_name}{?job_type,workspace_dirs*}", Name: "step", Title: "A step type",
			Description: "A step type's interface, config fields and script; workspace_dirs adds a project's own step files.", MIMEType: "text/markdown"},
		{URITemplate: PipelineURIPrefix + "{dag_id}", Name: "pipeline", Title: "A shared DAG",
			Description: "A shared DAG of the pipeline catalog.", MIMEType: "application/json"},
		{URITemplate: ProjectURIPrefix + "{+path}", Name: "project file", Title: "A project file",
			Description: "A text file under the project root (the tools' read confinement and size caps apply).", MIMEType: "text/plain"},
	}
}

// ReadResource reads one resource (a fixed one or one a template names)
// as text with its MIME type. ctx is the context a tool call of the
// caller would get: its policy, and its file-access layer
// (safefs.WithFS), which a project file is read through. A URI that names no resource is a
// *ResourceNotFoundError; a tool's failure (an unknown step, a path
// outside the root) is an *envelope.ToolError.
//
// Every resource is held to the answer cap of a tool call
// (registry.MaxResultBytes): a larger one, measured as the JSON string it
// becomes, is a too_large *envelope.ToolError, and a project file is read
// no further than the cap. A project file must be text (UTF-8).
func ReadResource(ctx context.Context, reg *registry.Registry, uri string) (text, mimeType string, err error) {
	text, mimeType, err = readResource(ctx, reg, uri)
	if err != nil {
		return "", "", err
	}
	limit := registry.MaxResultBytes(ctx)
	if n := jsonStringSize(text, limit); n > limit {
		return "", "", resourceTooLarge(uri, n, limit)
	}
	return text, mimeType, nil
}

// readResource is ReadResource before the answer cap.
func readResource(ctx context.Context, reg *registry.Registry, uri string) (text, mimeType string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "cursus" {
		return "", "", &ResourceNotFoundError{URI: uri}
	}
	name := strings.TrimPrefix(u.Path, "/")
	switch {
	case uri == ToolReferenceURI:
		return string(reg.ToolsMarkdown()), "text/markdown", nil
	case u.Host == "steps" && name != "" && !strings.Contains(name, "/"):
		text, err := stepResource(ctx, reg, name, u.Query())
		return text, "text/markdown", err
	case u.Host == "pipelines" && name != "" && !strings.Contains(name, "/"):
		data, err := toolData(ctx, reg, "pipeline_catalog.get_dag", map[string]any{"dag_id": name})
		if err != nil {
			return "", "", err
		}
		return string(data), "application/json", nil
	case u.Host == "project" && name != "":
		if !safefs.InContext(ctx) && registry.PolicyFrom(ctx) != nil {
			return "", "", envelope.Errorf(envelope.CodeInternalError, "project files are read through the caller's file-access layer, and the context carries none")
		}
		p, err := registry.ResolveReadPath(ctx, "uri", name)
		if err != nil {
			return "", "", err
		}
		text, err := readProjectText(ctx, uri, p, name)
		return text, "text/plain", err
	}
	return "", "", &ResourceNotFoundError{URI: uri}
}

// readProjectText reads the project file p (given as name) as text, no
// further than the answer cap: a file over it is refused before it is read
// whole, and so is one that is not UTF-8 (which the answer's JSON could
// only carry mangled).
func readProjectText(ctx context.Context, uri, p, name string) (string, error) {
	f, err := safefs.From(ctx).Open(p, safefs.KindDocument)
	if err != nil {
		return "", registry.FileError("path", name, err)
	}
	defer f.Close()
	limit := registry.MaxResultBytes(ctx)
	if f.Size() > limit {
		return "", resourceTooLarge(uri, f.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", registry.FileError("path", name, err)
	}
	if int64(len(b)) > limit {
		return "", resourceTooLarge(uri, int64(len(b)), limit)
	}
	if !utf8.Valid(b) {
		return "", &envelope.ToolError{Code: envelope.CodeInvalidInput,
			Message: fmt.Sprintf("%s is not a text file (not UTF-8); resources/read serves project files as text", name),
			Remedy:  &envelope.Remedy{FixAction: "read text files only (a DAG, a config, a script, a report)", SuggestedTools: []string{}}}
	}
	return string(b), nil
}

// resourceTooLarge is the failure of a resource over the answer cap.
func resourceTooLarge(uri string, size, limit int64) error {
	return &envelope.ToolError{Code: envelope.CodeTooLarge,
		Message: fmt.Sprintf("the resource %s is over the %s limit of one answer (at least %s of JSON)", uri, registry.FormatSize(limit), registry.FormatSize(size)),
		Remedy:  &envelope.Remedy{FixAction: "read a smaller file, or raise the limit with " + registry.EnvMaxResultBytes, SuggestedTools: []string{}}}
}

// jsonStringSize is the size of s encoded as a JSON string by
// encoding/json (HTML-safe escapes included), counted no further than
// past limit.
func jsonStringSize(s string, limit int64) int64 {
	n := int64(2)
	for i := 0; i < len(s) && n <= limit; {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}

// stepResource renders one step: its interface (catalog.step_info), its
// config fields (catalog.config_fields) and its script.
func stepResource(ctx context.Context, reg *registry.Registry, name string, q url.Values) (string, error) {
	args := map[string]any{"step_name": name}
	if jt := q.Get("job_type"); jt != "" {
		args["job_type"] = jt
	}
	dirs := q["workspace_dirs"]
	if len(dirs) > 0 {
		args["workspace_dirs"] = dirs
	}
	info, err := toolData(ctx, reg, "catalog.step_info", args)
	if err != nil {
		return "", err
	}
	fieldArgs := map[string]any{"step_name": name}
	if len(dirs) > 0 {
		fieldArgs["workspace_dirs"] = dirs
	}
	fields, err := toolData(ctx, reg, "catalog.config_fields", fieldArgs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step %s\n\n## Interface (catalog.step_info)\n\n```json\n%s\n```\n\n## Config fields (catalog.config_fields)\n\n```json\n%s\n```\n",
		name, indented(info), indented(fields))
	cat, err := loadCatalog(ctx, dirs)
	if err != nil {
		return "", err
	}
	step, _, err := cat.Lookup(name)
	if err != nil {
		return "", toolError(err)
	}
	if code, ok := step.Script(); ok {
		src, err := code.ReadFile(path.Base(code.Path))
		if err != nil {
			return "", fmt.Errorf("read the script of %s: %w", name, err)
		}
		fmt.Fprintf(&b, "\n## Script (%s)\n\n```python\n%s\n```\n", code.Source(), strings.TrimRight(string(src), "\n"))
	} else {
		b.WriteString("\n## Script\n\nThe catalog ships no script of its own for this step.\n")
	}
	return b.String(), nil
}

// toolData calls a tool through reg with the caller's context and returns
// its data as JSON, or its failure as an *envelope.ToolError.
func toolData(ctx context.Context, reg *registry.Registry, name string, args map[string]any) (json.RawMessage, error) {
	res, wire := reg.CallJSON(ctx, name, args)
	if !res.OK {
		return nil, &envelope.ToolError{Message: res.Error, Code: res.Code, Remedy: res.Remedy}
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(wire, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// indented is raw indented, or raw as it is when it is not JSON.
func indented(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

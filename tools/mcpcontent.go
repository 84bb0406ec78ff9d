package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"strconv"
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
		{URITemplate: StepURIPrefix + "{step_name}{?job_type,part,line,workspace_dirs*}", Name: "step", Title: "A step type",
			Description: "A step type's interface, config fields and script (inline when it fits 16 KB, else named); part=script reads the script alone, in pages from line; workspace_dirs adds a project's own step files.", MIMEType: "text/markdown"},
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

// stepResourceBudget is the most a step resource's text takes, measured
// as the JSON string it becomes: a resource read stays within the 16 KB an
// answer may take (the rest is the result's own fields).
const stepResourceBudget = 16<<10 - 512

// stepResource renders one step: its interface (catalog.step_info), its
// config fields (one line each) and its script, inline when the whole fits
// stepResourceBudget, else named by the URI that reads it
// (?part=script). part=script reads the script from line (1-based), as
// many whole lines as fit, naming the URI of the rest.
func stepResource(ctx context.Context, reg *registry.Registry, name string, q url.Values) (string, error) {
	args := map[string]any{"step_name": name}
	if jt := q.Get("job_type"); jt != "" {
		args["job_type"] = jt
	}
	dirs := q["workspace_dirs"]
	if len(dirs) > 0 {
		args["workspace_dirs"] = dirs
	}
	cat, err := loadCatalog(ctx, dirs)
	if err != nil {
		return "", err
	}
	step, _, err := cat.Lookup(name)
	if err != nil {
		return "", toolError(err)
	}
	var script, scriptSource string
	if code, ok := step.Script(); ok {
		src, err := code.ReadFile(path.Base(code.Path))
		if err != nil {
			return "", fmt.Errorf("read the script of %s: %w", name, err)
		}
		script, scriptSource = strings.TrimRight(string(src), "\n"), code.Source()
	}
	switch part := q.Get("part"); part {
	case "script":
		if scriptSource == "" {
			return "", envelope.NotFound("the catalog ships no script of its own for %s", name).WithRemedy("read the step itself: "+StepURIPrefix+name, "catalog.step_info")
		}
		line := 1
		if v := q.Get("line"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return "", envelope.InvalidInput("line must be a line number from 1, got %q", v).WithDetails("field", "line")
			}
			line = n
		}
		return scriptPage(stepURI(name, q), name, scriptSource, script, line)
	case "":
	default:
		return "", envelope.InvalidInput("part must be script (or left out for the step), got %q", part).WithDetails("field", "part")
	}
	info, err := toolData(ctx, reg, "catalog.step_info", args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step %s\n\n## Interface (catalog.step_info)\n\n```json\n%s\n```\n\n## Config fields (catalog.config_fields)\n\n",
		name, indented(info))
	b.WriteString("One line a field: name (type, tier; default, allowed values, bounds): description. catalog.config_fields gives them as JSON.\n\n")
	for _, f := range step.Fields {
		fmt.Fprintf(&b, "- `%s` (%s, %s", f.Name, f.Type, f.Tier)
		switch {
		case f.Required():
			b.WriteString("; required")
		case f.Default != nil:
			d, _ := json.Marshal(f.Default)
			fmt.Fprintf(&b, "; default %s", d)
		}
		if len(f.Allowed) > 0 {
			a, _ := json.Marshal(f.Allowed)
			fmt.Fprintf(&b, "; one of %s", a)
		}
		if f.Min != nil {
			fmt.Fprintf(&b, "; min %g", *f.Min)
		}
		if f.Max != nil {
			fmt.Fprintf(&b, "; max %g", *f.Max)
		}
		if f.Hyperparameter {
			b.WriteString("; hyperparameter")
		}
		fmt.Fprintf(&b, "): %s\n", strings.TrimSpace(f.Description))
	}
	switch {
	case scriptSource == "":
		b.WriteString("\n## Script\n\nThe catalog ships no script of its own for this step.\n")
	default:
		inline := fmt.Sprintf("\n## Script (%s)\n\n```python\n%s\n```\n", scriptSource, script)
		if jsonStringSize(b.String()+inline, stepResourceBudget) <= stepResourceBudget {
			b.WriteString(inline)
			break
		}
		lines := strings.Count(script, "\n") + 1
		q2 := cloneQuery(q)
		q2.Set("part", "script")
		fmt.Fprintf(&b, "\n## Script (%s)\n\n%d lines, too many to give here: read them as %s (in pages: each names the next).\n", scriptSource, lines, stepURI(name, q2))
	}
	return b.String(), nil
}

// scriptPage is the script from line on, as many whole lines as fit
// stepResourceBudget, with a trailer naming the URI of the rest.
func scriptPage(uri *url.URL, name, source, script string, line int) (string, error) {
	lines := strings.Split(script, "\n")
	if line > len(lines) {
		return "", envelope.InvalidInput("line %d is past the script's last line (%d)", line, len(lines)).WithDetails("field", "line")
	}
	head := fmt.Sprintf("# Script of %s (%s), lines %%d-%%d of %d\n\n```python\n", name, source, len(lines))
	const tail = "\n```\n\nThe rest: %s\n"
	room := stepResourceBudget - jsonStringSize(head+tail+uri.String()+"&line=00000&part=script", stepResourceBudget)
	end := line - 1
	used := int64(0)
	for end < len(lines) {
		n := jsonStringSize(lines[end]+"\n", stepResourceBudget) - 2
		if end > line-1 && used+n > room {
			break
		}
		used += n
		end++
	}
	var b strings.Builder
	fmt.Fprintf(&b, head, line, end)
	b.WriteString(strings.Join(lines[line-1:end], "\n"))
	if end < len(lines) {
		q := uri.Query()
		q.Set("part", "script")
		q.Set("line", strconv.Itoa(end+1))
		next := *uri
		next.RawQuery = q.Encode()
		fmt.Fprintf(&b, tail, next.String())
	} else {
		b.WriteString("\n```\n")
	}
	return b.String(), nil
}

// stepURI is the URI of a step resource with query q (job_type,
// workspace_dirs, part, line).
func stepURI(name string, q url.Values) *url.URL {
	u, _ := url.Parse(StepURIPrefix + url.PathEscape(name))
	u.RawQuery = q.Encode()
	return u
}

func cloneQuery(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
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

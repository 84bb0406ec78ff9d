package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/internal/jsonpos"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "the agent tool surface: help, list-tools, call, export, serve",
		Subcommands: []*cli.Command{
			{
				Name:  "help",
				Usage: "show every tool grouped by namespace (tools.help)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "namespace", Usage: "only this namespace"},
					&cli.StringFlag{Name: "phase", Usage: "only tools of this phase: planner, validator or programmer"},
					&cli.BoolFlag{Name: "schema", Usage: "include input schemas"},
					&cli.BoolFlag{Name: "examples", Usage: "show examples (always shown with --namespace)"},
					&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json (json prints the tools.help data)"},
				},
				Action: mcpHelp,
			},
			{
				Name:  "list-tools",
				Usage: "list every tool",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "namespace", Usage: "only this namespace"},
					&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
				},
				Action: mcpListTools,
			},
			{
				Name:      "call",
				Usage:     "call one tool and print its envelope as JSON (exit 1 when it is not ok, or when a check's meta.verdict is fail)",
				ArgsUsage: "TOOL [ARGS]  (ARGS: a JSON object, @file, or - for stdin)",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "compact", Usage: "print the envelope on one line"},
				},
				Action: mcpCall,
			},
			{
				Name:  "export",
				Usage: "export the tools in a provider's tool format (a JSON array)",
				Description: "Prints every tool (or one namespace's) as the provider's API takes tool definitions.\n\n" +
					"--defer-loading uses the provider's tool search (deferred loading): every tool but the core toolset's\n" +
					"(the front door `cursus mcp serve` lists first) is marked \"defer_loading\": true, and the provider's tool\n" +
					"search tool comes first, so the model starts with the core definitions and loads the others when it\n" +
					"searches for them. Formats: anthropic (Messages API: tool_search_tool_bm25_20251119) and\n" +
					"openai-responses (Responses API: {\"type\": \"tool_search\"}); the others have no deferred loading.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Required: true, Usage: "openai, openai-responses, anthropic, bedrock, gemini or mcp"},
					&cli.StringFlag{Name: "namespace", Usage: "only this namespace"},
					&cli.BoolFlag{Name: "defer-loading", Usage: "deferred loading through the provider's tool search: defer_loading on every tool but the core toolset's, the tool search tool first (anthropic, openai-responses)"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to this file (atomically) instead of stdout"},
				},
				Action: mcpExport,
			},
			serveCommand(),
		},
	}
}

func checkFormat(f string, allowed ...string) error {
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return usagef("--format must be one of %s, got %q", strings.Join(allowed, ", "), f)
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return failure{msg: err.Error()}
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func mcpHelp(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp help takes no arguments, got %q", c.Args().First())
	}
	format := c.String("format")
	if err := checkFormat(format, "text", "json"); err != nil {
		return err
	}
	// The CLI is read by people: it always shows every selected tool (the
	// tool's own default for {} is the short namespace index agents read).
	args := map[string]any{"detail": true}
	if ns := c.String("namespace"); ns != "" {
		args["namespace"] = ns
	}
	if p := c.String("phase"); p != "" {
		args["phase"] = strings.ToLower(p)
	}
	if c.Bool("schema") {
		args["include_schema"] = true
	}
	res := cursus.CallTool(ctxOf(c), "tools.help", args)
	if !res.OK {
		return failure{msg: res.Error}
	}
	if format == "json" {
		return writeJSON(c.App.Writer, res.Data)
	}
	return printHelpText(c.App.Writer, res.Data, c.Bool("examples") || c.String("namespace") != "", c.Bool("schema"))
}

func printHelpText(w io.Writer, data any, examples, schema bool) error {
	// Round-trip through JSON so the text view reads the same data as --format json.
	var d struct {
		Overview string `json:"overview"`
		Total    int    `json:"total_tools"`
		Shown    int    `json:"shown"`
		Phases   map[string]struct {
			Description string `json:"description"`
			Count       int    `json:"count"`
		} `json:"phases"`
		Namespaces []struct {
			Namespace   string `json:"namespace"`
			Description string `json:"description"`
			Count       int    `json:"count"`
			Tools       []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Tags        []string        `json:"tags"`
				Destructive bool            `json:"destructive"`
				Writes      bool            `json:"writes"`
				ExecCode    bool            `json:"exec_code"`
				When        string          `json:"when"`
				Examples    []string        `json:"examples"`
				Schema      json.RawMessage `json:"schema"`
			} `json:"tools"`
		} `json:"namespaces"`
	}
	if err := remarshal(data, &d); err != nil {
		return failure{msg: err.Error()}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "%s\n\n%d of %d tool(s) shown.\n\nPhases:\n", d.Overview, d.Shown, d.Total)
	for _, p := range []string{"planner", "validator", "programmer"} {
		ph := d.Phases[p]
		fmt.Fprintf(&out, "  %-10s (%2d)  %s\n", p, ph.Count, ph.Description)
	}
	out.WriteByte('\n')
	for _, ns := range d.Namespaces {
		fmt.Fprintf(&out, "%s (%d) — %s\n", ns.Namespace, ns.Count, ns.Description)
		for _, t := range ns.Tools {
			marks := flagMarks(t.Destructive, t.Writes, t.ExecCode)
			if len(t.Tags) > 0 {
				marks += "  [" + strings.Join(t.Tags, ", ") + "]"
			}
			fmt.Fprintf(&out, "  %s%s\n      %s\n", t.Name, marks, t.Description)
			if t.When != "" {
				fmt.Fprintf(&out, "      When: %s\n", t.When)
			}
			if examples && len(t.Examples) > 0 {
				out.WriteString("      Examples:\n")
				for _, e := range t.Examples {
					fmt.Fprintf(&out, "        %s\n", e)
				}
			}
			if schema && len(t.Schema) > 0 {
				fmt.Fprintf(&out, "      Schema: %s\n", t.Schema)
			}
		}
		out.WriteByte('\n')
	}
	_, err := w.Write(out.Bytes())
	return err
}

func mcpListTools(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp list-tools takes no arguments, got %q", c.Args().First())
	}
	format := c.String("format")
	if err := checkFormat(format, "text", "json"); err != nil {
		return err
	}
	ns := c.String("namespace")
	if err := checkNamespace(ns); err != nil {
		return err
	}
	list := cursus.ListToolSummaries(ns) // no schemas: `mcp help --schema` or tools.describe_tool give them
	if format == "json" {
		return writeJSON(c.App.Writer, list)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d MCP tool(s):\n\n", len(list))
	for _, t := range list {
		fmt.Fprintf(&b, "  %s%s\n      %s\n", t.Name, flagMarks(t.Destructive, t.Writes, t.ExecCode), t.Description)
	}
	_, err := c.App.Writer.Write(b.Bytes())
	return err
}

// checkNamespace refuses a --namespace that names no namespace ("" is
// every namespace).
func checkNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if _, ok := cursus.Namespaces()[ns]; !ok {
		return failure{msg: fmt.Sprintf("unknown namespace %q; see `cursus mcp help`", ns)}
	}
	return nil
}

// flagMarks renders a tool's capability flags for the text views.
func flagMarks(destructive, writes, exec bool) string {
	m := ""
	if destructive {
		m += " [destructive]"
	}
	if writes {
		m += " [writes]"
	}
	if exec {
		m += " [exec]"
	}
	return m
}

// readArgs reads the ARGS operand: a JSON object, @file, or - for stdin.
func readArgs(c *cli.Context, operand string) ([]byte, error) {
	switch {
	case operand == "-":
		// Capped one byte over the call limit: the registry then answers too_large.
		b, err := io.ReadAll(io.LimitReader(c.App.Reader, registry.MaxArgBytes+1))
		if err != nil {
			return nil, usagef("read arguments from stdin: %v", err)
		}
		return b, nil
	case strings.HasPrefix(operand, "@"):
		b, err := safefs.Trusted().ReadFile(operand[1:], safefs.KindDocument)
		if err != nil {
			return nil, usagef("read arguments file: %v", err)
		}
		return b, nil
	}
	return []byte(operand), nil
}

func mcpCall(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("mcp call needs a tool name: cursus mcp call TOOL [ARGS]")
	}
	if c.NArg() > 2 {
		return usagef("mcp call takes TOOL and at most one ARGS operand (quote the JSON), got %d operands", c.NArg())
	}
	var raw []byte
	if c.NArg() == 2 {
		var err error
		if raw, err = readArgs(c, c.Args().Get(1)); err != nil {
			return err
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return usagef("ARGS is not valid JSON: %v (give a JSON object, @file or -)", jsonpos.Locate(raw, err))
			}
		}
	}
	// A long tool's progress (execution.wait polling) goes to stderr, one line per report.
	ctx := registry.WithProgress(ctxOf(c), func(_, _ float64, message string) {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", c.Args().First(), message)
	})
	res := cursus.CallTool(ctx, c.Args().First(), raw)
	b, err := marshalOut(res, c.Bool("compact"))
	if err != nil {
		// The envelope holds something JSON cannot carry: report it as an envelope.
		b, _ = json.Marshal(envelope.Fail("result is not JSON-serializable: "+err.Error(), envelope.CodeInternalError))
		res = &envelope.ToolResult{}
	}
	if _, err := c.App.Writer.Write(append(b, '\n')); err != nil {
		return err
	}
	if !res.OK || res.FailedCheck() {
		return failure{code: ExitFail}
	}
	return nil
}

func mcpExport(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp export takes no arguments, got %q", c.Args().First())
	}
	ns := c.String("namespace")
	if err := checkNamespace(ns); err != nil {
		return err
	}
	f, err := exporters.ParseFormat(c.String("format"))
	if err != nil {
		return usagef("--format: %v", err)
	}
	raw, err := exporters.ExportJSONWith(f, cursus.Registry().List(ns), exporters.Options{DeferLoading: c.Bool("defer-loading")}, false)
	if err != nil {
		return usagef("%v", err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		return failure{msg: err.Error()}
	}
	pretty.WriteByte('\n')
	if out := c.String("output"); out != "" {
		if err := safefs.Trusted().WriteFile(out, pretty.Bytes(), 0o644); err != nil {
			return failure{msg: fmt.Sprintf("write %s: %v", out, err)}
		}
		return nil
	}
	_, err = c.App.Writer.Write(pretty.Bytes())
	return err
}

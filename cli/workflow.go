package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/jsonpos"
)

// Exit statuses of `cursus workflow run` besides ExitOK, ExitFail (a failed
// gate, a cancelled run or an error) and ExitUsage.
const (
	// ExitStopped: the workflow stopped at a phase that needs judgment;
	// stdout holds the action items and tool calls, then resume the run.
	ExitStopped = 3
)

// workflowCommand is `cursus workflow list | describe NAME | run NAME`.
func workflowCommand() *cli.Command {
	return &cli.Command{
		Name:  "workflow",
		Usage: "run the multi-step workflows (new-project, configure-pipeline, author-step, init-project) as gated, resumable phases",
		Description: "A run keeps its state and artifacts in runs/<run_id>/ under the project root (CURSUS_MCP_PROJECT_ROOT, else the working directory).\n" +
			"`run` prints progress per phase on stderr and the result as JSON on stdout; exit status 0 done, 1 failed gate (or cancelled), " +
			"3 stopped for judgment (do the action items, then --resume), 2 usage error.",
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the workflows",
				ArgsUsage: " ",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
				},
				Action: workflowList,
			},
			{
				Name:      "describe",
				Usage:     "print a workflow's phases, gates, tools and arguments as JSON",
				ArgsUsage: "NAME",
				Action:    workflowDescribeCmd,
			},
			{
				Name:      "run",
				Usage:     "run a workflow, or resume a run",
				ArgsUsage: "NAME",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "args", Usage: "the workflow's arguments: a JSON object, @file or - (stdin)"},
					&cli.StringFlag{Name: "resume", Usage: "resume the run with this id (runs/<id>/) at the first phase not passed"},
					&cli.StringFlag{Name: "run-id", Usage: "id of a new run (default <workflow>-NNN)"},
					&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
					&cli.BoolFlag{Name: "compact", Usage: "print the result JSON on one line"},
				},
				Action: workflowRunCmd,
			},
		},
	}
}

func workflowList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("workflow list takes no arguments, got %q", c.Args().First())
	}
	format := c.String("format")
	if err := checkFormat(format, "text", "json"); err != nil {
		return err
	}
	res := cursus.CallTool(ctxOf(c), "workflow.describe", map[string]any{})
	if !res.OK {
		if err := writeJSON(c.App.Writer, res); err != nil {
			return err
		}
		return failure{msg: res.Error}
	}
	if format == "json" {
		return writeJSON(c.App.Writer, res.Data)
	}
	var d struct {
		Workflows []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			PhaseCount  int    `json:"phase_count"`
		} `json:"workflows"`
	}
	if err := remarshal(res.Data, &d); err != nil {
		return failure{msg: err.Error()}
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, w := range d.Workflows {
		desc := w.Description
		if i := strings.Index(desc, ": "); i > 0 && i < 60 {
			desc = desc[:i]
		}
		if len(desc) > 90 {
			desc = desc[:87] + "..."
		}
		fmt.Fprintf(tw, "%s\t%d phases\t%s\n", w.Name, w.PhaseCount, desc)
	}
	_ = tw.Flush()
	_, err := c.App.Writer.Write(b.Bytes())
	return err
}

func workflowDescribeCmd(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("workflow describe takes one NAME (see `cursus workflow list`)")
	}
	res := cursus.CallTool(ctxOf(c), "workflow.describe", map[string]any{"workflow": c.Args().First()})
	if !res.OK {
		if err := writeJSON(c.App.Writer, res); err != nil {
			return err
		}
		if res.Code == envelope.CodeNotFound {
			return failure{msg: res.Error, code: ExitUsage}
		}
		return failure{msg: res.Error}
	}
	return writeJSON(c.App.Writer, res.Data)
}

// runFlags are the flags of `workflow run`, read from the command's flags
// and from operands after NAME (urfave/cli stops parsing flags at the first
// operand, and `cursus workflow run NAME --args ...` is the documented form).
type runFlags struct {
	args, resume, runID string
	argsSet, runIDSet   bool
	quiet, compact      bool
}

func readRunFlags(c *cli.Context) (string, runFlags, error) {
	f := runFlags{args: c.String("args"), resume: c.String("resume"), runID: c.String("run-id"),
		argsSet: c.IsSet("args"), runIDSet: c.IsSet("run-id"), quiet: c.Bool("quiet"), compact: c.Bool("compact")}
	if c.NArg() == 0 {
		return "", f, usagef("workflow run needs a NAME (see `cursus workflow list`)")
	}
	name := c.Args().First()
	if canonical, ok := cursus.WorkflowName(name); ok {
		name = canonical // cursus (Python)'s names (cursus-new-project) work too
	}
	fs := flag.NewFlagSet("workflow run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	args := fs.String("args", "", "")
	resume := fs.String("resume", "", "")
	runID := fs.String("run-id", "", "")
	quiet := fs.Bool("quiet", false, "")
	fs.BoolVar(quiet, "q", false, "")
	compact := fs.Bool("compact", false, "")
	if err := fs.Parse(c.Args().Tail()); err != nil {
		return "", f, usagef("workflow run: %v", err)
	}
	if fs.NArg() > 0 {
		return "", f, usagef("workflow run takes one NAME, got extra operand %q (quote the --args JSON)", fs.Arg(0))
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "args":
			f.args, f.argsSet = *args, true
		case "resume":
			f.resume = *resume
		case "run-id":
			f.runID, f.runIDSet = *runID, true
		case "quiet", "q":
			f.quiet = *quiet
		case "compact":
			f.compact = *compact
		}
	})
	return name, f, nil
}

func workflowRunCmd(c *cli.Context) error {
	name, f, err := readRunFlags(c)
	if err != nil {
		return err
	}
	call := map[string]any{"workflow": name}
	if f.resume != "" {
		if f.argsSet || f.runIDSet {
			return usagef("--resume continues a run with its recorded arguments: --args and --run-id do not apply")
		}
		call["resume"] = f.resume
	} else {
		args := map[string]any{}
		if f.args != "" {
			raw, err := readArgs(c, f.args)
			if err != nil {
				return err
			}
			if err := json.Unmarshal(raw, &args); err != nil || args == nil {
				why := "null"
				if err != nil {
					why = jsonpos.Locate(raw, err).Error()
				}
				return usagef("--args must be a JSON object (or @file, or - for stdin): %s", why)
			}
		}
		call["args"] = args
		if f.runID != "" {
			call["run_id"] = f.runID
		}
	}
	ctx, stop := signal.NotifyContext(ctxOf(c), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !f.quiet {
		ctx = cursus.WithWorkflowProgress(ctx, progressPrinter(c.App.ErrWriter))
	}
	res := cursus.CallTool(ctx, "workflow.run", call)
	var out any
	status := ""
	switch {
	case res.OK:
		// A success is a run done or incomplete (its status is in the
		// data); both exit ExitOK.
		out, status = res.Data, cursus.WorkflowDone
	case res.Code == envelope.CodeWorkflowStopped || res.Code == envelope.CodeCancelled:
		d := res.Details()
		out = d
		status, _ = d["status"].(string)
	default:
		// Not a run outcome: a usage problem with the arguments or the run id.
		if err := writeJSON(c.App.Writer, res); err != nil {
			return err
		}
		if res.Code == envelope.CodeInvalidInput || res.Code == envelope.CodeNotFound {
			return failure{msg: res.Error, code: ExitUsage}
		}
		return failure{msg: res.Error}
	}
	b, err := marshalOut(out, f.compact)
	if err != nil {
		return failure{msg: err.Error()}
	}
	if _, err := c.App.Writer.Write(append(b, '\n')); err != nil {
		return err
	}
	if code := cursus.WorkflowExitCode(status); code != ExitOK {
		return failure{code: code} // ExitStopped, or ExitFail for a failed gate or a cancelled run
	}
	return nil
}

// progressPrinter writes one line per phase event to w.
func progressPrinter(w io.Writer) func(cursus.WorkflowEvent) {
	return func(e cursus.WorkflowEvent) {
		pos := ""
		if e.Index > 0 {
			pos = fmt.Sprintf("[%d/%d] ", e.Index, e.Total)
		}
		took := ""
		if e.Elapsed > 0 {
			took = " (" + e.Elapsed.Round(time.Millisecond).String() + ")"
		}
		switch e.Kind {
		case "start":
			fmt.Fprintf(w, "%s%s: %s ...\n", pos, e.Phase, e.Message)
		case "done":
			fmt.Fprintf(w, "workflow %s run %s: done\n", e.Workflow, e.RunID)
		case "incomplete":
			fmt.Fprintf(w, "workflow %s run %s: incomplete: %s\n", e.Workflow, e.RunID, e.Message)
		default:
			msg := ""
			if e.Message != "" {
				msg = ": " + e.Message
			}
			fmt.Fprintf(w, "%s%s %s%s%s\n", pos, e.Phase, e.Kind, took, msg)
		}
	}
}

func ctxOf(c *cli.Context) context.Context {
	if c.Context != nil {
		return c.Context
	}
	return context.Background()
}

func marshalOut(v any, compact bool) ([]byte, error) {
	if compact {
		return json.Marshal(v)
	}
	return json.MarshalIndent(v, "", "  ")
}

func remarshal(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
)

// runCommand is `cursus run local`.
func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a compiled pipeline",
		Subcommands: []*cli.Command{
			{
				Name:      "local",
				Usage:     "compile a DAG and its config and run the definition on this machine (execution.run_local)",
				ArgsUsage: " ",
				Description: "Each step runs in a bubblewrap sandbox at its SageMaker container paths, with the interpreter CURSUS_PYTHON (default python3).\n" +
					"A line on stderr when each step starts and when it ends (independent steps run at the same time), and one per plot the run\n" +
					"drew (ROC, precision-recall, reliability); the run's report (JSON) on stdout. Ctrl-C stops the running jobs, writes the\n" +
					"report and says which steps were running and where the run is.\n" +
					"Exit status 0 when every step succeeded or was substituted, 1 when a step failed (the report names it), the run was\n" +
					"interrupted or the call failed, 2 for a usage error.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "dag-file", Usage: "the pipeline DAG (JSON)"},
					&cli.StringFlag{Name: "config-file", Usage: "the pipeline's config.json"},
					&cli.StringFlag{Name: "work-dir", Usage: "directory the run directory is made in"},
					&cli.StringFlag{Name: "data", Usage: "a JSON file mapping S3 URIs or <step>.<output> to local paths (an example's local-data.json)"},
					&cli.StringSliceFlag{Name: "generate-data", Usage: "an S3 URI the definition reads (or <step>.<output>) to fill with generated data (repeatable)"},
					&cli.StringSliceFlag{Name: "param", Usage: "a pipeline parameter value, NAME=VALUE (repeatable)"},
					&cli.StringFlag{Name: "pipeline-name", Usage: "pipeline name (default: from the config)"},
					&cli.IntFlag{Name: "step-timeout", Usage: "time limit of each step's job, in seconds", DefaultText: "3600"},
					&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
					&cli.BoolFlag{Name: "compact", Usage: "print the report on one line"},
				},
				Action: runLocalCmd,
			},
		},
	}
}

func runLocalCmd(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("run local takes no operands, got %q", c.Args().First())
	}
	for _, f := range []string{"dag-file", "config-file", "work-dir"} {
		if strings.TrimSpace(c.String(f)) == "" {
			return usagef("run local needs --dag-file, --config-file and --work-dir (--%s is missing)", f)
		}
	}
	args := map[string]any{"dag_file": c.String("dag-file"), "config_file": c.String("config-file"), "work_dir": c.String("work-dir")}
	if f := c.String("data"); f != "" {
		raw, err := safefs.Trusted().ReadFile(f, safefs.KindDocument)
		if err != nil {
			return usagef("--data: %v", err)
		}
		var data map[string]string
		if err := json.Unmarshal(bytes.TrimSpace(raw), &data); err != nil {
			return usagef("--data %s must hold a JSON object of strings: %v", f, err)
		}
		args["data"] = data
	}
	if g := c.StringSlice("generate-data"); len(g) > 0 {
		args["generate_data"] = g
	}
	if ps := c.StringSlice("param"); len(ps) > 0 {
		params := map[string]string{}
		for _, p := range ps {
			k, v, ok := strings.Cut(p, "=")
			if !ok || k == "" {
				return usagef("--param %q: want NAME=VALUE", p)
			}
			params[k] = v
		}
		args["parameters"] = params
	}
	if n := c.String("pipeline-name"); n != "" {
		args["pipeline_name"] = n
	}
	if s := c.Int("step-timeout"); s > 0 {
		args["step_timeout_seconds"] = s
	}
	ctx, stop := signal.NotifyContext(ctxOf(c), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !c.Bool("quiet") {
		ctx = cursus.WithStepProgress(ctx, stepPrinter(c.App.ErrWriter))
	}
	res := cursus.CallTool(ctx, "execution.run_local", args)
	var out any
	switch {
	case res.OK:
		out = res.Data
	case res.Code == envelope.CodeRunFailed:
		out = res.Details()["report"]
	case res.Code == envelope.CodeCancelled && res.Details()["report"] != nil:
		// interrupted (Ctrl-C): what was running, where the report and the run are
		out = res.Details()["report"]
		fmt.Fprintln(c.App.ErrWriter, interrupted(res.Details()))
	default:
		if err := writeJSON(c.App.Writer, res); err != nil {
			return err
		}
		if res.Code == envelope.CodeInvalidInput || res.Code == envelope.CodeNotFound {
			return failure{msg: res.Error, code: ExitUsage}
		}
		return failure{msg: res.Error}
	}
	b, err := marshalOut(out, c.Bool("compact"))
	if err != nil {
		return failure{msg: err.Error()}
	}
	if !c.Bool("quiet") {
		printPlots(c.App.ErrWriter, b)
	}
	if _, err := c.App.Writer.Write(append(b, '\n')); err != nil {
		return err
	}
	if !res.OK {
		if res.Code == envelope.CodeCancelled {
			return failure{} // the interrupted line said it
		}
		return failure{msg: res.Error}
	}
	return nil
}

// interrupted is the line a run stopped by Ctrl-C ends with: the steps
// that were running, the run's report and its folder.
func interrupted(details map[string]any) string {
	var running []string
	switch l := details["running"].(type) {
	case []string:
		running = l
	case []any:
		for _, x := range l {
			running = append(running, fmt.Sprint(x))
		}
	}
	what := "no step was running"
	if len(running) > 0 {
		what = "stopped while " + strings.Join(running, ", ") + " ran"
	}
	dir, _ := details["run_dir"].(string)
	return fmt.Sprintf("interrupted: %s; the run's report is %s, its folder %s", what, filepath.Join(dir, "report.json"), dir)
}

// printPlots writes a line to w for each plot the run's report (JSON)
// lists.
func printPlots(w io.Writer, report []byte) {
	var rep struct {
		Plots []struct {
			Step string `json:"step"`
			Path string `json:"path"`
		} `json:"plots"`
	}
	if json.Unmarshal(report, &rep) != nil {
		return
	}
	for _, p := range rep.Plots {
		fmt.Fprintf(w, "plot of %s: %s\n", p.Step, p.Path)
	}
}

// stepPrinter writes a line to w when a step starts and when it ends.
func stepPrinter(w io.Writer) func(cursus.StepEvent) {
	return func(e cursus.StepEvent) {
		if e.Status == cursus.StepRunning {
			fmt.Fprintf(w, "[%d/%d] %s (%s) started\n", e.Index, e.Total, e.Step, e.Type)
			return
		}
		line := fmt.Sprintf("[%d/%d] %s (%s) %s", e.Index, e.Total, e.Step, e.Type, e.Status)
		if e.Duration > 0 {
			line += fmt.Sprintf(" in %.1fs", e.Duration)
		}
		if e.Error != "" {
			msg := e.Error
			if len(msg) > 300 {
				msg = msg[:297] + "..."
			}
			line += ": " + msg
		}
		fmt.Fprintln(w, line)
	}
}

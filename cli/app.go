// Package cli is the `cursus` command line. It is a thin wrapper: every
// command calls the public cursus package (CallTool, ListTools, Export) or
// the MCP server, and prints only the requested output on stdout; errors
// and logs go to stderr.
//
// Exit status: 0 on success, 1 when a tool answered ok=false, when a check
// answered ok with meta.verdict "fail" (compile.validate of a pipeline that
// is not deployable, dag.validate_integrity of a DAG with issues, ...: see
// envelope.MetaVerdict) or a command failed, 2 for usage errors.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cursus-go/cursus"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// usageError marks a usage mistake (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// failure is a failure whose message has already been printed or must be
// printed as is (exit 1).
type failure struct {
	msg  string
	code int
}

func (e failure) Error() string { return e.msg }

// NewApp returns the cursus application writing to the given streams.
func NewApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:            "cursus",
		Usage:           "compile ML pipeline DAGs into Amazon SageMaker Pipelines definitions, with an agent tool surface",
		Version:         cursus.Version,
		Reader:          stdin,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideVersion:     true,
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
		// urfave/cli adds --help only when no command is named help.
		Flags: []cli.Flag{cli.HelpFlag},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usagef("%v", err)
		},
		Commands: []*cli.Command{
			mcpCommand(),
			workflowCommand(),
			runCommand(),
			{
				Name:      "help",
				Usage:     "show the commands, or one command's help (cursus help mcp call)",
				ArgsUsage: "[COMMAND ...]",
				Action:    helpAction,
			},
			{
				Name:  "version",
				Usage: "print the version",
				Action: func(c *cli.Context) error {
					fmt.Fprintf(c.App.Writer, "cursus %s\n", cursus.Version)
					return nil
				},
			},
		},
	}
	app.Action = groupAction
	for _, c := range app.Commands {
		setUsageHandlers(c)
	}
	return app
}

// groupAction runs when no subcommand matched: an operand is an unknown
// command (usage error), none shows the help.
func groupAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("unknown command %q; see --help", c.Args().First())
	}
	if c.Command != nil && c.Command.Name != "" {
		return cli.ShowSubcommandHelp(c)
	}
	return cli.ShowAppHelp(c)
}

// helpAction is `cursus help [COMMAND ...]`: the help of the app, of a
// command group or of one command, as --help prints it.
func helpAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	cmds, path := c.App.Commands, []string{}
	var cmd *cli.Command
	for _, name := range c.Args().Slice() {
		cmd = nil
		for _, k := range cmds {
			if k.HasName(name) {
				cmd = k
			}
		}
		if cmd == nil {
			return usagef("help: unknown command %q; see cursus help%s", strings.Join(append(path, name), " "), prefixed(path))
		}
		path = append(path, cmd.Name)
		cmds = cmd.Subcommands
	}
	return c.App.Run(append(append([]string{c.App.Name}, path...), "--help"))
}

func prefixed(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return " " + strings.Join(path, " ")
}

// setUsageHandlers makes every command report flag errors as usage errors
// (exit 2, message on stderr) instead of printing its help on stdout,
// makes every command group refuse unknown subcommands, and makes every
// command that reads its own operands say so when an option follows them.
func setUsageHandlers(c *cli.Command) {
	c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usagef("%v", err) }
	if len(c.Subcommands) > 0 && c.Action == nil {
		c.Action = groupAction
	}
	if len(c.Subcommands) == 0 && c.Action != nil && !c.SkipFlagParsing {
		action := c.Action
		c.Action = func(ctx *cli.Context) error {
			if err := optionAfterOperands(ctx); err != nil {
				return err
			}
			return action(ctx)
		}
	}
	for _, s := range c.Subcommands {
		setUsageHandlers(s)
	}
}

// operandsTakeOptions are the commands that read options after their
// operands themselves (`cursus workflow run NAME --args ...`).
var operandsTakeOptions = map[string]bool{"cursus workflow run": true}

// optionAfterOperands is a usage error when an operand looks like an
// option: urfave/cli reads options only before the first operand, so one
// written after it would otherwise be taken as an operand.
func optionAfterOperands(c *cli.Context) error {
	if operandsTakeOptions[c.Command.HelpName] {
		return nil
	}
	for _, a := range c.Args().Slice() {
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		known := false
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), name) {
				known = true
			}
		}
		what := "looks like an option"
		if known {
			what = "is an option of " + c.Command.HelpName
		}
		operands, _, _ := strings.Cut(strings.TrimSpace(c.Command.ArgsUsage), "  ")
		return usagef("%s %s but comes after the operands, where it is read as one: put options before the operands (%s [OPTIONS] %s)",
			a, what, c.Command.HelpName, operands)
	}
	return nil
}

// Run runs the command line and returns the exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := NewApp(stdin, stdout, stderr)
	err := app.Run(args)
	if err == nil {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "cursus: %s\n", ue.msg)
		return ExitUsage
	}
	var f failure
	if errors.As(err, &f) {
		if f.msg != "" {
			fmt.Fprintf(stderr, "cursus: %s\n", f.msg)
		}
		if f.code != 0 {
			return f.code
		}
		return ExitFail
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "cursus: %s\n", msg)
		}
		return ec.ExitCode()
	}
	// urfave reports unknown commands and flags as plain errors.
	fmt.Fprintf(stderr, "cursus: %v\n", err)
	return ExitUsage
}

// Main runs the command line on the process's streams and returns the exit status.
func Main() int { return Run(os.Args, os.Stdin, os.Stdout, os.Stderr) }

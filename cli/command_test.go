package cli

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommandParsing(t *testing.T) {
	var got *cmdCtx
	leaf := &command{
		Name:      "leaf",
		Usage:     "a leaf",
		ArgsUsage: "NAME",
		Flags: []cliFlag{
			&stringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`"},
			&boolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress"},
			&intFlag{Name: "n", Value: 3, Usage: "a count"},
			&durationFlag{Name: "wait", Value: time.Second, Usage: "how long"},
			&stringSliceFlag{Name: "tag", Usage: "a tag (repeatable)"},
			&stringFlag{Name: "need", Usage: "needed", Required: true},
		},
		Action: func(c *cmdCtx) error { got = c; return nil },
	}
	root := &command{Name: "prog", Usage: "a program", Subcommands: []*command{{Name: "group", Usage: "a group", Subcommands: []*command{leaf}}}}
	setGroupActions(root)
	var out bytes.Buffer
	a := &app{Writer: &out, root: root}
	run := func(args ...string) error {
		got = nil
		out.Reset()
		return a.run(context.Background(), append([]string{"prog"}, args...))
	}

	if err := run("group", "leaf", "--need", "x", "-q", "--tag", "a, b", "--tag=c", "--n", "7", "NAME", "--format", "json"); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.String("format") != "text" || !got.Bool("quiet") || !got.Bool("q") || got.Int("n") != 7 || got.Duration("wait") != time.Second {
		t.Fatalf("values: %+v", got)
	}
	if tags := got.StringSlice("tag"); !slices.Equal(tags, []string{"a", "b", "c"}) {
		t.Errorf("tags %q", tags)
	}
	if !got.IsSet("quiet") || !got.IsSet("q") || got.IsSet("format") || got.IsSet("wait") {
		t.Errorf("IsSet: %v", got.set)
	}
	// Flags stop at the first operand: the rest are operands.
	if got.NArg() != 3 || got.Args().First() != "NAME" || !slices.Equal(got.Args().Tail(), []string{"--format", "json"}) || got.Args().Get(5) != "" {
		t.Errorf("operands %q", got.args)
	}

	for args, want := range map[string]string{
		"group leaf --bogus":      "flag provided but not defined: -bogus (see prog group leaf --help)",
		"group leaf":              "required flag --need not set (see prog group leaf --help)",
		"group leaf --need x --n": "flag needs an argument: -n",
		"group nope":              `unknown command "nope"; see prog group --help`,
	} {
		var ue usageError
		if err := run(strings.Fields(args)...); !errors.As(err, &ue) || !strings.Contains(ue.msg, want) || got != nil {
			t.Errorf("%s: got %v, want a usage error with %q", args, err, want)
		}
	}

	for _, args := range [][]string{{"group", "leaf", "--help"}, {"group", "leaf", "-h", "--need", "x"}} {
		if err := run(args...); err != nil || got != nil {
			t.Fatalf("%v: %v (action ran: %v)", args, err, got != nil)
		}
		help := out.String()
		for _, want := range []string{"prog group leaf - a leaf", "prog group leaf [options] NAME", "--format FORMAT", "output FORMAT (default: text)",
			"--quiet, -q  ", "-n value", "(default: 3)", "(default: 1s)", "--need value", "(required)", "--help, -h"} {
			if !strings.Contains(help, want) {
				t.Errorf("help lacks %q:\n%s", want, help)
			}
		}
	}
	if err := run("group"); err != nil || !strings.Contains(out.String(), "COMMANDS:\n   leaf  a leaf\n") {
		t.Errorf("a group alone shows its help: %v\n%s", err, out.String())
	}
}

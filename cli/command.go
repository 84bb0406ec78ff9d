package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// The command line is parsed by the few types below over the standard
// flag package rather than by a command-line framework: the frameworks
// print their help with text/template, and a binary that can execute a
// text/template can call any exported method by name, so the linker keeps
// every exported method of every type that reaches an interface. With the
// AWS SDK's clients that doubled the cursus binary (30 MB -> 59 MB) and
// the pages of it `cursus mcp serve` keeps resident.
//
// Flags come before a command's operands (`cursus mcp call --compact TOOL
// ARGS`); -h or --help anywhere before them prints the command's help on
// stdout.

// app is the command tree with the streams the commands use.
type app struct {
	Reader    io.Reader
	Writer    io.Writer
	ErrWriter io.Writer
	root      *command
}

// command is one command: a group of subcommands, an action, or both (a
// group's action runs when no subcommand is named).
type command struct {
	Name        string
	Usage       string // one line, in the parent's list of commands
	ArgsUsage   string // the operands, after [options] in the usage line
	Description string // paragraphs shown by the command's help
	Flags       []cliFlag
	Subcommands []*command
	Action      func(*cmdCtx) error
	parent      *command
}

// cliFlag is a flag definition, a typedFlag.
type cliFlag interface {
	names() []string
	usage() string
	// define registers the flag's names on fs and returns the value that
	// receives it.
	define(fs *flag.FlagSet) any
	// defaultText is the default shown by the help ("" for none).
	defaultText() string
	required() bool
	isBool() bool
}

// typedFlag is a flag whose value is a T: a --name VALUE flag (string,
// int, time.Duration in time.ParseDuration's syntax), a --name switch
// (bool), or a repeatable --name VALUE flag whose values are also split at
// commas ([]string; Value is unused).
type typedFlag[T string | bool | int | time.Duration | []string] struct {
	Name     string
	Aliases  []string
	Usage    string
	Required bool
	Value    T // the default
}

type (
	stringFlag      = typedFlag[string]
	boolFlag        = typedFlag[bool]
	intFlag         = typedFlag[int]
	durationFlag    = typedFlag[time.Duration]
	stringSliceFlag = typedFlag[[]string]
)

func (f *typedFlag[T]) names() []string { return append([]string{f.Name}, f.Aliases...) }
func (f *typedFlag[T]) usage() string   { return f.Usage }
func (f *typedFlag[T]) required() bool  { return f.Required }

func (f *typedFlag[T]) isBool() bool {
	_, ok := any(f.Value).(bool)
	return ok
}

func (f *typedFlag[T]) define(fs *flag.FlagSet) any {
	switch def := any(f.Value).(type) {
	case string:
		p := new(string)
		for _, n := range f.names() {
			fs.StringVar(p, n, def, "")
		}
		return p
	case bool:
		p := new(bool)
		for _, n := range f.names() {
			fs.BoolVar(p, n, def, "")
		}
		return p
	case int:
		p := new(int)
		for _, n := range f.names() {
			fs.IntVar(p, n, def, "")
		}
		return p
	case time.Duration:
		p := new(time.Duration)
		for _, n := range f.names() {
			fs.DurationVar(p, n, def, "")
		}
		return p
	default: // []string
		p := new(stringSlice)
		for _, n := range f.names() {
			fs.Var(p, n, "")
		}
		return p
	}
}

func (f *typedFlag[T]) defaultText() string {
	switch def := any(f.Value).(type) {
	case string:
		return def
	case int:
		if def != 0 {
			return strconv.Itoa(def)
		}
	case time.Duration:
		if def != 0 {
			return def.String()
		}
	}
	return ""
}

// stringSlice receives a repeatable flag.
type stringSlice []string

func (s *stringSlice) String() string { return strings.Join(*s, ",") }

func (s *stringSlice) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		*s = append(*s, strings.TrimSpace(part))
	}
	return nil
}

// cmdCtx is what an action gets: the streams, the command, its flag values
// and its operands.
type cmdCtx struct {
	App     *app
	Command *command
	Context context.Context
	values  map[string]any // by every name of each flag
	set     map[string]bool
	args    argList
}

// argList is a command's operands.
type argList []string

// First is the first operand, or "".
func (a argList) First() string { return a.Get(0) }

// Get is operand i, or "".
func (a argList) Get(i int) string {
	if i < 0 || i >= len(a) {
		return ""
	}
	return a[i]
}

// Tail is the operands after the first.
func (a argList) Tail() []string {
	if len(a) < 2 {
		return nil
	}
	return a[1:]
}

// Args returns the operands.
func (c *cmdCtx) Args() argList { return c.args }

// NArg is the number of operands.
func (c *cmdCtx) NArg() int { return len(c.args) }

// IsSet reports whether the flag was given on the command line.
func (c *cmdCtx) IsSet(name string) bool { return c.set[name] }

// String is a string flag's value.
func (c *cmdCtx) String(name string) string {
	if p, ok := c.values[name].(*string); ok {
		return *p
	}
	return ""
}

// Bool is a boolean flag's value.
func (c *cmdCtx) Bool(name string) bool {
	if p, ok := c.values[name].(*bool); ok {
		return *p
	}
	return false
}

// Int is an integer flag's value.
func (c *cmdCtx) Int(name string) int {
	if p, ok := c.values[name].(*int); ok {
		return *p
	}
	return 0
}

// Duration is a duration flag's value.
func (c *cmdCtx) Duration(name string) time.Duration {
	if p, ok := c.values[name].(*time.Duration); ok {
		return *p
	}
	return 0
}

// StringSlice is a repeatable flag's values, in order.
func (c *cmdCtx) StringSlice(name string) []string {
	if p, ok := c.values[name].(*stringSlice); ok {
		return *p
	}
	return nil
}

// run parses args (args[0] is the program name) down the command tree and
// runs the action of the command they name. A flag error or a missing
// required flag is a usage error; -h or --help prints the help.
func (a *app) run(ctx context.Context, args []string) error {
	link(a.root, nil)
	cmd := a.root
	rest := args[1:]
	for {
		fs := flag.NewFlagSet(cmd.path(), flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Usage = func() {}
		c := &cmdCtx{App: a, Command: cmd, Context: ctx, values: map[string]any{}, set: map[string]bool{}}
		for _, f := range cmd.Flags {
			v := f.define(fs)
			for _, n := range f.names() {
				c.values[n] = v
			}
		}
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return a.showHelp(cmd)
			}
			return usagef("%v (see %s --help)", err, cmd.path())
		}
		rest = fs.Args()
		if len(rest) > 0 {
			if sub := cmd.sub(rest[0]); sub != nil {
				cmd, rest = sub, rest[1:]
				continue
			}
		}
		fs.Visit(func(fl *flag.Flag) {
			for _, f := range cmd.Flags {
				if names := f.names(); containsName(names, fl.Name) {
					for _, n := range names {
						c.set[n] = true
					}
				}
			}
		})
		for _, f := range cmd.Flags {
			if f.required() && !c.set[f.names()[0]] {
				return usagef("required flag --%s not set (see %s --help)", f.names()[0], cmd.path())
			}
		}
		c.args = rest
		if cmd.Action == nil {
			return a.showHelp(cmd)
		}
		return cmd.Action(c)
	}
}

func link(c, parent *command) {
	c.parent = parent
	for _, s := range c.Subcommands {
		link(s, c)
	}
}

func containsName(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

func (c *command) sub(name string) *command {
	for _, s := range c.Subcommands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// path is the command as typed: "cursus mcp serve".
func (c *command) path() string {
	if c.parent == nil {
		return c.Name
	}
	return c.parent.path() + " " + c.Name
}

// showHelp prints the command's help on stdout.
func (a *app) showHelp(c *command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "NAME:\n   %s - %s\n\nUSAGE:\n   %s", c.path(), c.Usage, c.path())
	if len(c.Flags) > 0 {
		b.WriteString(" [options]")
	}
	if len(c.Subcommands) > 0 {
		b.WriteString(" COMMAND [options]")
	}
	if c.ArgsUsage != "" && strings.TrimSpace(c.ArgsUsage) != "" {
		b.WriteString(" " + c.ArgsUsage)
	}
	b.WriteString("\n")
	if c.Description != "" {
		b.WriteString("\nDESCRIPTION:\n")
		for _, line := range strings.Split(c.Description, "\n") {
			b.WriteString(strings.TrimRight("   "+line, " ") + "\n")
		}
	}
	tw := tabwriter.NewWriter(&b, 1, 8, 2, ' ', 0)
	if len(c.Subcommands) > 0 {
		b.WriteString("\nCOMMANDS:\n")
		for _, s := range c.Subcommands {
			fmt.Fprintf(tw, "   %s\t%s\n", s.Name, s.Usage)
		}
		_ = tw.Flush()
	}
	b.WriteString("\nOPTIONS:\n")
	for _, f := range c.Flags {
		placeholder, usage := splitPlaceholder(f.usage())
		var names []string
		for _, n := range f.names() {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			names = append(names, dash+n)
		}
		head := strings.Join(names, ", ")
		if !f.isBool() {
			if placeholder == "" {
				placeholder = "value"
			}
			head += " " + placeholder
		}
		if d := f.defaultText(); d != "" {
			usage += fmt.Sprintf(" (default: %s)", d)
		}
		if f.required() {
			usage += " (required)"
		}
		fmt.Fprintf(tw, "   %s\t%s\n", head, usage)
	}
	fmt.Fprintf(tw, "   --help, -h\tshow help\n")
	_ = tw.Flush()
	_, err := io.WriteString(a.Writer, b.String())
	return err
}

// splitPlaceholder takes the `NAME` a flag's usage quotes as the flag's
// value placeholder and returns it with the usage unquoted.
func splitPlaceholder(usage string) (placeholder, text string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+1+j+1:]
}

package project

import (
	"fmt"
	"reflect"
	"strings"
)

// skeletonTemplate is a parsed script skeleton template: the small subset
// of the text/template language templates/script.py.tmpl is written in,
// with << and >> as delimiters. An action is a value (<<.Field>>, <<.>>),
// a Python literal (<<py ARG>>), <<if COND>> with <<else if COND>> and
// <<else>>, or <<range ARG>>, each closed by <<end>>; a COND is an ARG
// (true when not empty) or <<eq ARG "text">>; an ARG is . or .Field of the
// value in hand. <<- trims the white space before the action, as in
// text/template.
//
// The skeleton does not use text/template: a program that can run a
// text/template can call any exported method by name, so the linker keeps
// every exported method of every type that reaches an interface, which
// about doubles the cursus binary and the pages of it a server keeps
// resident.
type skeletonTemplate []tnode

// tnode is one node of a skeleton template.
type tnode struct {
	kind      tkind
	text      string // tText
	arg       string // tValue, tPy, tIf, tRange: "." or ".Field"
	eq        string // tIf: compare arg with this text (when isEq)
	isEq      bool
	body, alt []tnode // tIf (alt: the else branch), tRange
}

type tkind uint8

const (
	tText tkind = iota
	tValue
	tPy
	tIf
	tRange
)

// parseSkeleton parses a skeleton template (see skeletonTemplate).
func parseSkeleton(src string) (skeletonTemplate, error) {
	p := &tparser{src: src}
	nodes, stop, err := p.list()
	if err != nil {
		return nil, err
	}
	if stop != "" {
		return nil, fmt.Errorf("skeleton template: unexpected <<%s>>", stop)
	}
	return nodes, nil
}

type tparser struct {
	src string
	pos int
}

// list parses nodes up to the end of the input (stop "") or up to an
// <<end>>, <<else>> or <<else if ...>> action, which it returns as stop.
func (p *tparser) list() (nodes []tnode, stop string, err error) {
	for p.pos < len(p.src) {
		i := strings.Index(p.src[p.pos:], "<<")
		if i < 0 {
			nodes = append(nodes, tnode{kind: tText, text: p.src[p.pos:]})
			p.pos = len(p.src)
			break
		}
		text := p.src[p.pos : p.pos+i]
		j := strings.Index(p.src[p.pos+i:], ">>")
		if j < 0 {
			return nil, "", fmt.Errorf("skeleton template: unclosed << at byte %d", p.pos+i)
		}
		action := p.src[p.pos+i+2 : p.pos+i+j]
		p.pos += i + j + 2
		if rest, ok := strings.CutPrefix(action, "- "); ok {
			text = strings.TrimRight(text, " \t\r\n")
			action = rest
		}
		if text != "" {
			nodes = append(nodes, tnode{kind: tText, text: text})
		}
		action = strings.TrimSpace(action)
		word, rest, _ := strings.Cut(action, " ")
		switch word {
		case "end", "else":
			return nodes, action, nil
		case "if":
			n, err := p.ifNode(rest)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n)
		case "range":
			if err := checkArg(rest); err != nil {
				return nil, "", err
			}
			body, stop, err := p.list()
			if err != nil {
				return nil, "", err
			}
			if stop != "end" {
				return nil, "", fmt.Errorf("skeleton template: <<range %s>> closed by <<%s>>", rest, stop)
			}
			nodes = append(nodes, tnode{kind: tRange, arg: rest, body: body})
		case "py":
			if err := checkArg(rest); err != nil {
				return nil, "", err
			}
			nodes = append(nodes, tnode{kind: tPy, arg: rest})
		default:
			if err := checkArg(action); err != nil {
				return nil, "", err
			}
			nodes = append(nodes, tnode{kind: tValue, arg: action})
		}
	}
	return nodes, "", nil
}

// ifNode parses the rest of an if whose condition is cond, through its
// <<end>>; an <<else if>> becomes an if in the else branch, closed by the
// same <<end>>.
func (p *tparser) ifNode(cond string) (tnode, error) {
	n := tnode{kind: tIf, arg: cond}
	if args, ok := strings.CutPrefix(cond, "eq "); ok {
		arg, lit, _ := strings.Cut(args, " ")
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
			return tnode{}, fmt.Errorf("skeleton template: <<if %s>>: eq takes an argument and a quoted text", cond)
		}
		n.arg, n.eq, n.isEq = arg, lit[1:len(lit)-1], true
	}
	if err := checkArg(n.arg); err != nil {
		return tnode{}, err
	}
	body, stop, err := p.list()
	if err != nil {
		return tnode{}, err
	}
	n.body = body
	switch {
	case stop == "end":
	case stop == "else":
		alt, stop, err := p.list()
		if err != nil {
			return tnode{}, err
		}
		if stop != "end" {
			return tnode{}, fmt.Errorf("skeleton template: <<else>> of <<if %s>> closed by <<%s>>", cond, stop)
		}
		n.alt = alt
	case strings.HasPrefix(stop, "else if "):
		alt, err := p.ifNode(strings.TrimPrefix(stop, "else if "))
		if err != nil {
			return tnode{}, err
		}
		n.alt = []tnode{alt}
	default:
		return tnode{}, fmt.Errorf("skeleton template: <<if %s>> not closed", cond)
	}
	return n, nil
}

func checkArg(a string) error {
	if a == "." || (len(a) > 1 && a[0] == '.' && !strings.ContainsAny(a[1:], ". ")) {
		return nil
	}
	return fmt.Errorf("skeleton template: %q is not . or .Field", a)
}

// execute renders the template with data (a struct) as the value in hand.
func (t skeletonTemplate) execute(b *strings.Builder, data any) error {
	return execNodes(b, t, reflect.ValueOf(data))
}

func execNodes(b *strings.Builder, nodes []tnode, dot reflect.Value) error {
	for _, n := range nodes {
		if n.kind == tText {
			b.WriteString(n.text)
			continue
		}
		v, err := argValue(dot, n.arg)
		if err != nil {
			return err
		}
		switch n.kind {
		case tValue:
			if v.Kind() != reflect.String {
				return fmt.Errorf("skeleton template: <<%s>> is a %s, not a string", n.arg, v.Kind())
			}
			b.WriteString(v.String())
		case tPy:
			b.WriteString(pyLiteral(v.Interface()))
		case tIf:
			var ok bool
			if n.isEq {
				ok = v.Kind() == reflect.String && v.String() == n.eq
			} else if ok, err = truth(v, n.arg); err != nil {
				return err
			}
			branch := n.alt
			if ok {
				branch = n.body
			}
			if err := execNodes(b, branch, dot); err != nil {
				return err
			}
		case tRange:
			if v.Kind() != reflect.Slice {
				return fmt.Errorf("skeleton template: <<range %s>> over a %s", n.arg, v.Kind())
			}
			for i := range v.Len() {
				if err := execNodes(b, n.body, v.Index(i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// argValue is . or the named field of the value in hand.
func argValue(dot reflect.Value, arg string) (reflect.Value, error) {
	if arg == "." {
		return dot, nil
	}
	if dot.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("skeleton template: %s of a %s", arg, dot.Kind())
	}
	f := dot.FieldByName(arg[1:])
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf("skeleton template: no field %s in %s", arg, dot.Type())
	}
	return f, nil
}

// truth is text/template's truth for the kinds the skeleton's data has.
func truth(v reflect.Value, arg string) (bool, error) {
	switch v.Kind() {
	case reflect.String, reflect.Slice:
		return v.Len() > 0, nil
	case reflect.Bool:
		return v.Bool(), nil
	}
	return false, fmt.Errorf("skeleton template: <<if %s>> on a %s", arg, v.Kind())
}

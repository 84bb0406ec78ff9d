package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepFile is the decoded form of one *.step.yaml file, before field sets,
// per-verb defaults and validation are applied. See doc.go for the format.
type StepFile struct {
	Step        string                 `yaml:"step"`
	Verb        Verb                   `yaml:"verb"`
	Kind        NodeKind               `yaml:"kind"`
	Description string                 `yaml:"description"`
	Framework   string                 `yaml:"framework,omitempty"`
	ConfigClass string                 `yaml:"config_class,omitempty"`
	Builder     string                 `yaml:"builder,omitempty"`
	Aliases     []string               `yaml:"aliases,omitempty"`
	Keywords    []string               `yaml:"keywords,omitempty"`
	FieldSets   []string               `yaml:"field_sets,omitempty"`
	JobTypes    []string               `yaml:"job_types,omitempty"`
	Patterns    Patterns               `yaml:"patterns,omitempty"`
	Compute     Compute                `yaml:"compute"`
	Contract    Contract               `yaml:"contract,omitempty"`
	Inputs      []InputPort            `yaml:"inputs,omitempty"`
	Outputs     []OutputPort           `yaml:"outputs,omitempty"`
	Fields      []FieldDecl            `yaml:"fields,omitempty"`
	Variants    map[string]VariantDecl `yaml:"variants,omitempty"`
}

// VariantDecl is a job-type variant as written in a step file.
type VariantDecl struct {
	Description string                     `yaml:"description,omitempty"`
	Inputs      map[string]InputPortPatch  `yaml:"inputs,omitempty"`
	Outputs     map[string]OutputPortPatch `yaml:"outputs,omitempty"`
	EnvDefaults map[string]string          `yaml:"env_defaults,omitempty"`
}

// FieldSetFile is the decoded form of one fieldsets/*.yaml file.
type FieldSetFile struct {
	Name        string      `yaml:"name"`
	Extends     string      `yaml:"extends,omitempty"`
	Description string      `yaml:"description"`
	Fields      []FieldDecl `yaml:"fields"`
}

// FieldDecl is a config field as written in a file. Attributes left out of
// a declaration that overrides an inherited field keep the inherited value;
// Default distinguishes "absent" from an explicit null.
type FieldDecl struct {
	Name        string    `yaml:"name"`
	Type        FieldType `yaml:"type,omitempty"`
	Tier        FieldTier `yaml:"tier,omitempty"`
	Default     yaml.Node `yaml:"default,omitempty"`
	Allowed     []any     `yaml:"allowed,omitempty"`
	Min         *float64  `yaml:"min,omitempty"`
	Max         *float64  `yaml:"max,omitempty"`
	Pattern     string    `yaml:"pattern,omitempty"`
	Derive      string    `yaml:"derive,omitempty"`
	Description string    `yaml:"description,omitempty"`
}

// hasDefault reports whether the declaration wrote a default key.
func (d *FieldDecl) hasDefault() bool { return d.Default.Kind != 0 }

// defaultValue decodes the declared default into plain Go values.
func (d *FieldDecl) defaultValue() (any, error) {
	if !d.hasDefault() {
		return nil, nil
	}
	var v any
	if err := d.Default.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeYAML(v), nil
}

// normalizeYAML turns yaml.v3's decoded values into JSON-shaped values:
// map[string]any for mappings, []any for sequences, int/float64/bool/string.
func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalizeYAML(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = normalizeYAML(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normalizeYAML(x)
		}
		return out
	case int64:
		return int(t)
	case uint64:
		return int(t)
	default:
		return v
	}
}

// decodeStrict decodes one YAML document into out with unknown keys
// rejected. Errors are rewritten to name the file and, for unknown keys, the
// kind of block they appeared in.
func decodeStrict(file string, data []byte, out any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.EOF) {
			return &FileError{File: file, Message: "file is empty"}
		}
		return yamlError(file, err)
	}
	// A second document in the same file is almost certainly a mistake.
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return &FileError{File: file, Message: "file holds more than one YAML document"}
	}
	return nil
}

var (
	reYAMLUnknown = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)
	reYAMLLine    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
)

// typeBlock names the block a Go decode type stands for, for messages.
var typeBlock = map[string]string{
	"catalog.StepFile":        "step",
	"catalog.FieldSetFile":    "field set",
	"catalog.FieldDecl":       "config field",
	"catalog.InputPort":       "input port",
	"catalog.OutputPort":      "output port",
	"catalog.Compute":         "compute",
	"catalog.Contract":        "contract",
	"catalog.EnvVar":          "env var",
	"catalog.JobArgument":     "job argument",
	"catalog.Patterns":        "patterns",
	"catalog.VariantDecl":     "variant",
	"catalog.InputPortPatch":  "variant input patch",
	"catalog.OutputPortPatch": "variant output patch",
}

// yamlError converts a yaml.v3 error into a *FileError (or LoadErrors when
// the decoder reported several problems).
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var errs LoadErrors
		for _, msg := range te.Errors {
			errs = append(errs, yamlMessage(file, msg))
		}
		if len(errs) == 1 {
			return errs[0]
		}
		return errs
	}
	return yamlMessage(file, err.Error())
}

func yamlMessage(file, msg string) *FileError {
	if m := reYAMLUnknown.FindStringSubmatch(msg); m != nil {
		block := typeBlock[m[3]]
		if block == "" {
			block = m[3]
		}
		return &FileError{File: file, Line: atoi(m[1]), Field: m[2],
			Message: fmt.Sprintf("unknown key %q in %s (check the spelling; see the format in the catalog package doc)", m[2], block)}
	}
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		return &FileError{File: file, Line: atoi(m[1]), Message: strings.TrimPrefix(m[2], "yaml: ")}
	}
	return &FileError{File: file, Message: strings.TrimPrefix(msg, "yaml: ")}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cursus-go/cursus/internal/lazyre"
)

// StepFile is the decoded form of one *.step.yaml file, before field sets,
// per-verb defaults and validation are applied. See doc.go for the format.
type StepFile struct {
	Step        string                 `yaml:"step" json:"step"`
	Verb        Verb                   `yaml:"verb" json:"verb"`
	Kind        NodeKind               `yaml:"kind" json:"kind"`
	Description string                 `yaml:"description" json:"description"`
	Framework   string                 `yaml:"framework,omitempty" json:"framework,omitempty"`
	ConfigClass string                 `yaml:"config_class,omitempty" json:"config_class,omitempty"`
	Builder     string                 `yaml:"builder,omitempty" json:"builder,omitempty"`
	Aliases     []string               `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Keywords    []string               `yaml:"keywords,omitempty" json:"keywords,omitempty"`
	FieldSets   []string               `yaml:"field_sets,omitempty" json:"field_sets,omitempty"`
	JobTypes    []string               `yaml:"job_types,omitempty" json:"job_types,omitempty"`
	Patterns    Patterns               `yaml:"patterns,omitempty" json:"patterns"`
	Compute     Compute                `yaml:"compute" json:"compute"`
	Contract    Contract               `yaml:"contract,omitempty" json:"contract"`
	Inputs      []InputPort            `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	Outputs     []OutputPort           `yaml:"outputs,omitempty" json:"outputs,omitempty"`
	Fields      []FieldDecl            `yaml:"fields,omitempty" json:"fields,omitempty"`
	Variants    map[string]VariantDecl `yaml:"variants,omitempty" json:"variants,omitempty"`
}

// VariantDecl is a job-type variant as written in a step file.
type VariantDecl struct {
	Description string                     `yaml:"description,omitempty" json:"description,omitempty"`
	Inputs      map[string]InputPortPatch  `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	Outputs     map[string]OutputPortPatch `yaml:"outputs,omitempty" json:"outputs,omitempty"`
	EnvDefaults map[string]string          `yaml:"env_defaults,omitempty" json:"env_defaults,omitempty"`
}

// FieldSetFile is the decoded form of one fieldsets/*.yaml file.
type FieldSetFile struct {
	Name        string      `yaml:"name" json:"name"`
	Extends     string      `yaml:"extends,omitempty" json:"extends,omitempty"`
	Description string      `yaml:"description" json:"description"`
	Fields      []FieldDecl `yaml:"fields" json:"fields"`
}

// FieldDecl is a config field as written in a file. Attributes left out of
// a declaration that overrides an inherited field keep the inherited value;
// Default distinguishes "absent" from an explicit null.
type FieldDecl struct {
	Name        string    `yaml:"name" json:"name"`
	Type        FieldType `yaml:"type,omitempty" json:"type,omitempty"`
	Tier        FieldTier `yaml:"tier,omitempty" json:"tier,omitempty"`
	Default     yaml.Node `yaml:"default,omitempty" json:"-"`
	Allowed     []any     `yaml:"allowed,omitempty" json:"-"`
	Min         *float64  `yaml:"min,omitempty" json:"min,omitempty"`
	Max         *float64  `yaml:"max,omitempty" json:"max,omitempty"`
	Pattern     string    `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	Derive      string    `yaml:"derive,omitempty" json:"derive,omitempty"`
	Description string    `yaml:"description,omitempty" json:"description,omitempty"`
	// Hyperparameter (nil: inherited, or false for a new field) marks a
	// hyperparameter of a Training or Tuning step.
	Hyperparameter *bool `yaml:"hyperparameter,omitempty" json:"hyperparameter,omitempty"`
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

// allowedValues returns the declared allowed values.
func (d *FieldDecl) allowedValues() ([]any, error) {
	return normalizeList(d.Allowed), nil
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
	reYAMLUnknown = lazyre.New(`line (\d+): field (\S+) not found in type (\S+)`)
	reYAMLLine    = lazyre.New(`^(?:yaml: )?line (\d+): (.*)$`)
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
	if m := reYAMLUnknown().FindStringSubmatch(msg); m != nil {
		block := typeBlock[m[3]]
		if block == "" {
			block = m[3]
		}
		return &FileError{File: file, Line: atoi(m[1]), Field: m[2],
			Message: fmt.Sprintf("unknown key %q in %s (check the spelling; see the format in the catalog package doc)", m[2], block)}
	}
	if m := reYAMLLine().FindStringSubmatch(msg); m != nil {
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

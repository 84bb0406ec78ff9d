package author

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/internal/strlist"
)

// ScaffoldSpec describes a new Processing step to scaffold: its name, what
// it does and its ports. RenderStepFile turns it into a step-interface
// file (the author.scaffold_step tool and the author-step workflow write
// it with a script skeleton).
type ScaffoldSpec struct {
	// Step is the PascalCase step type.
	Step string
	// Description says what the step does.
	Description string
	// JobType, when set, is the job type the step is declared for; the
	// step's job_type field defaults to it (else "training").
	JobType string
	// Keywords are search words for the catalog.
	Keywords []string
	// Inputs and Outputs are the ports (at least one each).
	Inputs  []ScaffoldPort
	Outputs []ScaffoldPort
	// Header is a comment written at the top of the file.
	Header string
}

// ScaffoldPort is one port of a scaffolded step.
type ScaffoldPort struct {
	Name string `json:"name"`
	// Type is the dependency (input) or output type; default processing_output.
	Type string `json:"type,omitempty"`
	// Path is the container path; default /opt/ml/processing/input/<name>
	// for an input, /opt/ml/processing/output/<name> for an output.
	Path              string   `json:"path,omitempty"`
	Required          *bool    `json:"required,omitempty"` // inputs: default true
	CompatibleSources []string `json:"compatible_sources,omitempty"`
	Keywords          []string `json:"keywords,omitempty"`
	Aliases           []string `json:"aliases,omitempty"`
	Description       string   `json:"description,omitempty"`
}

// EntryPoint is the script file name of a step: its snake_case name + ".py".
func EntryPoint(step string) string {
	return catalog.CanonicalToSnake(catalog.StepType(step)) + ".py"
}

type stepDoc struct {
	Step        string            `yaml:"step"`
	Verb        string            `yaml:"verb"`
	Kind        string            `yaml:"kind"`
	Description string            `yaml:"description"`
	Framework   string            `yaml:"framework"`
	Keywords    []string          `yaml:"keywords,omitempty"`
	JobTypes    []string          `yaml:"job_types,omitempty"`
	Compute     map[string]string `yaml:"compute"`
	Contract    contractDoc       `yaml:"contract"`
	Inputs      []portDoc         `yaml:"inputs"`
	Outputs     []portDoc         `yaml:"outputs"`
	Fields      []fieldDoc        `yaml:"fields"`
}

type contractDoc struct {
	EntryPoint   string   `yaml:"entry_point"`
	JobArguments []argDoc `yaml:"job_arguments"`
}

type argDoc struct {
	Flag   string `yaml:"flag"`
	Source string `yaml:"source"`
}

type portDoc struct {
	Name              string   `yaml:"name"`
	Type              string   `yaml:"type"`
	Path              string   `yaml:"path"`
	Required          *bool    `yaml:"required,omitempty"`
	CompatibleSources []string `yaml:"compatible_sources,omitempty"`
	Aliases           []string `yaml:"aliases,omitempty"`
	Keywords          []string `yaml:"keywords,omitempty"`
	Description       string   `yaml:"description,omitempty"`
}

type fieldDoc struct {
	Name        string `yaml:"name"`
	Type        string `yaml:"type,omitempty"`
	Tier        string `yaml:"tier,omitempty"`
	Default     string `yaml:"default,omitempty"`
	Pattern     string `yaml:"pattern,omitempty"`
	Description string `yaml:"description,omitempty"`
}

// RenderStepFile renders the step-interface file of a scaffolded
// Processing step: an internal node computed with the sklearn processor,
// whose script takes --job_type and reads and writes exactly the given
// ports. The catalog's loader is the judge of the result
// (catalog.ParseStepFile).
func RenderStepFile(spec ScaffoldSpec) ([]byte, error) {
	if spec.Step == "" || len(spec.Inputs) == 0 || len(spec.Outputs) == 0 {
		return nil, fmt.Errorf("a scaffold needs a step name, an input and an output")
	}
	entry := EntryPoint(spec.Step)
	jt := spec.JobType
	if jt == "" {
		jt = "training"
	}
	desc := strings.TrimSpace(spec.Description)
	if desc == "" {
		desc = "Step " + spec.Step + " (scaffolded; describe what it does)."
	}
	doc := stepDoc{
		Step: spec.Step, Verb: "Processing", Kind: "internal", Description: desc, Framework: "generic",
		Keywords: strlist.Unique(spec.Keywords), Compute: map[string]string{"kind": "sklearn"},
		Contract: contractDoc{EntryPoint: entry, JobArguments: []argDoc{{Flag: "--job_type", Source: "job_type"}}},
		Fields: []fieldDoc{
			{Name: "processing_entry_point", Default: entry},
			{Name: "job_type", Type: "string", Tier: "system", Default: jt, Pattern: "^[a-z][a-z0-9_]*$", Description: "Split this step handles."},
		},
	}
	if spec.JobType != "" {
		doc.JobTypes = []string{spec.JobType}
	}
	seen := map[string]bool{}
	port := func(p ScaffoldPort, input bool) (portDoc, error) {
		if p.Name == "" {
			return portDoc{}, fmt.Errorf("a port has no name")
		}
		if seen[p.Name] {
			return portDoc{}, fmt.Errorf("port %q declared twice", p.Name)
		}
		seen[p.Name] = true
		d := portDoc{Name: p.Name, Type: p.Type, Path: p.Path, Keywords: strlist.Unique(p.Keywords), Description: p.Description}
		if d.Type == "" {
			d.Type = "processing_output"
		}
		if d.Description == "" {
			kind := "Output"
			if input {
				kind = "Input"
			}
			d.Description = fmt.Sprintf("%s %s of %s.", kind, p.Name, spec.Step)
		}
		if input {
			if d.Path == "" {
				d.Path = path.Join("/opt/ml/processing/input", p.Name)
			}
			req := true
			if p.Required != nil {
				req = *p.Required
			}
			d.Required = &req
			d.CompatibleSources = strlist.Unique(p.CompatibleSources)
		} else {
			if d.Path == "" {
				d.Path = path.Join("/opt/ml/processing/output", p.Name)
			}
			d.Aliases = strlist.Unique(p.Aliases)
		}
		return d, nil
	}
	for _, p := range spec.Inputs {
		d, err := port(p, true)
		if err != nil {
			return nil, err
		}
		doc.Inputs = append(doc.Inputs, d)
	}
	for _, p := range spec.Outputs {
		d, err := port(p, false)
		if err != nil {
			return nil, err
		}
		doc.Outputs = append(doc.Outputs, d)
	}
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(spec.Header), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			b.WriteString("# " + l + "\n")
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

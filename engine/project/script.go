package project

import (
	"bytes"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/cursus-go/cursus/engine/catalog"
)

//go:embed templates/*.tmpl
var templates embed.FS

// Script behaviours of a skeleton (ScriptKind).
const (
	KindPassthrough = "passthrough" // copy the first input's tables to the main output, summaries to the others
	KindSplit       = "split"       // combine the data inputs and split train/val/test by job type
	KindTrain       = "train"       // fit a baseline on train/, write the model and val/test predictions
	KindEvaluate    = "evaluate"    // score data with a model input, write predictions and metrics
)

var behaviourText = map[string]string{
	KindPassthrough: "copies the CSV tables of the first input that has any to the first output and writes a summary.json to every other output.",
	KindSplit:       "combines the CSV tables of the data inputs; for job type training it splits the rows into train/, val/ and test/ folders, else writes one folder named after the job type.",
	KindTrain:       "fits a baseline model (the mean of the label column) on the train/ split, writes model.json to the model output and val/ and test/ predictions to the evaluation output.",
	KindEvaluate:    "scores the data input with the baseline model of the model input (model.json, or inside model.tar.gz) and writes predictions.csv and metrics.json.",
}

type portView struct {
	Name, Path string
	Required   bool
}

type envView struct {
	Name, Default string
	Required      bool
}

type argView struct{ Flag, Source string }

type scriptView struct {
	Type, EntryPoint, Description, Hook, Kind, Behaviour string
	// Toolkit: a training job's script, which the training toolkit starts
	// with every hyperparameter as a --<name> <value> argument.
	Toolkit                                         bool
	Inputs, Outputs                                 []portView
	Env                                             []envView
	Args                                            []argView
	RequiredInputs                                  []string
	DataInput, ModelInput, HyperInput               string
	ExtraDataInputs                                 []string
	MainOutput, ModelOutput, EvalOutput             string
	OtherOutputs                                    []string
	LabelEnv, IDEnv, TrainRatioEnv, TestValRatioEnv string
}

// scriptTemplate is templates/script.py.tmpl, parsed on first use rather
// than at start: most processes (a server that never runs project.init)
// never render a skeleton.
var scriptTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("script.py.tmpl").Delims("<<", ">>").Funcs(template.FuncMap{"py": pyLiteral}).
		ParseFS(templates, "templates/script.py.tmpl")
})

// pyLiteral renders a Go value as a Python literal: strings quoted, string
// slices as lists, nil as None.
func pyLiteral(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case string:
		return strconv.Quote(t)
	case []string:
		q := make([]string, len(t))
		for i, s := range t {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case bool:
		if t {
			return "True"
		}
		return "False"
	}
	return strconv.Quote(fmt.Sprint(v))
}

// ScriptKind picks the skeleton behaviour of a step: train for Training and
// Tuning steps, evaluate for a processing step with a model input and a data
// input, split for TabularPreprocessing, passthrough otherwise.
func ScriptKind(st *catalog.Step) string {
	switch {
	case st.Info().Training:
		return KindTrain
	case st.Type == "TabularPreprocessing":
		return KindSplit
	}
	model, data := false, false
	for _, in := range st.Inputs {
		if in.ContainerPath == "" {
			continue
		}
		if in.Type == catalog.DepModelArtifacts {
			model = true
		} else if in.Type == catalog.DepProcessingOutput || in.Type == catalog.DepTrainingData {
			data = true
		}
	}
	if model && data && len(st.Outputs) > 0 {
		return KindEvaluate
	}
	return KindPassthrough
}

// IsSkeleton reports whether a script is still a skeleton ScriptSkeleton
// wrote (catalog.IsSkeletonScript: it keeps the skeleton's header and the
// TODO line of its hook).
func IsSkeleton(script []byte) bool { return catalog.IsSkeletonScript(script) }

// ScriptSkeleton writes a Python skeleton for the step's entry point that
// matches its contract exactly: it names every declared input and output
// container path and no other, reads every declared environment variable
// and no other, and parses every declared job argument and no other. The
// behaviour (ScriptKind) makes a pipeline of skeletons runnable end to end
// on small CSV data with the standard library only.
func ScriptSkeleton(st *catalog.Step) ([]byte, error) {
	if st.Contract.EntryPoint == "" {
		return nil, fmt.Errorf("step %s declares no entry point", st.Type)
	}
	v := scriptView{Type: string(st.Type), EntryPoint: st.Contract.EntryPoint, Kind: ScriptKind(st),
		Description: firstSentence(st.Description), Hook: "transform", RequiredInputs: []string{},
		Toolkit: st.Info().Training}
	v.Behaviour = behaviourText[v.Kind]
	for _, in := range st.Inputs {
		if in.ContainerPath == "" {
			continue
		}
		v.Inputs = append(v.Inputs, portView{in.LogicalName, in.ContainerPath, in.Required})
		if in.Required {
			v.RequiredInputs = append(v.RequiredInputs, in.LogicalName)
		}
		switch {
		case in.Type == catalog.DepModelArtifacts && v.ModelInput == "":
			v.ModelInput = in.LogicalName
		case in.Type == catalog.DepHyperparameters && v.HyperInput == "":
			v.HyperInput = in.LogicalName
		case (in.Type == catalog.DepProcessingOutput || in.Type == catalog.DepTrainingData) && v.DataInput == "" && in.Required:
			v.DataInput = in.LogicalName
		}
	}
	for _, in := range st.Inputs {
		if in.ContainerPath != "" && in.LogicalName != v.DataInput && in.Type == catalog.DepProcessingOutput && !in.Required && v.Kind == KindSplit {
			// Optional data inputs of the same shape are appended (DATA_SECONDARY).
			if strings.Contains(strings.ToUpper(in.LogicalName), "DATA") {
				v.ExtraDataInputs = append(v.ExtraDataInputs, in.LogicalName)
			}
		}
	}
	if v.DataInput == "" {
		for _, in := range v.Inputs {
			if in.Name != v.ModelInput && in.Name != v.HyperInput {
				v.DataInput = in.Name
				break
			}
		}
	}
	for _, o := range st.Outputs {
		if o.ContainerPath == "" {
			continue
		}
		v.Outputs = append(v.Outputs, portView{Name: o.LogicalName, Path: o.ContainerPath})
		switch {
		case o.Type == catalog.DepModelArtifacts && v.ModelOutput == "":
			v.ModelOutput = o.LogicalName
		case v.Kind == KindTrain && v.EvalOutput == "" && o.Type != catalog.DepModelArtifacts:
			v.EvalOutput = o.LogicalName
		case v.MainOutput == "":
			v.MainOutput = o.LogicalName
		default:
			v.OtherOutputs = append(v.OtherOutputs, o.LogicalName)
		}
	}
	if v.MainOutput != "" && v.Kind == KindTrain {
		v.OtherOutputs = append(v.OtherOutputs, v.MainOutput)
		v.MainOutput = ""
	}
	// Fall back to the pass-through when the chosen behaviour lacks ports.
	switch v.Kind {
	case KindSplit, KindEvaluate:
		if v.DataInput == "" || v.MainOutput == "" || (v.Kind == KindEvaluate && v.ModelInput == "") {
			v.Kind = KindPassthrough
		}
	case KindTrain:
		if v.DataInput == "" || v.ModelOutput == "" {
			v.Kind = KindPassthrough
		}
	}
	if v.Kind == KindPassthrough && v.MainOutput == "" && len(v.Outputs) > 0 {
		v.MainOutput = v.Outputs[0].Name
		v.OtherOutputs = nil
		for _, o := range v.Outputs[1:] {
			v.OtherOutputs = append(v.OtherOutputs, o.Name)
		}
	}
	v.Behaviour = behaviourText[v.Kind]
	for _, e := range st.Contract.Env {
		v.Env = append(v.Env, envView{Name: e.Name, Default: e.Default, Required: e.Required})
		switch e.Name {
		case "LABEL_FIELD":
			v.LabelEnv = e.Name
		case "ID_FIELD":
			v.IDEnv = e.Name
		case "TRAIN_RATIO":
			v.TrainRatioEnv = e.Name
		case "TEST_VAL_RATIO":
			v.TestValRatioEnv = e.Name
		}
	}
	for _, a := range st.Contract.JobArguments {
		v.Args = append(v.Args, argView{a.Flag, a.Source})
	}
	tpl, err := scriptTemplate()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tpl.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

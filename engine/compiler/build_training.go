package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// legacyHyperparameters is the free-form hyperparameters object a step may
// still declare as a field until its hyperparameters are typed.
const legacyHyperparameters = "hyperparameters"

const (
	defaultTrainingRuntime = 86400   // the SDK's default MaxRuntimeInSeconds
	maxTrainingRuntime     = 2419200 // the API's limit (28 days)
)

// The code of a training job under network isolation: the SDK's
// estimators give it the channel "code" (their code_channel_name), which
// holds the uploaded sourcedir.tar.gz, and point sagemaker_submit_directory
// at the file the channel puts in the container
// (CONTAINER_CODE_CHANNEL_SOURCEDIR_PATH); the training toolkit unpacks a
// local archive as it would download an S3 one.
const (
	codeChannel        = "code"
	codeChannelTarball = "/opt/ml/input/data/code/sourcedir.tar.gz"
)

// trainingJob is what a training step and a tuning step share.
type trainingJob struct {
	spec      AlgorithmSpecification
	output    OutputDataConfig
	resources ResourceConfig
	stopping  StoppingCondition
	role      string
	channels  []Channel
	hyper     map[string]any // framework keys + user hyperparameters, JSON-encoded (or a parameter reference)
	env       map[string]any
	vpc       *VpcConfig
	isolation *bool
}

// buildTraining builds a CreateTrainingJob-shaped step:
// framework script mode, the code packed into sourcedir.tar.gz, channels
// from the bound inputs (an input with declared channels fans out into
// <uri>/<channel>/), model artefacts under <prefix>/<snake step type>.
func (e *buildEnv) buildTraining(p *nodePlan) (*TrainingArguments, error) {
	j, err := e.trainingJob(p)
	if err != nil {
		return nil, err
	}
	return &TrainingArguments{
		AlgorithmSpecification: j.spec,
		OutputDataConfig:       j.output,
		StoppingCondition:      j.stopping,
		ResourceConfig:         j.resources,
		RoleArn:                j.role,
		InputDataConfig:        j.channels,
		HyperParameters:        j.hyper,
		Environment:            nonEmpty(j.env),
		VpcConfig:              j.vpc,
		EnableNetworkIsolation: j.isolation,
	}, nil
}

func (e *buildEnv) trainingJob(p *nodePlan) (*trainingJob, error) {
	c, err := e.computeOf(p, "ml.m5.4xlarge", 30)
	if err != nil {
		return nil, err
	}
	region, err := e.awsRegion(p)
	if err != nil {
		return nil, err
	}
	runtime, _, err := e.maxRuntime(p, defaultTrainingRuntime, maxTrainingRuntime)
	if err != nil {
		return nil, err
	}
	kms, err := e.kmsKey(p)
	if err != nil {
		return nil, err
	}
	volumeKMS, err := e.volumeKMS(p, kms, c.itype)
	if err != nil {
		return nil, err
	}
	j := &trainingJob{
		spec:      AlgorithmSpecification{TrainingInputMode: "File", TrainingImage: c.image},
		output:    OutputDataConfig{S3OutputPath: e.trainingOutputPath(p), KmsKeyId: kms},
		resources: ResourceConfig{VolumeSizeInGB: c.volume, InstanceCount: c.count, InstanceType: c.instanceType, VolumeKmsKeyId: volumeKMS},
		stopping:  StoppingCondition{MaxRuntimeInSeconds: runtime},
		role:      c.role,
	}

	seen := map[string]string{}
	addChannel := func(name string, uri any, port string) error {
		if !isNameToken(name, ".-_") {
			return fmt.Errorf("input %s: channel name %q is not a legal channel name", port, name)
		}
		if other, dup := seen[name]; dup {
			return fmt.Errorf("inputs %s and %s both feed training channel %q", other, port, name)
		}
		seen[name] = port
		j.channels = append(j.channels, Channel{
			DataSource:  DataSource{S3DataSource: S3DataSource{S3DataType: "S3Prefix", S3Uri: uri, S3DataDistributionType: "FullyReplicated"}},
			ChannelName: name,
		})
		return nil
	}
	for i := range p.Step.Inputs {
		port := &p.Step.Inputs[i]
		b, err := e.input(p, *port)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		chans := port.TrainingChannels()
		if len(chans) > 1 || len(port.Channels) > 0 {
			// fan-out: <uri>/<channel>/ per channel
			for _, ch := range chans {
				if err := addChannel(ch, JoinOn("/", b.Value, ch+"/"), port.LogicalName); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := addChannel(chans[0], b.Value, port.LogicalName); err != nil {
			return nil, err
		}
	}
	if len(j.channels) == 0 {
		return nil, fmt.Errorf("no training channels: none of the inputs of %s is bound", p.Step.Type)
	}

	entry, entryField, err := p.entryPoint()
	if err != nil {
		return nil, err
	}
	if entry == "" {
		return nil, &fieldError{entryField, fmt.Sprintf("step type %s has no training script: set config field %s", p.Step.Type, entryField)}
	}
	dir, dirSet, err := e.sourceDir(p)
	if err != nil {
		return nil, err
	}
	useDir := dirSet || p.Step.Contract.SourceDir
	code, program, err := e.sourceTarball(p, dir, entry, useDir)
	if err != nil {
		return nil, err
	}
	if j.vpc, j.isolation, err = e.network(p); err != nil {
		return nil, err
	}
	submit := code
	if j.isolation != nil && *j.isolation {
		// An isolated container cannot fetch its code from S3: the code
		// comes in through a channel, as the SDK's estimators do it.
		if err := addChannel(codeChannel, code, "(the job's code)"); err != nil {
			return nil, fmt.Errorf("%w: under network isolation the job's code comes in through channel %s", err, codeChannel)
		}
		submit = codeChannelTarball
	}
	j.hyper = map[string]any{
		"sagemaker_program":             strconv.Quote(program),
		"sagemaker_submit_directory":    strconv.Quote(submit),
		"sagemaker_container_log_level": "20",
		"sagemaker_region":              strconv.Quote(region),
	}
	fieldOf := map[string]string{} // hyperparameter -> the config field it came from
	addHyper := func(name, field string, v any) error {
		if _, reserved := j.hyper[name]; reserved || strings.HasPrefix(name, catalog.ReservedHyperparameterPrefix) {
			return &fieldError{field, fmt.Sprintf("hyperparameter %s is set by the compiler", name)}
		}
		fieldOf[name] = field
		// A parameter is passed as text, not JSON-encoded (the SDK's
		// to_string()); the container's JSON decoding falls back to the text.
		if ref, isRef, err := e.textRef(field, v); isRef {
			if err != nil {
				return err
			}
			j.hyper[name] = ref
			return nil
		}
		if at, ref, found := findRef(field, v); found {
			return refusedRef(at, ref)
		}
		j.hyper[name] = jsonEncodeValue(v)
		return nil
	}
	// Typed hyperparameter fields: every one with a value (the config's or
	// the default), under the field's name.
	for _, f := range p.Step.Hyperparameters() {
		v, ok := p.Values.lookup(f.Name)
		if !ok {
			continue
		}
		if err := addHyper(f.Name, f.Name, v); err != nil {
			return nil, err
		}
	}
	// A step that still declares the free-form hyperparameters object
	// passes its keys through.
	if _, free := p.Step.Field(legacyHyperparameters); free {
		hp, err := p.Values.objectOrRefs(legacyHyperparameters)
		if err != nil {
			return nil, err
		}
		for _, k := range mapkeys.Sorted(hp) {
			if strings.HasPrefix(k, "__") { // serialisation markers such as __model_type__
				continue
			}
			field := legacyHyperparameters + "." + k
			if prev, dup := fieldOf[k]; dup {
				return nil, &fieldError{field, fmt.Sprintf("hyperparameter %s is also set by field %s", k, prev)}
			}
			if err := addHyper(k, field, hp[k]); err != nil {
				return nil, err
			}
		}
	}
	if len(j.hyper) > 100 {
		return nil, &fieldError{legacyHyperparameters, fmt.Sprintf("%d hyperparameters; SageMaker allows 100", len(j.hyper))}
	}
	for k, x := range j.hyper {
		if v, literal := x.(string); literal && len(v) > 2500 {
			field := fieldOf[k]
			if field == "" {
				field = k
			}
			return nil, &fieldError{field, fmt.Sprintf("hyperparameter %s is %d characters long; SageMaker allows 2500", k, len(v))}
		}
	}
	if j.env, err = e.environment(p); err != nil {
		return nil, err
	}
	if err := checkEnv(p, j.env, 512); err != nil {
		return nil, err
	}
	return j, nil
}

func nonEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// buildTuning builds a CreateHyperParameterTuningJob-shaped step: the
// training job of the step, repeated over the config's search space
// (defaults: Bayesian strategy, Maximize, 20 jobs, 1 in parallel,
// early stopping off, each overridable by config).
func (e *buildEnv) buildTuning(p *nodePlan) (*TuningArguments, error) {
	j, err := e.trainingJob(p)
	if err != nil {
		return nil, err
	}
	metric, err := p.Values.str("objective_metric_name", "")
	if err != nil {
		return nil, err
	}
	if metric == "" {
		return nil, &fieldError{"objective_metric_name", "a tuning step needs objective_metric_name"}
	}
	objType, err := e.enumExpr(p, "objective_type", "Maximize", "Maximize", "Minimize")
	if err != nil {
		return nil, err
	}
	strategy, err := e.enumExpr(p, "tuning_strategy", "Bayesian", "Bayesian", "Random", "Hyperband", "Grid")
	if err != nil {
		return nil, err
	}
	maxJobs, err := e.intExpr(p, "max_jobs", 20, 1, 0)
	if err != nil {
		return nil, err
	}
	maxPar, err := e.intExpr(p, "max_parallel_jobs", 1, 1, 0)
	if err != nil {
		return nil, err
	}
	early, err := e.enumExpr(p, "early_stopping_type", "Off", "Off", "Auto")
	if err != nil {
		return nil, err
	}
	ranges, err := parameterRanges(p.Values)
	if err != nil {
		return nil, err
	}
	if err := checkTuned(p.Step, ranges); err != nil {
		return nil, err
	}
	metrics, err := metricDefinitions(p.Values)
	if err != nil {
		return nil, err
	}
	spec := j.spec
	spec.MetricDefinitions = metrics
	found := false
	for _, m := range metrics {
		found = found || m.Name == metric
	}
	if !found {
		return nil, &fieldError{"metric_definitions", fmt.Sprintf("the objective metric %s has no metric definition (Name, Regex): a framework image needs one to find it in the log", metric)}
	}
	// tuned hyperparameters must not also be static
	static := map[string]any{}
	for k, v := range j.hyper {
		static[k] = v
	}
	for _, r := range ranges.ContinuousParameterRanges {
		delete(static, r.Name)
	}
	for _, r := range ranges.IntegerParameterRanges {
		delete(static, r.Name)
	}
	for _, r := range ranges.CategoricalParameterRanges {
		delete(static, r.Name)
	}
	return &TuningArguments{
		HyperParameterTuningJobConfig: TuningJobConfig{
			Strategy:                         strategy,
			HyperParameterTuningJobObjective: TuningObjective{Type: objType, MetricName: metric},
			ResourceLimits:                   ResourceLimits{MaxNumberOfTrainingJobs: maxJobs, MaxParallelTrainingJobs: maxPar},
			ParameterRanges:                  ranges,
			TrainingJobEarlyStoppingType:     early,
		},
		TrainingJobDefinition: TrainingJobDefinition{
			AlgorithmSpecification: spec,
			RoleArn:                j.role,
			OutputDataConfig:       j.output,
			ResourceConfig:         j.resources,
			StoppingCondition:      j.stopping,
			StaticHyperParameters:  static,
			InputDataConfig:        j.channels,
			Environment:            nonEmpty(j.env),
			VpcConfig:              j.vpc,
			EnableNetworkIsolation: j.isolation,
		},
	}, nil
}

// checkTuned checks that every range of the search space names a
// hyperparameter field of the step (any name when the step still declares
// the free-form hyperparameters object).
func checkTuned(st *catalog.Step, r ParameterRanges) error {
	if _, free := st.Field(legacyHyperparameters); free {
		return nil
	}
	known := map[string]bool{}
	var names []string
	for _, f := range st.Hyperparameters() {
		known[f.Name] = true
		names = append(names, f.Name)
	}
	check := func(kind, name string) error {
		if known[name] {
			return nil
		}
		msg := fmt.Sprintf("%s is not a hyperparameter of %s", name, st.Type)
		if len(names) == 0 {
			msg += " (it declares none)"
		} else {
			msg += fmt.Sprintf(" (its hyperparameters: %s)", strings.Join(names, ", "))
		}
		return &fieldError{"search_space." + kind + "." + name, msg}
	}
	for _, x := range r.ContinuousParameterRanges {
		if err := check("continuous", x.Name); err != nil {
			return err
		}
	}
	for _, x := range r.IntegerParameterRanges {
		if err := check("integer", x.Name); err != nil {
			return err
		}
	}
	for _, x := range r.CategoricalParameterRanges {
		if err := check("categorical", x.Name); err != nil {
			return err
		}
	}
	return nil
}

// parameterRanges reads the config's search_space, by kind (continuous,
// integer, categorical), each either a list of objects
// ([{name, min, max, scaling}], [{name, values}]) or an object
// (name -> [min, max], name -> [values]).
func parameterRanges(v Values) (ParameterRanges, error) {
	var r ParameterRanges
	ss, err := v.object("search_space")
	if err != nil {
		return r, err
	}
	if len(ss) == 0 {
		return r, &fieldError{"search_space", "a tuning step needs a search_space with continuous, integer or categorical ranges"}
	}
	for _, kind := range mapkeys.Sorted(ss) {
		if kind != "continuous" && kind != "integer" && kind != "categorical" {
			return r, &fieldError{"search_space." + kind, "want continuous, integer or categorical"}
		}
		type item struct {
			name    string
			vals    []any
			scaling string
		}
		var items []item
		switch g := ss[kind].(type) {
		case map[string]any:
			for _, name := range mapkeys.Sorted(g) {
				list, ok := g[name].([]any)
				if !ok {
					return r, &fieldError{"search_space." + kind + "." + name, "want a list: [min, max] or categorical values"}
				}
				items = append(items, item{name: name, vals: list})
			}
		case []any:
			for i, e := range g {
				m, ok := e.(map[string]any)
				field := fmt.Sprintf("search_space.%s[%d]", kind, i)
				if !ok {
					return r, &fieldError{field, "want an object {name, min, max} or {name, values}"}
				}
				name := FormatValue(m["name"])
				if name == "" {
					return r, &fieldError{field, "missing name"}
				}
				it := item{name: name, scaling: FormatValue(m["scaling"])}
				if kind == "categorical" {
					list, ok := m["values"].([]any)
					if !ok {
						return r, &fieldError{field, "a categorical range needs values: [...]"}
					}
					it.vals = list
				} else {
					if m["min"] == nil || m["max"] == nil {
						return r, &fieldError{field, "a range needs min and max"}
					}
					it.vals = []any{m["min"], m["max"]}
				}
				items = append(items, it)
			}
		default:
			return r, &fieldError{"search_space." + kind, "want a list of ranges or an object name -> range"}
		}
		for _, it := range items {
			field := "search_space." + kind + "." + it.name
			if len(it.vals) == 0 {
				return r, &fieldError{field, "empty range"}
			}
			scaling := it.scaling
			if scaling == "" {
				scaling = "Auto"
			}
			switch scaling {
			case "Auto", "Linear", "Logarithmic", "ReverseLogarithmic":
			default:
				return r, &fieldError{field, fmt.Sprintf("scaling %q: want Auto, Linear, Logarithmic or ReverseLogarithmic", scaling)}
			}
			switch kind {
			case "continuous", "integer":
				if len(it.vals) != 2 {
					return r, &fieldError{field, "want [min, max]"}
				}
				lo, hi := FormatValue(it.vals[0]), FormatValue(it.vals[1])
				l, err1 := strconv.ParseFloat(lo, 64)
				h, err2 := strconv.ParseFloat(hi, 64)
				if err1 != nil || err2 != nil || l > h {
					return r, &fieldError{field, fmt.Sprintf("[%s, %s] is not a numeric range with min <= max", lo, hi)}
				}
				if kind == "continuous" {
					r.ContinuousParameterRanges = append(r.ContinuousParameterRanges, ContinuousRange{Name: it.name, MinValue: lo, MaxValue: hi, ScalingType: scaling})
				} else {
					r.IntegerParameterRanges = append(r.IntegerParameterRanges, IntegerRange{Name: it.name, MinValue: lo, MaxValue: hi, ScalingType: scaling})
				}
			case "categorical":
				vals := make([]string, len(it.vals))
				for i, x := range it.vals {
					vals[i] = FormatValue(x)
				}
				r.CategoricalParameterRanges = append(r.CategoricalParameterRanges, CategoricalRange{Name: it.name, Values: vals})
			}
		}
	}
	return r, nil
}

// metricDefinitions reads metric_definitions: a list of {Name, Regex} (or
// {name, regex}) objects, or an object name -> regex.
func metricDefinitions(v Values) ([]MetricDefinition, error) {
	x, ok := v.lookup("metric_definitions")
	if !ok {
		return nil, nil
	}
	// The objective metric is checked against them when the definition is built.
	if at, ref, found := findRef("metric_definitions", x); found {
		return nil, refusedRef(at, ref)
	}
	var out []MetricDefinition
	switch t := x.(type) {
	case map[string]any:
		for _, k := range mapkeys.Sorted(t) {
			out = append(out, MetricDefinition{Name: k, Regex: FormatValue(t[k])})
		}
	case []any:
		for i, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, &fieldError{"metric_definitions", fmt.Sprintf("item %d: want {Name, Regex}", i)}
			}
			name := FormatValue(firstOf(m, "Name", "name"))
			re := FormatValue(firstOf(m, "Regex", "regex"))
			if name == "" || re == "" {
				return nil, &fieldError{"metric_definitions", fmt.Sprintf("item %d: want {Name, Regex}", i)}
			}
			out = append(out, MetricDefinition{Name: name, Regex: re})
		}
	default:
		return nil, &fieldError{"metric_definitions", "want a list of {Name, Regex} or an object name -> regex"}
	}
	return out, nil
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

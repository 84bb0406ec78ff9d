package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/safefs"
)

// ImageResolver returns the container image URI of a framework version
// (sagemaker.ImageURI by default; tests may pin their own).
type ImageResolver func(framework, version, region, pyVersion, instanceType, scope string) (string, error)

// Binding says where one input of a step gets its data.
type Binding struct {
	Input        string                    `json:"input"`
	Source       string                    `json:"source"`                  // "dependency", "config" or "manual"
	Provider     catalog.NodeName          `json:"provider,omitempty"`      // DAG node of the provider
	ProviderStep catalog.SageMakerStepName `json:"provider_step,omitempty"` // its SageMaker step name
	Output       string                    `json:"output,omitempty"`        // the provider's output port
	Score        float64                   `json:"score,omitempty"`         // compatibility score of the match
	Reference    string                    `json:"reference"`               // the value as text: a Get path, a Join, an S3 URI
	Value        any                       `json:"-"`                       // the value in the definition
}

// Binding sources.
const (
	SourceDependency = "dependency"
	SourceConfig     = "config"
	SourceManual     = "manual"
)

// nodePlan is everything the builder of one step needs.
type nodePlan struct {
	Node       catalog.NodeName
	ConfigKey  catalog.ConfigKey
	Step       *catalog.Step // job-type variant applied
	JobType    string
	Name       catalog.SageMakerStepName
	Values     Values
	Bound      map[string]*Binding         // bound inputs by logical name (dependency or manual)
	Parents    []catalog.SageMakerStepName // SageMaker names of the DAG parents, in edge order
	Confidence float64
	Method     string
	Builder    string
}

// buildEnv is what every builder of one compile shares.
type buildEnv struct {
	prefix       any    // where outputs go: {"Get": "Parameters.EXECUTION_S3_PREFIX"}
	roleOverride string // role given to the compile, wins over config
	region       string // region given to the compile (Input.Region), wins over config
	baseDir      string // relative source directories are resolved against it
	images       ImageResolver
	artifacts    *artifactSet
	fs           *safefs.FS // where local paths are checked
	warnings     []string
	params       map[string]Parameter           // every pipeline parameter by name: the defaults and those the configs declare
	nodes        map[catalog.NodeName]*nodePlan // every node of the compile, by DAG node
	// propertyFiles are the property files gates declare, by the SageMaker
	// name of the step whose output holds them.
	propertyFiles map[catalog.SageMakerStepName][]PropertyFile
	// failSteps are the Fail steps gates emit: step name -> gate node.
	failSteps map[catalog.SageMakerStepName]catalog.NodeName
	// added are the steps the compiler adds for a node's step (a model's
	// repack job), by the SageMaker name of that step; they go before it,
	// in its branch.
	added map[catalog.SageMakerStepName][]Step
	// isFiles and bundles are what this compile found out once about a
	// local path (is it a file?) and about an embedded script (the files
	// it ships with): every step of a type asks the same, and one compile
	// sees one state of the files, as its artifact set does.
	isFiles map[string]bool
	bundles map[string]catalog.StepCode
}

func (e *buildEnv) warnf(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// build builds the definition step of one node.
func (e *buildEnv) build(p *nodePlan) (Step, error) {
	k := kindOfVerb(p.Step.Verb)
	if k == nil || k.build == nil {
		return Step{}, &UnknownStepError{Node: p.Node, StepType: p.Step.Type, Reason: fmt.Sprintf("no builder for SageMaker step type %q", p.Step.Verb)}
	}
	args, err := k.build(e, p)
	if err != nil {
		return Step{}, e.wrap(p, err)
	}
	var fields StepFields
	if w, ok := args.(*withStepFields); ok {
		args, fields = w.Arguments, w.Fields
	}
	st := Step{Name: p.Name, Type: k.info.DefinitionType, Arguments: args, StepFields: fields}
	if len(p.Parents) > 0 {
		st.DependsOn = append([]catalog.SageMakerStepName(nil), p.Parents...)
	}
	cache, err := e.cacheConfig(p, k.cacheable)
	if err != nil {
		return Step{}, e.wrap(p, err)
	}
	st.CacheConfig = cache
	if st.RetryPolicies, err = e.retryPolicies(p, k.settings); err != nil {
		return Step{}, e.wrap(p, err)
	}
	tags, err := e.tags(p, k.settings)
	if err != nil {
		return Step{}, e.wrap(p, err)
	}
	setTags(args, tags)
	return st, nil
}

// withStepFields is what the builder of a kind whose steps have keys of
// their own beside Arguments returns (Lambda, Callback, the checks).
type withStepFields struct {
	Arguments any
	Fields    StepFields
}

// wrap turns a builder error into a *StepBuildError (typed errors pass).
func (e *buildEnv) wrap(p *nodePlan, err error) error {
	var (
		ub *UnboundInputError
		sb *StepBuildError
		fe *fieldError
	)
	switch {
	case errors.As(err, &ub), errors.As(err, &sb):
		return err
	case errors.As(err, &fe):
		return &StepBuildError{Node: p.Node, StepName: p.Name, Field: fe.field, Err: err}
	}
	return &StepBuildError{Node: p.Node, StepName: p.Name, Err: err}
}

// cacheConfig returns the step's CacheConfig when its kind is cacheable
// and its config enables caching (SageMaker does not cache CreateModel and
// RegisterModel steps).
func (e *buildEnv) cacheConfig(p *nodePlan, cacheable bool) (*CacheConfig, error) {
	if !cacheable {
		return nil, nil
	}
	on, err := p.Values.boolean("enable_caching", false)
	if err != nil || !on {
		return nil, err
	}
	exp, err := p.Values.str("cache_expire_after", "P30D")
	if err != nil {
		return nil, err
	}
	return &CacheConfig{Enabled: true, ExpireAfter: exp}, nil
}

// --- values every builder reads ---

// awsRegion returns the AWS region a node's images are resolved in: the
// compile's region (Input.Region) when given, else the node's config:
// aws_region, else its region (an AWS region name, or a code NA, EU, FE
// that catalog.AWSRegion maps). Every image the step runs comes from it.
func (e *buildEnv) awsRegion(p *nodePlan) (string, error) {
	if e.region != "" {
		return e.region, nil
	}
	return p.Values.awsRegion()
}

// awsRegion is the AWS region of a config's values: aws_region, else
// region mapped by catalog.AWSRegion.
func (v Values) awsRegion() (string, error) {
	if r, err := v.str("aws_region", ""); err != nil || r != "" {
		return r, err
	}
	code, err := v.str("region", "")
	if err != nil {
		return "", err
	}
	if r, ok := catalog.AWSRegion(code); ok {
		return r, nil
	}
	if code == "" {
		return "", &fieldError{"region", "no region: set region (an AWS region such as us-west-2, or NA, EU or FE)"}
	}
	return "", &fieldError{"region", fmt.Sprintf("unknown region %q: want an AWS region such as us-west-2, or NA, EU or FE", code)}
}

var roleARNRE = lazyre.New(`^arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$`)

// role returns the execution role: the compile's override, else config role.
func (e *buildEnv) role(p *nodePlan) (string, error) {
	r := e.roleOverride
	if r == "" {
		var err error
		if r, err = p.Values.str("role", ""); err != nil {
			return "", err
		}
	}
	if r == "" {
		return "", &fieldError{"role", "no execution role: set config field role or pass a role"}
	}
	if !roleARNRE().MatchString(r) {
		return "", &fieldError{"role", fmt.Sprintf("role %q is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)", r)}
	}
	return r, nil
}

// Framework defaults used when neither the config nor the step file gives
// a version.
var defaultFrameworkVersion = map[string]string{
	"sklearn": "1.2-1", "xgboost": "1.7-1", "pytorch": "2.1.0", "lightgbm": "2.1.0", "lightgbmmt": "2.1.0",
}

// errNoImage is the cause of an image error that is not a failed lookup:
// the step names no framework to look an image up for.
var errNoImage = errors.New("no framework image")

// imageLookupError is a step's image that cannot be found; it unwraps to
// the lookup's *sagemaker.ImageError (or errNoImage).
type imageLookupError struct {
	msg   string
	cause error
}

func (e *imageLookupError) Error() string { return e.msg }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *imageLookupError) Unwrap() error { return e.cause }

// imageError is the *StepBuildError of a step whose image cannot be found.
func (p *nodePlan) imageError(field, msg string, cause error) error {
	return &StepBuildError{Node: p.Node, StepName: p.Name, Field: field, Err: &imageLookupError{msg, cause}}
}

// imageScope returns the image scope of a step: the step file's, else
// its verb's (catalog.VerbInfo.Defaults), else training.
func imageScope(p *nodePlan) string {
	if s := p.Step.Compute.ImageScope; s != "" {
		return s
	}
	if s := p.Step.Info().Defaults.ImageScope; s != "" {
		return s
	}
	return sagemaker.ScopeTraining
}

// framework returns the framework of a step's image (lower case; "" or
// "none" when it has none) and its version: the step file's framework,
// unless its framework field is set, and the version field the step file
// names, else its default. Only the fields the step file names are read:
// the base field framework_version (2.1.0) means nothing to a scikit-learn
// processor.
func (p *nodePlan) framework() (string, string, error) {
	c := p.Step.Compute
	fw := c.Framework
	if c.FrameworkField != "" {
		v, err := p.Values.str(c.FrameworkField, "")
		if err != nil {
			return "", "", err
		}
		if v != "" {
			fw = v
		}
	}
	fw = strings.ToLower(fw)
	version, err := p.Values.str(c.FrameworkVersionField, "")
	if err != nil {
		return "", "", err
	}
	if version == "" {
		version = firstNonEmpty(c.FrameworkVersionDefault, defaultFrameworkVersion[fw])
	}
	return fw, version, nil
}

// image returns the container image of a step: the config's image URI
// field when set (a literal or a parameter reference), else the framework
// image for the config's version in the config's region (SageMaker pulls
// no image across regions).
func (e *buildEnv) image(p *nodePlan, instanceType string) (any, error) {
	c := p.Step.Compute
	imgField := firstNonEmpty(c.ImageURIField, "image_uri")
	if v, literal, err := e.strExpr(p, imgField, ""); err != nil {
		return "", err
	} else if !literal || v != "" {
		return v, nil
	}
	fw, version, err := p.framework()
	if err != nil {
		return "", err
	}
	if fw == "" || fw == "none" {
		return "", p.imageError(imgField, fmt.Sprintf("step type %s has no framework image: set config field %s", p.Step.Type, imgField), errNoImage)
	}
	verField, pyField := c.FrameworkVersionField, c.PyVersionField
	py, err := p.Values.str(pyField, "")
	if err != nil {
		return "", err
	}
	region, err := e.awsRegion(p)
	if err != nil {
		return "", err
	}
	uri, err := e.images(fw, version, region, py, instanceType, imageScope(p))
	if err != nil {
		var ie *sagemaker.ImageError
		field := ""
		if errors.As(err, &ie) {
			switch ie.Field {
			case "version":
				field = verField
			case "py_version":
				field = pyField
			case "instance_type":
				field = p.instanceTypeField()
			case "region":
				field = "region"
			case "framework":
				field = c.FrameworkField
			}
		}
		return "", p.imageError(field, fmt.Sprintf("no %s image: %v", fw, err), err)
	}
	return uri, nil
}

// imageAndRole returns what every step with a container of its own runs
// as: the image for instance type itype (see image) and the execution role.
func (e *buildEnv) imageAndRole(p *nodePlan, itype string) (image any, role string, err error) {
	if image, err = e.image(p, itype); err != nil {
		return nil, "", err
	}
	if role, err = e.role(p); err != nil {
		return nil, "", err
	}
	return image, role, nil
}

// jobCompute is what a processing or training job runs on, as the
// definition takes each value (a literal or a parameter reference).
type jobCompute struct {
	instanceType any
	itype        string // the literal instance type (a parameter's default)
	count        any
	volume       any
	image        any
	role         string
}

// computeOf reads the compute of a processing or training job, in this
// order: the instance type (defType when unset), the instance count (1
// when unset), the volume size (defVolumeGB when unset), then the image
// for that instance type and the execution role.
func (e *buildEnv) computeOf(p *nodePlan, defType string, defVolumeGB int) (*jobCompute, error) {
	itype, itypeVal, err := e.instanceType(p, defType)
	if err != nil {
		return nil, err
	}
	count, err := e.instanceCount(p, 1)
	if err != nil {
		return nil, err
	}
	volume, err := e.volumeSize(p, defVolumeGB)
	if err != nil {
		return nil, err
	}
	image, role, err := e.imageAndRole(p, itype)
	if err != nil {
		return nil, err
	}
	return &jobCompute{instanceType: itypeVal, itype: itype, count: count, volume: volume, image: image, role: role}, nil
}

// instanceTypeField names the field the step's instance type comes from.
func (p *nodePlan) instanceTypeField() string {
	c := p.Step.Compute
	if c.InstanceTypeField != "" {
		return c.InstanceTypeField
	}
	if c.UseLargeInstanceField != "" {
		if large, _ := p.Values.boolean(c.UseLargeInstanceField, false); large {
			return c.LargeInstanceTypeField
		}
	}
	return c.SmallInstanceTypeField
}

// instanceType returns the instance type of a step: the step's fixed
// instance-type field, or the large or small one as its use-large flag
// says, else def.
func (p *nodePlan) instanceType(def string) (string, error) {
	c := p.Step.Compute
	if c.InstanceTypeField == "" && c.UseLargeInstanceField != "" {
		if _, err := p.Values.boolean(c.UseLargeInstanceField, false); err != nil {
			return "", err
		}
	}
	s, err := p.Values.strOrRef(p.instanceTypeField(), "")
	if err != nil || s != "" {
		return s, err
	}
	return def, nil
}

// instanceCount returns the step's instance count: a literal of at least
// 1, def when unset, or an Integer parameter.
func (e *buildEnv) instanceCount(p *nodePlan, def int) (any, error) {
	return e.intExpr(p, p.Step.Compute.InstanceCountField, def, 1, 0)
}

// volumeSize returns the step's volume size in GB: a literal in [1,
// 16384], def when unset, or an Integer parameter.
func (e *buildEnv) volumeSize(p *nodePlan, def int) (any, error) {
	return e.intExpr(p, p.Step.Compute.VolumeSizeField, def, 1, 16384)
}

// firstInt reads the first set field of fields, checked against [min, max]
// (max 0 = unbounded).
func (p *nodePlan) firstInt(def, min, max int, fields ...string) (int, error) {
	for _, f := range fields {
		if !p.Values.has(f) {
			continue
		}
		n, err := p.Values.integer(f, def)
		if err != nil {
			return 0, err
		}
		if n < min || (max > 0 && n > max) {
			return 0, &fieldError{f, fmt.Sprintf("%d is out of range [%d, %d]", n, min, max)}
		}
		return n, nil
	}
	return def, nil
}

// maxRuntime returns the step's max runtime field, clamped to limit (a
// larger value is cut to the limit with a warning), or def when unset, or
// an Integer parameter (SageMaker checks its value against the limit).
func (e *buildEnv) maxRuntime(p *nodePlan, def, limit int) (any, bool, error) {
	f := p.Step.Compute.MaxRuntimeField
	if !p.Values.has(f) {
		return def, false, nil
	}
	v, err := e.intExpr(p, f, def, 1, 0)
	if err != nil {
		return 0, false, err
	}
	rt, literal := v.(int)
	if !literal {
		return v, true, nil
	}
	if rt > limit {
		e.warnf("step %s: %s %d exceeds the SageMaker limit %d for this job; using the limit", p.Name, f, rt, limit)
		rt = limit
	}
	return rt, true, nil
}

// environment returns the container environment of a step: each variable
// the contract declares, from its config field, else (optional ones) its
// default; a required variable without a value is an error. The config's
// env map, when there is one, is applied on top. A value may be a pipeline
// parameter reference (textExpr).
func (e *buildEnv) environment(p *nodePlan) (map[string]any, error) {
	env := map[string]any{}
	for _, ev := range p.Step.Contract.Env {
		if ev.Field != "" {
			if x, ok := p.Values.lookup(ev.Field); ok {
				v, err := e.textExpr(ev.Field, x)
				if err != nil {
					return nil, err
				}
				if v != "" || !ev.Required {
					env[ev.Name] = v
					continue
				}
			}
		}
		if ev.Required {
			field := firstNonEmpty(ev.Field, strings.ToLower(ev.Name))
			return nil, &fieldError{field, fmt.Sprintf("required environment variable %s has no value: set config field %s", ev.Name, field)}
		}
		env[ev.Name] = ev.Default
	}
	extra, err := p.Values.objectOrRefs("env")
	if err != nil {
		return nil, err
	}
	for _, k := range mapkeys.Sorted(extra) {
		if env[k], err = e.textExpr("env."+k, extra[k]); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// jobArguments returns the script arguments: each declared (flag, source)
// whose source field is set, then the config's extra script arguments. A
// value may be a pipeline parameter reference (textExpr).
func (e *buildEnv) jobArguments(p *nodePlan) ([]any, error) {
	var args []any
	for _, ja := range p.Step.Contract.JobArguments {
		x, ok := p.Values.lookup(ja.Source)
		if !ok && ja.Source == "job_type" && p.JobType != "" {
			x, ok = p.JobType, true
		}
		if !ok {
			continue
		}
		v, err := e.textExpr(ja.Source, x)
		if err != nil {
			return nil, err
		}
		if v == "" {
			continue
		}
		args = append(args, ja.Flag, v)
	}
	extra, err := e.strListExpr(p, "processing_script_arguments")
	if err != nil {
		return nil, err
	}
	return append(args, extra...), nil
}

// trainingOutputPath is where a training or tuning job writes its model
// artefacts: Join("/", prefix, snake(step type)).
func (e *buildEnv) trainingOutputPath(p *nodePlan) any {
	return JoinOn("/", e.prefix, catalog.CanonicalToSnake(p.Step.Type))
}

// outputDestination is where an output port of a step is written:
// Join("/", prefix, execution id, lower(step type), [job type], logical
// name), the execution id ({"Get": "Execution.PipelineExecutionId"}) as
// the SageMaker SDK puts it in a processing job's default output path, so
// that two executions, running together or one after the other, never
// write over each other's outputs. Config field outputs_per_execution set
// to false leaves the execution id out: one fixed prefix per output, which
// every execution overwrites. A step file's output_path_token sends every
// output to Join("/", prefix, [execution id], token) instead.
//
// The step file's include_job_type_in_path is deliberately not consulted:
// without the job type, two nodes of one
// step type with different job types (DummyDataLoading_training and
// DummyDataLoading_calibration) would write to the same S3 prefix.
func (e *buildEnv) outputDestination(p *nodePlan, logical string) (any, error) {
	vals := []any{e.prefix}
	perExecution, err := p.Values.boolean(outputsPerExecutionField, true)
	if err != nil {
		return nil, err
	}
	loc, err := e.outputLocation(p, logical)
	if err != nil || loc != nil {
		if perExecution && loc != nil {
			return JoinOn("/", loc, ExecutionVar("PipelineExecutionId")), nil
		}
		return loc, err
	}
	if perExecution {
		vals = append(vals, ExecutionVar("PipelineExecutionId"))
	}
	if tok := p.Step.Patterns.OutputPathToken; tok != "" {
		return JoinOn("/", append(vals, tok)...), nil
	}
	vals = append(vals, strings.ToLower(string(p.Step.Type)))
	if p.JobType != "" {
		vals = append(vals, p.JobType)
	}
	return JoinOn("/", append(vals, logical)...), nil
}

// outputsPerExecutionField is the config field that keeps the execution
// id out of output destinations when false (outputDestination).
const outputsPerExecutionField = "outputs_per_execution"

// outputLocationsField is the config field that sends outputs a user keeps
// (predictions, metrics) where the user says: {<output logical name>: an
// s3:// prefix or a pipeline parameter}. The execution id is appended
// unless outputs_per_execution is false.
const outputLocationsField = "output_locations"

// outputLocation is the location output_locations gives an output (nil
// when it gives none). Every key must name an output of the step and every
// value be an s3:// URI or a pipeline parameter: a misspelt output name
// would otherwise be ignored and the predictions land elsewhere.
func (e *buildEnv) outputLocation(p *nodePlan, logical string) (any, error) {
	x, ok := p.Values.lookup(outputLocationsField)
	if !ok {
		return nil, nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, &fieldError{outputLocationsField, fmt.Sprintf("%s must be an object of output name -> s3:// URI, got %T", outputLocationsField, x)}
	}
	names := make([]string, len(p.Step.Outputs))
	for i, o := range p.Step.Outputs {
		names[i] = o.LogicalName
	}
	for _, k := range mapkeys.Sorted(m) {
		if !slices.Contains(names, k) {
			return nil, &fieldError{outputLocationsField + "." + k, fmt.Sprintf("%s.%s: %s has no output %q (its outputs: %s)", outputLocationsField, k, p.Step.Type, k, strings.Join(names, ", "))}
		}
	}
	if _, ok := m[logical]; !ok {
		return nil, nil
	}
	field := outputLocationsField + "." + logical
	v, literal, err := e.strExpr(p, field, "")
	if err != nil {
		return nil, err
	}
	if s, _ := v.(string); literal {
		if !strings.HasPrefix(s, "s3://") || len(s) <= len("s3://") {
			return nil, &fieldError{field, fmt.Sprintf("%s must be an s3:// URI or a pipeline parameter, got %q", field, s)}
		}
		return strings.TrimRight(s, "/"), nil
	}
	return v, nil
}

// input returns the binding of an input port: the dependency or manual
// binding, else the config field the port is sourced from.
//
// A config field skip_<logical name> set to true drops the input (e.g.
// skip_hyperparameters_s3_uri: the script reads its hyperparameters from
// its source directory instead).
func (e *buildEnv) input(p *nodePlan, port catalog.InputPort) (*Binding, error) {
	if skip, err := p.Values.boolean("skip_"+port.LogicalName, false); err != nil {
		return nil, err
	} else if skip {
		if b, ok := p.Bound[port.LogicalName]; ok && b.Source == SourceDependency {
			e.warnf("step %s: input %s is bound to %s.%s but skip_%s is true; the input is not mounted", p.Name, port.LogicalName, b.Provider, b.Output, port.LogicalName)
		}
		return nil, nil
	}
	if port.ConfigSource != "" {
		if b, err := e.configInput(p, port); b != nil || err != nil {
			if b != nil {
				p.Bound[port.LogicalName] = b // for the report
			}
			return b, err
		}
	}
	if b, ok := p.Bound[port.LogicalName]; ok {
		return b, nil
	}
	if port.Required {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: port.LogicalName, Detail: unboundHint(port)}
	}
	return nil, nil
}

func unboundHint(port catalog.InputPort) string {
	if port.ConfigSource != "" {
		return fmt.Sprintf("connect an upstream step that produces it, or set config field %s", port.ConfigSource)
	}
	if len(port.CompatibleSources) > 0 {
		return fmt.Sprintf("add an edge from a step that produces it (compatible sources: %s)", strings.Join(port.CompatibleSources, ", "))
	}
	return "add an edge from a step that produces it"
}

// configInput binds a config-sourced port: an S3 URI is used as is; a
// local path is uploaded (a directory under a prefix, a file as is); a
// relative path the project lacks is looked up in the catalog's code
// (configCode: Package's inference_scripts_dir "inference" becomes the
// embedded inference/<framework>).
//
// An object or list value is written as JSON to <field>.json, uploaded and
// mounted: the way to hand a job a structured request too long for an
// environment variable (SageMaker caps processing values at 256 characters).
func (e *buildEnv) configInput(p *nodePlan, port catalog.InputPort) (*Binding, error) {
	if x, ok := p.Values.lookup(port.ConfigSource); ok {
		switch x.(type) {
		case map[string]any, []any:
			// The file is written and uploaded when the pipeline is
			// built: a reference in it would reach the job as text.
			if at, ref, found := findRef(port.ConfigSource, x); found {
				return nil, refusedRef(at, ref)
			}
			content, err := json.MarshalIndent(x, "", "  ")
			if err != nil {
				return nil, &fieldError{port.ConfigSource, err.Error()}
			}
			uri := e.artifacts.addGenerated(p.Name, "config:"+string(p.ConfigKey)+"."+port.ConfigSource, port.ConfigSource+".json", append(content, '\n'))
			return &Binding{Input: port.LogicalName, Source: SourceConfig, Reference: uri, Value: uri}, nil
		}
	}
	v, literal, err := e.strExpr(p, port.ConfigSource, "")
	if err != nil || v == "" {
		return nil, err
	}
	if !literal {
		return &Binding{Input: port.LogicalName, Source: SourceConfig, Reference: ExprString(v), Value: v}, nil
	}
	src := v.(string)
	b := &Binding{Input: port.LogicalName, Source: SourceConfig, Reference: src, Value: src}
	if strings.HasPrefix(src, "s3://") || strings.HasPrefix(src, "https://") {
		return b, nil
	}
	local, err := e.resolveConfigPath(p, src)
	if err != nil {
		return nil, err
	}
	kind := KindDirectory
	if !strings.HasSuffix(src, "/") && path.Ext(src) != "" {
		kind = KindFile
	}
	if !e.exists(local) && !filepath.IsAbs(src) {
		code, ok, err := e.configCode(p, src, kind == KindDirectory)
		if err != nil {
			return nil, err
		}
		if ok {
			uri, _, err := e.artifacts.addCode(p.Name, kind, code, path.Base(code.Path))
			if err != nil {
				return nil, err
			}
			b.Reference, b.Value = uri, uri
			return b, nil
		}
	}
	uri, a, err := e.artifacts.add(p.Name, kind, local, filepath.Base(local))
	if err != nil {
		return nil, err
	}
	if a.Missing {
		e.warnf("step %s: input %s comes from config field %s = %q, which does not exist locally; upload will refuse until it does", p.Name, port.LogicalName, port.ConfigSource, src)
	}
	b.Reference, b.Value = uri, uri
	return b, nil
}

// resolveConfigPath resolves a local path a config field names: relative
// to the step's source directory when it exists there, else relative to
// the base directory.
func (e *buildEnv) resolveConfigPath(p *nodePlan, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel), nil
	}
	dir, set, err := e.sourceDir(p)
	if err != nil {
		return "", err
	}
	if set {
		cand := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := e.fs.Stat(cand); err == nil {
			return cand, nil
		}
	}
	return e.resolveLocal(p, rel), nil
}

// resolveLocal resolves a local path of a config against the compile's
// base directory.
func (e *buildEnv) resolveLocal(p *nodePlan, rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(e.baseDir, filepath.FromSlash(rel))
}

// sourceDir returns the local source directory of a step's code: the
// contract's source-dir field, else processing_source_dir (processing
// steps) or source_dir, resolved against the base directory ("" = the base
// directory itself).
func (e *buildEnv) sourceDir(p *nodePlan) (dir string, set bool, err error) {
	fields := []string{p.Step.Contract.SourceDirField}
	if p.Step.Verb == catalog.VerbProcessing {
		fields = append(fields, "processing_source_dir")
	}
	fields = append(fields, "source_dir")
	d, f, err := p.Values.firstStr("", fields...)
	if err != nil {
		return "", false, err
	}
	if strings.HasPrefix(d, "s3://") {
		return "", false, &fieldError{f, fmt.Sprintf("source directory %q is in S3; the compiler uploads local code only", d)}
	}
	return e.resolveLocal(p, d), d != "", nil
}

// entryPoint returns the script of a step: the contract's entry-point
// field, else its declared entry point.
func (p *nodePlan) entryPoint() (string, string, error) {
	f := firstNonEmpty(p.Step.Contract.EntryPointField, "entry_point")
	ep, err := p.Values.str(f, "")
	if err != nil {
		return "", f, err
	}
	if ep == "" {
		ep = p.Step.Contract.EntryPoint
	}
	if filepath.IsAbs(ep) || strings.HasPrefix(filepath.Clean(ep), "..") {
		return "", f, &fieldError{f, fmt.Sprintf("entry point %q must be a path relative to the source directory", ep)}
	}
	return filepath.ToSlash(ep), f, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// isEnvKey reports whether k matches [a-zA-Z_][a-zA-Z0-9_]* (a hand loop:
// this runs for every variable of every step).
func isEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// checkEnv enforces SageMaker's limits on a job's environment: at most 100
// entries, keys [a-zA-Z_][a-zA-Z0-9_]* of at most 256 characters, literal
// values of at most maxValue characters (SageMaker checks a parameter's
// value when the pipeline runs).
func checkEnv(p *nodePlan, env map[string]any, maxValue int) error {
	if len(env) > 100 {
		return fmt.Errorf("%d environment variables; SageMaker allows 100", len(env))
	}
	for _, k := range mapkeys.Sorted(env) {
		if len(k) > 256 || !isEnvKey(k) {
			return &fieldError{"env", fmt.Sprintf("environment variable name %q is not allowed ([a-zA-Z_][a-zA-Z0-9_]*, at most 256 characters)", k)}
		}
		if s, literal := env[k].(string); literal && len(s) > maxValue {
			field := "env"
			if ev, ok := p.Step.Contract.EnvVar(k); ok && ev.Field != "" {
				field = ev.Field
			}
			return &fieldError{field, fmt.Sprintf("environment variable %s is %d characters long; a %s job allows %d", k, len(s), p.Step.Verb, maxValue)}
		}
	}
	return nil
}

// network returns the VPC config and network isolation the config asks
// for: subnets and security_group_ids (both or neither; an item may be a
// parameter reference, e.g. the default parameters VPC_SUBNET and
// SECURITY_GROUP_ID) and enable_network_isolation.
func (e *buildEnv) network(p *nodePlan) (*VpcConfig, *bool, error) {
	subnets, err := e.strListExpr(p, "subnets")
	if err != nil {
		return nil, nil, err
	}
	groups, err := e.strListExpr(p, "security_group_ids")
	if err != nil {
		return nil, nil, err
	}
	var vpc *VpcConfig
	switch {
	case len(subnets) > 0 && len(groups) > 0:
		if len(subnets) > 16 || len(groups) > 5 {
			return nil, nil, &fieldError{"subnets", fmt.Sprintf("%d subnets and %d security groups; SageMaker allows 16 and 5", len(subnets), len(groups))}
		}
		vpc = &VpcConfig{SecurityGroupIds: groups, Subnets: subnets}
	case len(subnets) > 0:
		return nil, nil, &fieldError{"security_group_ids", "subnets are set but security_group_ids is not: a VPC config needs both"}
	case len(groups) > 0:
		return nil, nil, &fieldError{"subnets", "security_group_ids are set but subnets is not: a VPC config needs both"}
	}
	var iso *bool
	if p.Values.has("enable_network_isolation") {
		b, err := p.Values.boolean("enable_network_isolation", false)
		if err != nil {
			return nil, nil, err
		}
		iso = &b
	}
	return vpc, iso, nil
}

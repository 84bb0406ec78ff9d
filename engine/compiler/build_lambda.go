package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// This file builds the two kinds whose step hands data to something outside
// SageMaker and takes output parameters back: Lambda (the SDK's LambdaStep:
// Arguments are the function's event, FunctionArn and OutputParameters beside
// them) and Callback (CallbackStep: Arguments are the SQS message's inputs,
// SqsQueueUrl and OutputParameters beside them). Neither starts a job: no
// retry policies, no tags (the SDK's classes take none); both take a
// CacheConfig.

// Patterns of a Lambda step's function, a Callback step's queue and an
// output parameter's name.
var (
	lambdaARN   = lazyre.New(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:[0-9]{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$`)
	sqsQueueURL = lazyre.New(`^https://sqs\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/[0-9]{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
	portName    = lazyre.New(catalog.PortNamePattern)
)

// outputParameterTypes are the OutputType values of an output parameter.
var outputParameterTypes = []string{"String", "Integer", "Boolean", "Float"}

// buildLambda builds a Lambda step invoking the function config field
// function_arn names, with the bound inputs and lambda_inputs as its event.
func (e *buildEnv) buildLambda(p *nodePlan) (*withStepFields, error) {
	arn, err := p.Values.str("function_arn", "")
	if err != nil {
		return nil, err
	}
	if arn == "" {
		return nil, &fieldError{"function_arn", "a Lambda step needs the ARN of an existing function (function_arn); the compiler does not create functions"}
	}
	if !lambdaARN().MatchString(arn) {
		return nil, &fieldError{"function_arn", fmt.Sprintf("%q is not a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>[:<alias or version>])", arn)}
	}
	args, err := e.eventArguments(p, "lambda_inputs")
	if err != nil {
		return nil, err
	}
	outs, err := e.outputParameters(p)
	if err != nil {
		return nil, err
	}
	return &withStepFields{Arguments: args, Fields: StepFields{FunctionArn: arn, OutputParameters: outs}}, nil
}

// buildCallback builds a Callback step sending the bound inputs and
// callback_inputs to the queue config field sqs_queue_url names.
func (e *buildEnv) buildCallback(p *nodePlan) (*withStepFields, error) {
	url, err := p.Values.str("sqs_queue_url", "")
	if err != nil {
		return nil, err
	}
	if url == "" {
		return nil, &fieldError{"sqs_queue_url", "a Callback step needs the URL of the SQS queue its message goes to (sqs_queue_url)"}
	}
	if !sqsQueueURL().MatchString(url) {
		return nil, &fieldError{"sqs_queue_url", fmt.Sprintf("%q is not an SQS queue URL (https://sqs.<region>.amazonaws.com/<account>/<queue>)", url)}
	}
	args, err := e.eventArguments(p, "callback_inputs")
	if err != nil {
		return nil, err
	}
	outs, err := e.outputParameters(p)
	if err != nil {
		return nil, err
	}
	return &withStepFields{Arguments: args, Fields: StepFields{SqsQueueUrl: url, OutputParameters: outs}}, nil
}

// eventArguments are a Lambda or Callback step's Arguments: each bound
// input under its logical name (the upstream output's property), then the
// static keys of config field static (a value that is a parameter reference
// becomes the parameter). A static key may not shadow an input.
func (e *buildEnv) eventArguments(p *nodePlan, static string) (map[string]any, error) {
	args := map[string]any{}
	for _, port := range p.Step.Inputs {
		b, err := e.input(p, port)
		if err != nil {
			return nil, err
		}
		if b != nil {
			args[port.LogicalName] = b.Value
		}
	}
	extra, err := p.Values.objectOrRefs(static)
	if err != nil {
		return nil, err
	}
	for _, k := range mapkeys.Sorted(extra) {
		field := static + "." + k
		if _, taken := args[k]; taken {
			return nil, &fieldError{field, fmt.Sprintf("%s is also the name of a bound input of the step; name the static value otherwise", k)}
		}
		v := extra[k]
		if name, isRef := paramRefName(v); isRef {
			if _, err := e.param(field, v.(string), name); err != nil {
				return nil, err
			}
			args[k] = Param(name)
			continue
		}
		if at, ref, found := findRef(field, v); found {
			return nil, refusedRef(at, ref)
		}
		args[k] = v
	}
	return args, nil
}

// outputParameters are a Lambda or Callback step's OutputParameters: the
// config's output_parameters ({name: type}), in name order, else the step's
// output ports, each typed by its data_type (S3Uri is a String). An output
// another step reads must be one of them: SageMaker sets only the declared
// ones.
func (e *buildEnv) outputParameters(p *nodePlan) ([]OutputParameter, error) {
	declared := map[string]string{}
	if m, err := p.Values.object("output_parameters"); err != nil {
		return nil, err
	} else if m != nil {
		for _, k := range mapkeys.Sorted(m) {
			field := "output_parameters." + k
			if !portName().MatchString(k) {
				return nil, &fieldError{field, fmt.Sprintf("%q is not an output name (^[A-Za-z][A-Za-z0-9_]*$)", k)}
			}
			t, _ := m[k].(string)
			if !slices.Contains(outputParameterTypes, t) {
				return nil, &fieldError{field, fmt.Sprintf("%v is not an output type (%s)", m[k], strings.Join(outputParameterTypes, ", "))}
			}
			declared[k] = t
		}
	} else {
		for _, o := range p.Step.Outputs {
			declared[o.LogicalName] = outputParameterType(o.DataType)
		}
	}
	for _, o := range p.Step.Outputs {
		t, ok := declared[o.LogicalName]
		reader := e.readerOf(p.Node, o.LogicalName)
		switch {
		case !ok && reader != "":
			return nil, &fieldError{"output_parameters", fmt.Sprintf("output %s is read by %s but is not among output_parameters (%s); add %s: %s", o.LogicalName, reader, strings.Join(mapkeys.Sorted(declared), ", "), o.LogicalName, outputParameterType(o.DataType))}
		case ok && reader != "" && t != outputParameterType(o.DataType):
			e.warnf("step %s: output %s is declared %s in output_parameters, but the step file types it %s", p.Name, o.LogicalName, t, o.DataType)
		}
	}
	out := make([]OutputParameter, 0, len(declared))
	for _, k := range mapkeys.Sorted(declared) {
		out = append(out, OutputParameter{OutputName: k, OutputType: declared[k]})
	}
	return out, nil
}

// outputParameterType is the OutputType of a port's data type: an S3 URI
// travels as a String.
func outputParameterType(dataType string) string {
	if slices.Contains(outputParameterTypes, dataType) {
		return dataType
	}
	return "String"
}

// readerOf names a node whose input is bound to output out of node n ("" when
// none is).
func (e *buildEnv) readerOf(n catalog.NodeName, out string) catalog.NodeName {
	for _, name := range mapkeys.Sorted(e.nodes) {
		for _, b := range e.nodes[name].Bound {
			if b.Source == SourceDependency && b.Provider == n && b.Output == out {
				return name
			}
		}
	}
	return ""
}

package compilertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/emr"
	emrtypes "github.com/aws/aws-sdk-go-v2/service/emr/types"
	smithy "github.com/aws/smithy-go"
)

// SchemaGap is one form the SageMaker Python SDK writes that the strict
// schema rejects: the schema keeps the upstream definitions of these step
// types verbatim, and its README lists each under "Still rejected". The
// compiler writes these forms as the SDK does, so CheckSchemas bridges each
// gap (SchemaView) before it validates, and checks the bridged value itself.
type SchemaGap struct {
	StepType string // the step Type, e.g. QualityCheck
	Key      string // the key, a path from the step, e.g. Arguments.StepConfig.Name
	Why      string
}

// SchemaGaps lists every gap SchemaView bridges.
var SchemaGaps = []SchemaGap{
	{"QualityCheck", "FailOnViolation", "the SDK's QualityCheckStep writes FailOnViolation; the schema's QualityCheckStep lacks it"},
	{"ClarifyCheck", "FailOnViolation", "the SDK's ClarifyCheckStep writes FailOnViolation; the schema's ClarifyCheckStep lacks it"},
	{"EMR", "Arguments.StepConfig.Name", "the SDK's EMRStep writes no StepConfig.Name (SageMaker names the EMR step when it runs it); the schema requires one"},
	{"EMR", "Arguments.ClusterConfig", "the SDK's EMRStep writes ClusterConfig for a cluster created for the step; the schema knows ClusterId only"},
	{"EMR", "Arguments.ExecutionRoleArn", "the SDK's EMRStep writes the runtime role beside ClusterId; the schema lacks it"},
	{"EMR", "RetryPolicies", "the SDK's EMRStep is a ConfigurableRetryStep; the schema's EMRStep lacks RetryPolicies"},
}

// SchemaView returns the definition with every SchemaGap bridged, and the
// gaps it bridged ("<step>: <key>"), so that the strict schema checks
// everything else in those steps: FailOnViolation is removed once found a
// boolean or a pipeline expression; an EMR step's StepConfig gets a
// placeholder Name, its ClusterConfig (an object) a placeholder ClusterId
// in its place, its ExecutionRoleArn (a string or expression) and its
// RetryPolicies (each an object) are removed. A value of the wrong kind is
// left in place, for the schema to reject. Steps inside a Condition's
// branches are bridged too.
func SchemaView(definition []byte) ([]byte, []string, error) {
	var def map[string]any
	if err := json.Unmarshal(definition, &def); err != nil {
		return nil, nil, err
	}
	var bridged []string
	var walk func(steps []any)
	walk = func(steps []any) {
		for _, st := range steps {
			s, ok := st.(map[string]any)
			if !ok {
				continue
			}
			name, _ := s["Name"].(string)
			note := func(key string) { bridged = append(bridged, name+": "+key) }
			typ, _ := s["Type"].(string)
			args, _ := s["Arguments"].(map[string]any)
			switch typ {
			case "QualityCheck", "ClarifyCheck":
				if v, ok := s["FailOnViolation"]; ok && (isBool(v) || isExpression(v)) {
					delete(s, "FailOnViolation")
					note("FailOnViolation")
				}
			case "EMR":
				if sc, ok := args["StepConfig"].(map[string]any); ok {
					if _, named := sc["Name"]; !named {
						sc["Name"] = "schema-gap-emr-step-name"
						note("Arguments.StepConfig.Name")
					}
				}
				if cc, ok := args["ClusterConfig"].(map[string]any); ok && cc != nil {
					if _, has := args["ClusterId"]; !has {
						delete(args, "ClusterConfig")
						args["ClusterId"] = "j-SCHEMAGAP"
						note("Arguments.ClusterConfig")
					}
				}
				if v, ok := args["ExecutionRoleArn"]; ok && (isString(v) || isExpression(v)) {
					delete(args, "ExecutionRoleArn")
					note("Arguments.ExecutionRoleArn")
				}
				if rp, ok := s["RetryPolicies"].([]any); ok && allObjects(rp) {
					delete(s, "RetryPolicies")
					note("RetryPolicies")
				}
			case "Condition":
				walk(listOf(args["IfSteps"]))
				walk(listOf(args["ElseSteps"]))
			}
		}
	}
	walk(listOf(def["Steps"]))
	out, err := json.Marshal(def)
	sort.Strings(bridged)
	return out, bridged, err
}

func isBool(v any) bool   { _, ok := v.(bool); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

func isExpression(v any) bool {
	m, ok := v.(map[string]any)
	return ok && isExpressionMap(m)
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func allObjects(l []any) bool {
	for _, x := range l {
		if _, ok := x.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// gapsNote is the log line of the gaps CheckSchemas bridged.
func gapsNote(bridged []string) string {
	return fmt.Sprintf("the strict schema rejects these forms the SDK writes (compilertest.SchemaGaps); bridged before validation: %s", strings.Join(bridged, "; "))
}

// checkEMRArguments checks an EMR step's Arguments against EMR's API, as
// CheckStepArguments checks a SageMaker step's: StepConfig decodes into
// emr's StepConfig (with a placeholder Name, which the definition leaves to
// SageMaker), and the request it belongs to, AddJobFlowSteps on ClusterId
// (with ExecutionRoleArn) or RunJobFlow of ClusterConfig, passes the SDK's
// validation through a stub client. Unknown keys anywhere fail.
func checkEMRArguments(arguments []byte) error {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	for k := range raw {
		switch k {
		case "StepConfig", "ClusterId", "ExecutionRoleArn", "ClusterConfig":
		default:
			return fmt.Errorf("unknown key %s in EMR step arguments (StepConfig, ClusterId, ExecutionRoleArn, ClusterConfig)", k)
		}
	}
	sc, ok := raw["StepConfig"].(map[string]any)
	if !ok {
		return fmt.Errorf("EMR step arguments have no StepConfig object")
	}
	if _, named := sc["Name"]; !named {
		sc["Name"] = "placeholder-step-name"
	}
	var step emrtypes.StepConfig
	if err := decodeInto(sc, &step); err != nil {
		return fmt.Errorf("StepConfig: %w", err)
	}
	stub := &stubTransport{}
	client := emr.New(emr.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: stub, Retryer: aws.NopRetryer{}})
	var err error
	switch {
	case raw["ClusterId"] != nil && raw["ClusterConfig"] != nil:
		return fmt.Errorf("EMR step arguments have both ClusterId and ClusterConfig")
	case raw["ClusterId"] != nil:
		in := &emr.AddJobFlowStepsInput{Steps: []emrtypes.StepConfig{step}}
		if err := decodeInto(map[string]any{"JobFlowId": raw["ClusterId"], "ExecutionRoleArn": raw["ExecutionRoleArn"]}, in); err != nil {
			return err
		}
		_, err = client.AddJobFlowSteps(context.Background(), in)
	case raw["ClusterConfig"] != nil:
		if raw["ExecutionRoleArn"] != nil {
			return fmt.Errorf("ExecutionRoleArn goes with ClusterId, not ClusterConfig")
		}
		cc, ok := raw["ClusterConfig"].(map[string]any)
		if !ok {
			return fmt.Errorf("ClusterConfig is not an object")
		}
		in := &emr.RunJobFlowInput{}
		if err := decodeInto(cc, in); err != nil {
			return fmt.Errorf("ClusterConfig: %w", err)
		}
		in.Name = aws.String("placeholder-cluster-name")
		in.Steps = []emrtypes.StepConfig{step}
		_, err = client.RunJobFlow(context.Background(), in)
	default:
		return fmt.Errorf("EMR step arguments name no cluster (ClusterId or ClusterConfig)")
	}
	var ipe smithy.InvalidParamsError
	if errors.As(err, &ipe) {
		return fmt.Errorf("EMR SDK validation: %w", err)
	}
	if stub.calls != 1 {
		return fmt.Errorf("the EMR SDK did not send the request: %v", err)
	}
	return nil
}

// decodeInto decodes a JSON value into v (a pointer to an SDK type) with its
// pipeline expressions replaced by placeholders of the types the fields
// have and unknown keys refused; nil values are dropped.
func decodeInto(m map[string]any, v any) error {
	for k, x := range m {
		if x == nil {
			delete(m, k)
		}
	}
	b, err := json.Marshal(Substitute(m, reflect.TypeOf(v)))
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

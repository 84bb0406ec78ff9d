package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// EMRArguments is an EMR step's Arguments as the SDK's EMRStep writes them:
// the step of EMR's AddJobFlowSteps request (its Name is set when the
// pipeline runs), then the cluster: a running one (ClusterId, with the
// runtime role ExecutionRoleArn) or one created for the step (ClusterConfig,
// RunJobFlow's request without Name, Steps and AutoTerminationPolicy).
type EMRArguments struct {
	StepConfig       EMRStepConfig  `json:"StepConfig"`
	ClusterId        any            `json:"ClusterId,omitempty"`
	ExecutionRoleArn any            `json:"ExecutionRoleArn,omitempty"`
	ClusterConfig    map[string]any `json:"ClusterConfig,omitempty"`
}

// EMRStepConfig is the step EMR runs.
type EMRStepConfig struct {
	HadoopJarStep HadoopJarStep `json:"HadoopJarStep"`
}

// HadoopJarStep is a JAR and the arguments of its main function.
type HadoopJarStep struct {
	Jar        any           `json:"Jar"`
	Args       []any         `json:"Args,omitempty"`
	MainClass  any           `json:"MainClass,omitempty"`
	Properties []EMRKeyValue `json:"Properties,omitempty"`
}

// EMRKeyValue is one Java property of a Hadoop JAR step.
type EMRKeyValue struct {
	Key   string `json:"Key"`
	Value any    `json:"Value"`
}

var (
	emrClusterID   = lazyre.New(`^j-[A-Z0-9]{1,256}$`)
	emrPlaceholder = lazyre.New(`\{([A-Za-z][A-Za-z0-9_]*)\}`)
)

// buildEMR builds an EMR step: emr_jar with emr_args (each {<input>} replaced
// by that bound input's S3 URI), emr_main_class and emr_step_properties, on
// the cluster emr_cluster_id names or the one cluster_config describes, checked
// as the SDK checks them.
func (e *buildEnv) buildEMR(p *nodePlan) (*EMRArguments, error) {
	inputs := map[string]any{}
	for _, port := range p.Step.Inputs {
		b, err := e.input(p, port)
		if err != nil {
			return nil, err
		}
		if b != nil {
			inputs[port.LogicalName] = b.Value
		}
	}
	jar, _, err := e.strExpr(p, "emr_jar", "command-runner.jar")
	if err != nil {
		return nil, err
	}
	if jar == "" {
		return nil, &fieldError{"emr_jar", "an EMR step runs a JAR: set emr_jar (command-runner.jar runs a command such as spark-submit)"}
	}
	raw, err := e.strListExpr(p, "emr_args")
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	args := make([]any, 0, len(raw))
	for i, a := range raw {
		s, literal := a.(string)
		if !literal {
			args = append(args, a)
			continue
		}
		v, err := substituteInputs(fmt.Sprintf("emr_args[%d]", i), s, inputs, used)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	for _, name := range mapkeys.Sorted(inputs) {
		if !used[name] {
			e.warnf("step %s: input %s is bound but no item of emr_args holds {%s}; the EMR job is not told where it is", p.Name, name, name)
		}
	}
	step := HadoopJarStep{Jar: jar, Args: args}
	if step.MainClass, err = e.optionalExpr(p, "emr_main_class", ""); err != nil {
		return nil, err
	}
	props, err := p.Values.objectOrRefs("emr_step_properties")
	if err != nil {
		return nil, err
	}
	for _, k := range mapkeys.Sorted(props) {
		v, err := e.textExpr("emr_step_properties."+k, props[k])
		if err != nil {
			return nil, err
		}
		step.Properties = append(step.Properties, EMRKeyValue{Key: k, Value: v})
	}
	out := &EMRArguments{StepConfig: EMRStepConfig{HadoopJarStep: step}}

	clusterID, literalID, err := e.strExpr(p, "emr_cluster_id", "")
	if err != nil {
		return nil, err
	}
	clusterConfig, err := p.Values.object("cluster_config")
	if err != nil {
		return nil, err
	}
	role, err := e.optionalExpr(p, "execution_role_arn", "")
	if err != nil {
		return nil, err
	}
	hasID := !literalID || clusterID != ""
	switch {
	case hasID && clusterConfig != nil:
		return nil, &fieldError{"cluster_config", "an EMR step runs on a running cluster (emr_cluster_id) or on one created for it (cluster_config), not both"}
	case !hasID && clusterConfig == nil:
		return nil, &fieldError{"emr_cluster_id", "an EMR step needs a cluster: set emr_cluster_id (a running cluster, j-...) or cluster_config (one created for the step)"}
	case role != nil && !hasID:
		return nil, &fieldError{"execution_role_arn", "execution_role_arn is the runtime role of a step added to a running cluster: it needs emr_cluster_id"}
	case hasID:
		if s, ok := clusterID.(string); ok && !emrClusterID().MatchString(s) {
			return nil, &fieldError{"emr_cluster_id", fmt.Sprintf("%q is not an EMR cluster ID (j-...)", s)}
		}
		out.ClusterId, out.ExecutionRoleArn = clusterID, role
	default:
		if err := checkClusterConfig(clusterConfig); err != nil {
			return nil, err
		}
		out.ClusterConfig = clusterConfig
	}
	return out, nil
}

// checkClusterConfig checks a cluster_config as the SDK's EMRStep does: the
// pipeline names the cluster, gives it the one step and ends it, so Name,
// Steps, AutoTerminationPolicy and Instances' KeepJobFlowAliveWhenNoSteps
// and TerminationProtected are not the config's; Instances holds either
// InstanceGroups or InstanceFleets.
func checkClusterConfig(c map[string]any) error {
	for _, k := range []string{"Name", "AutoTerminationPolicy", "Steps"} {
		if _, ok := c[k]; ok {
			return &fieldError{"cluster_config." + k, "the pipeline sets " + k + " of the cluster it creates; leave it out of cluster_config"}
		}
	}
	inst, ok := c["Instances"].(map[string]any)
	if !ok {
		return &fieldError{"cluster_config.Instances", "cluster_config needs Instances (RunJobFlow's JobFlowInstancesConfig) with InstanceGroups or InstanceFleets"}
	}
	for _, k := range []string{"KeepJobFlowAliveWhenNoSteps", "TerminationProtected"} {
		if _, ok := inst[k]; ok {
			return &fieldError{"cluster_config.Instances." + k, "the cluster the pipeline creates ends after its step; leave " + k + " out"}
		}
	}
	_, groups := inst["InstanceGroups"]
	_, fleets := inst["InstanceFleets"]
	if groups == fleets {
		return &fieldError{"cluster_config.Instances", "Instances holds either InstanceGroups or InstanceFleets, not both nor neither"}
	}
	return nil
}

// substituteInputs replaces each {<name>} in s whose name is a key of inputs
// by that input's value: s alone when it is the whole of s, else a Std:Join
// of the text around it. A {<name>} naming no bound input is an error.
func substituteInputs(field, s string, inputs map[string]any, used map[string]bool) (any, error) {
	locs := emrPlaceholder().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s, nil
	}
	var parts []any
	last := 0
	for _, l := range locs {
		name := s[l[2]:l[3]]
		v, ok := inputs[name]
		if !ok {
			return nil, &fieldError{field, fmt.Sprintf("{%s} names no bound input of the step (bound: %s)", name, strings.Join(mapkeys.Sorted(inputs), ", "))}
		}
		used[name] = true
		if l[0] > last {
			parts = append(parts, s[last:l[0]])
		}
		parts = append(parts, v)
		last = l[1]
	}
	if last < len(s) {
		parts = append(parts, s[last:])
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return JoinOn("", parts...), nil
}

package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// A cached step answers from SageMaker's cache while its arguments are
// what they were in an earlier execution: its cache key is its arguments.
// A step whose arguments name only fixed values (a literal S3 prefix, a
// literal query, an upstream output written to a fixed prefix) has the
// same key in every execution, so it is skipped and its old result reused
// however the data under those values changed: the opposite of "skip the
// work when the data has not changed". cacheKeyWarnings says which cached
// steps have such a key and how to make it follow the data.

// cacheKeyWarnings warns of every cached step whose cache key cannot
// change between executions: nothing in its arguments refers to the
// execution (ExecutionVariables) or to a pipeline parameter of the user's
// (the default parameters excluded), and each upstream step it reads from
// writes to a fixed prefix too.
//
// The arguments are read in enc, the definition's encoding: the text
// SageMaker computes the key from.
func cacheKeyWarnings(def *Definition, r *Report, enc *encodedDefinition) []string {
	if def == nil || r == nil || enc.err != nil {
		return nil
	}
	steps := map[catalog.SageMakerStepName]Step{}
	for _, s := range def.AllSteps() {
		steps[s.Name] = s
	}
	builtin := map[string]bool{ParamExecutionS3Prefix: true, ParamKMSKey: true, ParamSecurityGroupID: true, ParamVPCSubnet: true}
	var userParams []string
	for _, p := range def.Parameters {
		if !builtin[p.Name] {
			userParams = append(userParams, `"Parameters.`+p.Name+`"`)
		}
	}
	varies := map[catalog.SageMakerStepName]bool{}
	enc.forEachStep(def, func(s Step, se jv) {
		args, _ := se.get("Arguments")
		for _, text := range inputsText(s.Arguments, args) {
			if strings.Contains(text, `"Execution.`) || strings.Contains(text, `ExecutionVariables`) {
				varies[s.Name] = true
				return
			}
			for _, needle := range userParams {
				if strings.Contains(text, needle) {
					varies[s.Name] = true
					return
				}
			}
		}
	})
	// a step reading an upstream output follows the data when the upstream
	// step does (nodes are in step order: providers come first)
	var fixed []string
	var reasons []string
	for _, n := range r.Nodes {
		s, ok := steps[n.StepName]
		if !ok {
			continue
		}
		why := ""
		for _, b := range n.Inputs {
			if b == nil {
				continue
			}
			switch b.Source {
			case SourceDependency:
				if varies[b.ProviderStep] {
					varies[n.StepName] = true
				} else if why == "" {
					why = fmt.Sprintf("reads %s's %s, written to a fixed prefix", b.ProviderStep, b.Output)
				}
			case SourceConfig, SourceManual:
				if why == "" && strings.HasPrefix(b.Reference, "s3://") {
					why = "reads " + b.Reference
				}
			}
		}
		if s.CacheConfig == nil || !s.CacheConfig.Enabled || varies[n.StepName] {
			continue
		}
		if why == "" {
			why = "takes only literal arguments (its query or data location is written in the config)"
		}
		fixed = append(fixed, string(n.StepName))
		reasons = append(reasons, string(n.StepName)+" "+why)
	}
	if len(fixed) == 0 {
		return nil
	}
	slices.Sort(fixed)
	return []string{fmt.Sprintf("caching is on for %s, but nothing in their arguments changes between executions (%s): SageMaker reuses their cached results until the cache expires, even when the data under those locations has changed. "+
		"To make the cache key follow the data, put the data's location (or the query's date range) in a pipeline parameter (a value \"{{Parameters.<name>}}\" with <name> declared in pipeline_parameters) and pass a new value, such as a dated prefix, to each execution (execution.start parameters); or turn enable_caching off for the steps that read changing data",
		strings.Join(fixed, ", "), strings.Join(reasons, "; "))}
}

// inputsText returns the text of a step's encoded arguments without where
// it writes (its output member left out): an output under the execution
// id is a new location each time, not new data, and a cached step's
// outputs are its earlier execution's (so is what a step downstream of it
// reads). The text comes in pieces around the member left out (what is
// searched for cannot span one: it holds no JSON punctuation).
func inputsText(args any, enc jv) []string {
	if !enc.isObject() {
		return []string{enc.text()}
	}
	var output string
	switch args.(type) {
	case *ProcessingArguments:
		output = "ProcessingOutputConfig"
	case *TrainingArguments:
		output = "OutputDataConfig"
	case *TransformArguments:
		output = "TransformOutput"
	default:
		return []string{enc.text()}
	}
	nd := enc.node()
	text := enc.d.text
	c := enc.i + 1
	for range int(nd.n) {
		val := c + 1
		if enc.d.keyIs(c, output) {
			from := enc.d.nodes[c].start - 1 // the key's opening quote
			to := enc.d.nodes[val].end
			return []string{text[nd.start:from], text[to:nd.end]}
		}
		c = enc.d.nodes[val].next
	}
	return []string{enc.text()}
}

// Package sdkshape derives, from the aws-sdk-go-v2 SageMaker output types, the property paths a
// pipeline step of each type exposes to {"Get": "Steps.<name>.<path>"} references: the fields of
// the Describe* response SageMaker resolves them against. The compiler does not link the SDK: it
// embeds the table this package generates (go generate ./engine/compiler), and a compiler test
// regenerates it here to check it is current.
package sdkshape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// Roots maps a pipeline step Type to the SDK output types whose fields its properties are: a
// tuning step exposes DescribeHyperParameterTuningJob's fields and ListTrainingJobsForHyperParameterTuningJob's
// TrainingJobSummaries.
var Roots = map[string][]any{
	"Processing":    {sm.DescribeProcessingJobOutput{}},
	"Training":      {sm.DescribeTrainingJobOutput{}},
	"Transform":     {sm.DescribeTransformJobOutput{}},
	"Tuning":        {sm.DescribeHyperParameterTuningJobOutput{}, sm.ListTrainingJobsForHyperParameterTuningJobOutput{}},
	"Model":         {sm.DescribeModelOutput{}},
	"RegisterModel": {sm.DescribeModelPackageOutput{}},
}

// skipped are output fields that are transport, not properties.
var skipped = map[string]bool{"ResultMetadata": true, "NextToken": true}

var timeType = reflect.TypeOf(time.Time{})

// Paths lists every property path of the given output types, sorted: field names joined by ".",
// a list field followed by "[]" and a map field by "{}" (an index of either kind stands there),
// e.g. "ProcessingOutputConfig.Outputs[].S3Output.S3Uri". Intermediate paths are listed too.
func Paths(outputs ...any) []string {
	set := map[string]bool{}
	for _, o := range outputs {
		walk(reflect.TypeOf(o), "", set, map[reflect.Type]bool{})
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func walk(t reflect.Type, prefix string, set map[string]bool, stack map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		p := prefix + "[]"
		set[p] = true
		walk(t.Elem(), p, set, stack)
		return
	case t.Kind() == reflect.Map:
		p := prefix + "{}"
		set[p] = true
		walk(t.Elem(), p, set, stack)
		return
	case t.Kind() != reflect.Struct:
		return // a leaf: string, number, bool, enum, union interface, document
	}
	if stack[t] {
		return // a recursive shape: its paths are listed once
	}
	stack[t] = true
	defer delete(stack, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || (prefix == "" && skipped[f.Name]) {
			continue
		}
		p := f.Name
		if prefix != "" {
			p = prefix + "." + f.Name
		}
		set[p] = true
		walk(f.Type, p, set, stack)
	}
}

// Shape is one step Type's entry in the table: the SDK output types it comes from and their paths.
type Shape struct {
	From  []string `json:"from"`
	Paths []string `json:"paths"`
}

// Generate returns the table file: one JSON object, step Type -> Shape, with a note saying where
// it comes from.
func Generate() ([]byte, error) {
	table := map[string]any{"_generated": "by go generate ./engine/compiler (internal/sdkshape) from aws-sdk-go-v2/service/sagemaker; do not edit"}
	for typ, outputs := range Roots {
		sh := Shape{Paths: Paths(outputs...)}
		for _, o := range outputs {
			sh.From = append(sh.From, reflect.TypeOf(o).Name())
		}
		table[typ] = sh
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(table); err != nil {
		return nil, fmt.Errorf("sdkshape: %w", err)
	}
	return b.Bytes(), nil
}

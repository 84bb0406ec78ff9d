// Package sdkshape derives, from the aws-sdk-go-v2 SageMaker output types, the property paths a
// pipeline step of each type exposes to {"Get": "Steps.<name>.<path>"} references: the fields of
// the Describe* response SageMaker resolves them against. Which responses those are is the
// compiler's kind table (compiler.DefinitionKinds: each Type's Describe operations, found on the
// SDK client by name, or the shape of another service it names; a Type no operation answers for
// lists its Properties itself). The compiler
// does not link the SDK: it embeds the table this package generates (go generate
// ./engine/compiler), and a compiler test regenerates it here to check it is current.
package sdkshape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	emrtypes "github.com/aws/aws-sdk-go-v2/service/emr/types"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/cursus-go/cursus/engine/compiler"
)

// Roots maps each step Type of the compiler's kind table to the SDK output types of its Describe
// operations (the response type of each (*sagemaker.Client).<operation>). A Type without Describe
// operations is not in it.
func Roots() (map[string][]reflect.Type, error) {
	client := reflect.TypeOf(&sm.Client{})
	out := map[string][]reflect.Type{}
	for _, k := range compiler.DefinitionKinds() {
		if k.Shape != "" {
			t, ok := otherShapes[k.Shape]
			if !ok {
				return nil, fmt.Errorf("sdkshape: step Type %s: no SDK type for shape %s", k.Type, k.Shape)
			}
			out[k.Type] = append(out[k.Type], t)
		}
		for _, op := range k.Describe {
			m, ok := client.MethodByName(op)
			if !ok {
				return nil, fmt.Errorf("sdkshape: step Type %s: the SDK client has no operation %s", k.Type, op)
			}
			out[k.Type] = append(out[k.Type], m.Type.Out(0).Elem())
		}
	}
	return out, nil
}

// otherShapes are the shapes of other AWS services a kind's properties
// come from (DefinitionKind.Shape): the SDK's EMRStep reads EMR's Step.
var otherShapes = map[string]reflect.Type{
	"emr:Step": reflect.TypeOf(emrtypes.Step{}),
}

// skipped are output fields that are transport, not properties.
var skipped = map[string]bool{"ResultMetadata": true, "NextToken": true}

var timeType = reflect.TypeOf(time.Time{})

// Paths lists every property path of the given output types, sorted: field names joined by ".",
// a list field followed by "[]" and a map field by "{}" (an index of either kind stands there),
// e.g. "ProcessingOutputConfig.Outputs[].S3Output.S3Uri". Intermediate paths are listed too.
func Paths(outputs ...reflect.Type) []string {
	set := map[string]bool{}
	for _, o := range outputs {
		walk(o, "", set, map[reflect.Type]bool{})
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
// it comes from. A Type with Describe operations gets their output types' paths; a Type without
// them gets the Properties the kind table lists (From names the step Type itself, as the SDK's
// step class does: ConditionStep's Outcome); a Type with neither has no properties (Fail).
func Generate() ([]byte, error) {
	roots, err := Roots()
	if err != nil {
		return nil, err
	}
	table := map[string]any{"_generated": "by go generate ./engine/compiler (internal/sdkshape) from aws-sdk-go-v2/service/sagemaker and the compiler's kind table; do not edit"}
	for _, k := range compiler.DefinitionKinds() {
		sh := Shape{Paths: []string{}, From: []string{}}
		if outputs := roots[k.Type]; len(outputs) > 0 {
			sh.Paths = Paths(outputs...)
			for _, o := range outputs {
				sh.From = append(sh.From, o.Name())
			}
		} else {
			sh.Paths = append(sh.Paths, k.Properties...)
			slices.Sort(sh.Paths)
			sh.From = append(sh.From, k.Type+"Step")
		}
		table[k.Type] = sh
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(table); err != nil {
		return nil, fmt.Errorf("sdkshape: %w", err)
	}
	return b.Bytes(), nil
}

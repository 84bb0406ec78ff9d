package compiler

import (
	"maps"
	"slices"
	"testing"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// The generated instance type lists are the SDK's (the compiler does not
// link the SageMaker client, so it holds a copy): regenerate
// instancetypes_gen.go when go.mod moves the SDK.
func TestInstanceTypesMatchTheSDK(t *testing.T) {
	check := func(name string, got map[string]bool, want []string) {
		g := slices.Sorted(maps.Keys(got))
		slices.Sort(want)
		if !slices.Equal(g, want) {
			t.Errorf("%s: %d generated, %d in the SDK; regenerate instancetypes_gen.go", name, len(g), len(want))
		}
	}
	strs := func(n int, at func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	tr, pr, tf, rt := smtypes.TrainingInstanceType("").Values(), smtypes.ProcessingInstanceType("").Values(), smtypes.TransformInstanceType("").Values(), smtypes.ProductionVariantInstanceType("").Values()
	check("training", instanceTypes.training, strs(len(tr), func(i int) string { return string(tr[i]) }))
	check("processing", instanceTypes.processing, strs(len(pr), func(i int) string { return string(pr[i]) }))
	check("transform", instanceTypes.transform, strs(len(tf), func(i int) string { return string(tf[i]) }))
	check("realtime", instanceTypes.realtime, strs(len(rt), func(i int) string { return string(rt[i]) }))
}

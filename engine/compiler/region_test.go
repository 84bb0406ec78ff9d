package compiler_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// The pipeline's region is the config's (NA here, so us-east-1) unless the compile is given one;
// a given region moves every image there, and a region that is none is refused by name.
func TestCompileRegion(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}}
	res, steps := mustCompileCase(t, nodes, edges, nil)
	if res.Region != "us-east-1" {
		t.Errorf("Region %q, want us-east-1 (the config says NA)", res.Region)
	}
	image := func(steps map[string]map[string]any) string {
		return at(t, steps["XGBoostTraining"], "Arguments", "AlgorithmSpecification", "TrainingImage").(string)
	}
	if img := image(steps); !strings.Contains(img, ".us-east-1.") {
		t.Errorf("image %s is not in us-east-1", img)
	}
	for given, want := range map[string]string{"eu-west-1": "eu-west-1", "FE": "us-west-2", "ap-southeast-2": "ap-southeast-2"} {
		res, steps := mustCompileCase(t, nodes, edges, func(in *compiler.Input) { in.Region = given })
		if res.Region != want {
			t.Errorf("Region %q for %s, want %s", res.Region, given, want)
		}
		if img := image(steps); !strings.Contains(img, "."+want+".") {
			t.Errorf("region %s: image %s is not in %s", given, img, want)
		}
	}
	_, err := compileCase(t, nodes, edges, func(in *compiler.Input) { in.Region = "Mars" })
	var re *compiler.RegionError
	if !errors.As(err, &re) || re.Region != "Mars" {
		t.Errorf("region Mars: %v, want a *compiler.RegionError", err)
	}
}

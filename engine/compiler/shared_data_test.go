package compiler

import (
	"strings"
	"testing"
)

// One S3 data set read by a training loader and a calibration loader is
// warned of; two loaders of the same job type, of different data, or of
// one spec file the compiler uploads, are not.
func TestSharedDataWarnings(t *testing.T) {
	in := func(uri string) []*Binding {
		return []*Binding{{Input: "INPUT_DATA", Source: SourceConfig, Reference: uri}}
	}
	r := &Report{Nodes: []NodeReport{
		{Node: "DummyDataLoading_training", JobType: "training", Inputs: in("s3://b/fraud/train.csv")},
		{Node: "DummyDataLoading_calibration", JobType: "calibration", Inputs: in("s3://b/fraud/train.csv")},
		{Node: "DummyDataLoading_testing", JobType: "testing", Inputs: in("s3://b/fraud/test.csv")},
		{Node: "Other", JobType: "testing", Inputs: []*Binding{{Source: SourceDependency, Reference: "s3://b/fraud/test.csv"}, nil}},
		{Node: "Cradle_training", JobType: "training", Inputs: in("s3://b/code/1a2b/output_spec.json")},
		{Node: "Cradle_calibration", JobType: "calibration", Inputs: in("s3://b/code/1a2b/output_spec.json")},
	}}
	w := sharedDataWarnings(r, Manifest{{S3URI: "s3://b/code/1a2b/output_spec.json"}})
	if len(w) != 1 || !strings.Contains(w[0], "DummyDataLoading_training (training) and DummyDataLoading_calibration (calibration) read the same data, s3://b/fraud/train.csv") {
		t.Errorf("warnings %q", w)
	}
}

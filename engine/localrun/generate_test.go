package localrun

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// reader checks the generated data reached its inputs: an object's
// stand-in under the object's name, a prefix's as its directory, with the
// id and label the steps name and the generator's feature columns.
const reader = `
import csv, os
one = "/opt/ml/processing/input/one/train.csv"
two = [f for f in os.listdir("/opt/ml/processing/input/two") if f.endswith(".csv")]
assert two == ["part-00000.csv"], two
with open(one) as f:
    rows = list(csv.reader(f))
assert rows[0] == ["key", "num_1", "num_2", "num_3", "num_4", "num_5", "cat_1", "cat_2", "y"], rows[0]
assert len(rows) == 1001, len(rows)
assert {r[-1] for r in rows[1:]} == {"0", "1"}
os.makedirs("/opt/ml/processing/output/result", exist_ok=True)
open("/opt/ml/processing/output/result/ok", "w").write("ok")
print("reader saw", len(rows) - 1, "rows")
`

func TestGenerateData(t *testing.T) {
	needLibraries(t, "numpy", "pandas")
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/reader.py", "reader.py", reader)
	p.step(processing("Read", "reader.py", [][3]string{
		{"one", `"s3://bucket/data/train.csv"`, "/opt/ml/processing/input/one"},
		{"two", `"s3://bucket/more/"`, "/opt/ml/processing/input/two"},
	}, []string{"result"}, nil, map[string]string{"LABEL_FIELD": "y", "ID_FIELD": "key"}))
	rep := p.run(Options{Sandbox: Bubblewrap, Generate: []string{"s3://bucket/data/train.csv", "s3://bucket/more/"}})
	wantStatus(t, rep, "Read", StatusSucceeded)
	if len(rep.Generated) != 2 {
		t.Fatalf("generated %+v", rep.Generated)
	}
	g := rep.Generated[0]
	if g.Key != "s3://bucket/data/train.csv" || filepath.Base(g.Path) != "part-00000.csv" || g.Rows != 1000 || g.Label != "y" || g.Classes != 2 ||
		!reflect.DeepEqual(g.Columns, []string{"key", "num_1", "num_2", "num_3", "num_4", "num_5", "cat_1", "cat_2", "y"}) {
		t.Errorf("generated %+v", g)
	}
	if filepath.Base(rep.Generated[1].Path) != "data" {
		t.Errorf("a prefix stands for a directory: %+v", rep.Generated[1])
	}
}

// The columns come from the pipeline's trainer: label_name, the feature
// lists and id_name among its hyperparameters (JSON text, as the
// definition holds them), the classes from multiclass_categories.
func TestGeneratedShape(t *testing.T) {
	p := newPipeline(t)
	p.step(`{"Name": "Train", "Type": "Training", "Arguments": {"HyperParameters": {
		"label_name": "\"is_fraud\"", "id_name": "\"txn\"", "tab_field_list": "[\"amount\",\"age\",\"txn\"]",
		"cat_field_list": "[\"country\"]", "multiclass_categories": "[0,1,2]"}}}`)
	p.step(processing("Eval", "eval.py", nil, nil, nil, map[string]string{"LABEL_FIELD": "other", "ID_FIELD": "other_id"}))
	r := &run{res: p.result()}
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	d, err := r.shape()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"txn", "amount", "age", "country", "is_fraud"}; !reflect.DeepEqual(d.columns(), want) || d.classes != 3 {
		t.Errorf("columns %v classes %d, want %v and 3 (the id is not a feature too)", d.columns(), d.classes, want)
	}
}

func TestGenerateDataRefusals(t *testing.T) {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/reader.py", "reader.py", reader)
	p.step(processing("Read", "reader.py", [][3]string{{"one", `"s3://bucket/data/train.csv"`, "/opt/ml/processing/input/one"}}, []string{"result"}, nil, nil))
	local := filepath.Join(p.dir, "code", "reader.py")
	for _, c := range []struct {
		opts  Options
		field string
	}{
		{Options{Generate: []string{"s3://bucket/data/train.csv"}, Data: map[string]string{"s3://bucket/data/train.csv": local}}, "generate_data.s3://bucket/data/train.csv"},
		{Options{Generate: []string{"Nope.result"}}, "generate_data.Nope.result"},
		{Options{Generate: []string{"Read.nope"}}, "generate_data.Read.nope"},
		{Options{Generate: []string{"s3://bucket/x", "s3://bucket/x"}}, "generate_data.s3://bucket/x"},
	} {
		c.opts.WorkDir = filepath.Join(p.dir, "work")
		_, err := Run(context.Background(), p.result(), c.opts)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%+v: %v, want an input error on %s", c.opts.Generate, err, c.field)
		}
	}
}

func TestDataKeys(t *testing.T) {
	res := &compiler.Result{
		Manifest: compiler.Manifest{{S3URI: "s3://b/code/local-data/"}},
		Report: &compiler.Report{Nodes: []compiler.NodeReport{
			{Inputs: []*compiler.Binding{{Source: compiler.SourceConfig, Reference: "s3://b/fraud/train.csv"}, {Source: compiler.SourceConfig, Reference: "s3://b/code/local-data/"}}},
			{Inputs: []*compiler.Binding{{Source: compiler.SourceDependency, Reference: "s3://b/upstream"}, {Source: compiler.SourceManual, Reference: "s3://b/cal/"}, nil}},
			{Inputs: []*compiler.Binding{{Source: compiler.SourceConfig, Reference: "s3://b/fraud/train.csv"}, {Source: compiler.SourceConfig, Reference: "{Parameters.X}"}}},
		}},
	}
	if got, want := DataKeys(res), []string{"s3://b/cal/", "s3://b/fraud/train.csv"}; !reflect.DeepEqual(got, want) {
		t.Errorf("DataKeys %v, want %v (config and manual inputs, not uploads or dependencies)", got, want)
	}
	if DataKeys(nil) != nil {
		t.Error("DataKeys(nil)")
	}
}

package compiler_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
)

// Bad inputs: each is a clear, typed error (the tools map the types to
// codes; compiling never uploads anything, and tools/compile_test checks
// that compile.dag sends no request for any of them).
func TestBadInputs(t *testing.T) {
	ctx := context.Background()
	good := filepath.Join(examplesDir, "simple-training", "config.json")
	chain := newDAG(threeNodes, threeEdges)
	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "garbage.json")
	if err := os.WriteFile(garbage, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name  string
		in    compiler.Input
		check func(error) bool
		says  string
	}{
		{"cycle", compiler.Input{DAG: newDAG([]string{"a", "b", "c"}, [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}}), ConfigFile: good},
			func(err error) bool {
				var ce *compiler.CycleError
				return errors.As(err, &ce) && len(ce.Nodes) == 3
			}, "cycle"},
		{"cycle, config missing: the config file is checked first", compiler.Input{DAG: newDAG([]string{"a", "b"}, [][2]string{{"a", "b"}, {"b", "a"}}), ConfigFile: "/nonexistent/config.json"},
			func(err error) bool {
				var fe *compiler.FileError
				return errors.As(err, &fe) && fe.Missing
			}, "does not exist"},
		{"missing config file", compiler.Input{DAG: chain, ConfigFile: filepath.Join(tmp, "nope.json")},
			func(err error) bool {
				var fe *compiler.FileError
				return errors.As(err, &fe) && fe.Missing
			}, "nope.json does not exist"},
		{"unreadable config file", compiler.Input{DAG: chain, ConfigFile: garbage},
			func(err error) bool {
				var fe *compiler.FileError
				return errors.As(err, &fe) && !fe.Missing
			}, "garbage.json"},
		{"config path is a directory", compiler.Input{DAG: chain, ConfigFile: tmp},
			func(err error) bool {
				var fe *compiler.FileError
				return errors.As(err, &fe) && !fe.Missing
			}, "directory"},
		{"no config", compiler.Input{DAG: chain}, func(err error) bool { return errors.Is(err, compiler.ErrNoConfig) }, "no config"},
		{"empty DAG", compiler.Input{DAG: dag.New(nil, nil), ConfigFile: good}, func(err error) bool { return errors.Is(err, compiler.ErrEmptyDAG) }, "no nodes"},
		{"undeclared edge endpoint", compiler.Input{DAG: newDAG([]string{"DummyDataLoading_training"}, [][2]string{{"Typo", "DummyDataLoading_training"}}), ConfigFile: good},
			func(err error) bool {
				var de *compiler.InvalidDAGError
				return errors.As(err, &de) && de.Nodes[0] == "Typo"
			}, "Typo"},
		{"a node without config", compiler.Input{DAG: newDAG([]string{"DummyDataLoading_training", "packaging"}, [][2]string{{"DummyDataLoading_training", "packaging"}}), ConfigFile: good},
			func(err error) bool {
				var me *compiler.MissingConfigError
				return errors.As(err, &me) && len(me.Nodes) == 1 && me.Nodes[0] == "packaging"
			}, "packaging"},
		{"unbound required input", compiler.Input{DAG: newDAG(missingProducerNodes, missingProducerEdges), Configs: configSet(t, missingProducerNodes, nil), BaseDir: tmp},
			func(err error) bool {
				var ue *compiler.UnboundInputsError
				return errors.As(err, &ue)
			}, "required input \"model_input\""},
		{"invalid pipeline name", compiler.Input{DAG: newDAG([]string{"DummyDataLoading_training"}, nil), ConfigFile: good, PipelineName: "bad_name!"},
			func(err error) bool {
				var ne *compiler.InvalidPipelineNameError
				return errors.As(err, &ne) && ne.Suggestion == "bad-name"
			}, "invalid pipeline name"},
		{"role that is not an ARN", compiler.Input{DAG: newDAG([]string{"DummyDataLoading_training"}, nil), ConfigFile: good, Role: "admin"},
			func(err error) bool {
				var se *compiler.StepBuildError
				return errors.As(err, &se) && se.Field == "role"
			}, "IAM role ARN"},
		{"two nodes, one step name", compiler.Input{DAG: newDAG([]string{"TabularPreprocessing_training", "tabularpreprocessing_training"}, nil), Configs: configSet(t, []string{"TabularPreprocessing_training"}, nil), BaseDir: tmp},
			func(err error) bool {
				var de *config.DuplicateStepNameError
				return errors.As(err, &de)
			}, "TabularPreprocessing-Training"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := compiler.Compile(ctx, c.in)
			if err == nil {
				t.Fatalf("compiled (%d steps); want an error", len(res.Definition.Steps))
			}
			if !c.check(err) {
				t.Errorf("wrong error %T: %v", err, err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q should say %q", err, c.says)
			}
			// Every refusal says its kind: a missing file not_found, the
			// rest invalid_input (the DAG, the configs, the name).
			want := errkind.InvalidInput
			if fe := (*compiler.FileError)(nil); errors.As(err, &fe) && fe.Missing {
				want = errkind.NotFound
			}
			if errkind.Of(err) != want {
				t.Errorf("%T has kind %q, want %q", err, errkind.Of(err), want)
			}
		})
	}
}

// Config values the builders reject name the field at fault.
func TestStepBuildErrors(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}}
	for _, c := range []struct {
		name  string
		node  catalog.NodeName
		field string
		vals  map[string]any
		says  string
	}{
		{"unknown framework version", "XGBoostTraining", "framework_version", map[string]any{"framework_version": "0.1"}, "no xgboost image"},
		{"env value over the processing limit", "TabularPreprocessing_training", "label_name", map[string]any{"label_name": strings.Repeat("x", 300)}, "256"},
		{"hyperparameter over the length limit", "XGBoostTraining", "label_name", map[string]any{"label_name": strings.Repeat("y", 2600)}, "2500"},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := configSet(t, nodes, nil)
			schema, _ := config.Default()
			cfg, _ := set.Config(catalog.ConfigKey(c.node))
			vals := map[string]any{}
			for k, v := range cfg.Values {
				vals[k] = v
			}
			for k, v := range c.vals {
				vals[k] = v
			}
			nc, err := schema.NewConfig(cfg.Class.Name, cfg.Key, vals)
			if err != nil {
				t.Fatal(err)
			}
			var cs []*config.Config
			for _, x := range set.Configs() {
				if x.Key == nc.Key {
					x = nc
				}
				cs = append(cs, x)
			}
			set2, err := config.NewSet(cs...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = compiler.Compile(context.Background(), compiler.Input{DAG: newDAG(nodes, edges), Configs: set2, BaseDir: t.TempDir()})
			var se *compiler.StepBuildError
			if !errors.As(err, &se) {
				t.Fatalf("want *StepBuildError, got %T %v", err, err)
			}
			if se.Node != c.node || se.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got node %s field %q: %v", se.Node, se.Field, err)
			}
		})
	}
}

func configKey(s string) catalog.ConfigKey { return catalog.ConfigKey(s) }

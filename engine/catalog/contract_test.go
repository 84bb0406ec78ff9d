package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// scriptContract summarises what a script must read and write to satisfy
// a step: container paths (inputs and outputs), environment variables with
// their required flag, and job argument flags.
func scriptContract(s *Step) []string {
	var parts []string
	for _, in := range s.Inputs {
		if in.ContainerPath != "" {
			parts = append(parts, fmt.Sprintf("input %s (required=%v)", in.ContainerPath, in.Required))
		}
	}
	for _, out := range s.Outputs {
		if out.ContainerPath != "" {
			parts = append(parts, "output "+out.ContainerPath)
		}
	}
	for _, e := range s.Contract.Env {
		parts = append(parts, fmt.Sprintf("env %s (required=%v)", e.Name, e.Required))
	}
	for _, a := range s.Contract.JobArguments {
		parts = append(parts, "arg "+a.Flag)
	}
	sort.Strings(parts)
	return parts
}

// TestSharedEntryPointsHaveOneContract: steps that name the same entry
// point run the same script file, so they must declare the same container
// paths, environment variables and job arguments; otherwise one script
// cannot satisfy both (validate.alignment would fail one of them).
func TestSharedEntryPointsHaveOneContract(t *testing.T) {
	byEntry := map[string][]*Step{}
	for _, s := range mustDefault(t).Steps() {
		if s.Contract.EntryPoint != "" {
			byEntry[s.Contract.EntryPoint] = append(byEntry[s.Contract.EntryPoint], s)
		}
	}
	shared := 0
	for _, entry := range mapkeys.Sorted(byEntry) {
		steps := byEntry[entry]
		if len(steps) < 2 {
			continue
		}
		shared++
		want := scriptContract(steps[0])
		for _, s := range steps[1:] {
			got := scriptContract(s)
			if slices.Equal(got, want) {
				continue
			}
			var only0, only1 []string
			for _, p := range want {
				if !slices.Contains(got, p) {
					only0 = append(only0, p)
				}
			}
			for _, p := range got {
				if !slices.Contains(want, p) {
					only1 = append(only1, p)
				}
			}
			t.Errorf("%s is the entry point of %s and %s with different contracts: only %s has %v; only %s has %v",
				entry, steps[0].Type, s.Type, steps[0].Type, only0, s.Type, only1)
		}
	}
	if shared == 0 {
		t.Error("no shared entry point found; XGBoostTraining and XGBoostTuning share xgboost_training.py")
	}
}

// TestNoMapThroughEnv: SageMaker caps every environment value at 256
// characters (processing) or 512 (training), and a JSON object read from
// config is unbounded, so a map field reaches a script as a config-sourced
// input (a mounted <field>.json), never as an environment variable.
func TestNoMapThroughEnv(t *testing.T) {
	for _, s := range mustDefault(t).Steps() {
		for _, e := range s.Contract.Env {
			if f, ok := s.Field(e.Field); ok && (f.Type == FieldMap || f.Type == FieldAny) {
				t.Errorf("%s: env %s reads %s field %s; declare a config-sourced input instead", s.Type, e.Name, f.Type, f.Name)
			}
		}
	}
}

// TestSpecInputsComeFromConfig pins the config-sourced spec inputs: each
// reads a map field of the same name and is mounted in its own directory
// under /opt/ml/processing/input/config, where the script finds
// <field>.json.
func TestSpecInputsComeFromConfig(t *testing.T) {
	c := mustDefault(t)
	want := map[string][]string{
		"CradleDataLoading":  {"data_sources_spec", "transform_spec", "output_spec", "cradle_job_spec"},
		"CurrencyConversion": {"currency_conversion_dict"},
		"Payload":            {"field_defaults"},
	}
	for _, st := range mapkeys.Sorted(want) {
		s := mustStep(t, c, StepType(st))
		for _, name := range want[st] {
			in, ok := s.Input(name)
			if !ok {
				t.Errorf("%s: no input %s", st, name)
				continue
			}
			f, ok := s.Field(in.ConfigSource)
			if in.ConfigSource != name || !ok || f.Type != FieldMap {
				t.Errorf("%s.%s: config_source %q (field found %v)", st, name, in.ConfigSource, ok)
			}
			if in.ContainerPath != "/opt/ml/processing/input/config/"+name {
				t.Errorf("%s.%s: path %s", st, name, in.ContainerPath)
			}
			if _, dup := s.Contract.EnvVar(strings.ToUpper(name)); dup {
				t.Errorf("%s: %s is still an environment variable too", st, strings.ToUpper(name))
			}
		}
	}
}

// TestDependenciesLeaveOutConfigFiles: a config-file input (a map or list
// field written to <field>.json) is not a dependency; an input fed by a
// string config field (a data location) still is.
func TestDependenciesLeaveOutConfigFiles(t *testing.T) {
	c := mustDefault(t)
	names := func(st StepType) string {
		var out []string
		for _, in := range mustStep(t, c, st).Dependencies() {
			out = append(out, in.LogicalName)
		}
		return strings.Join(out, ",")
	}
	for st, want := range map[StepType]string{
		"CradleDataLoading":  "",
		"CurrencyConversion": "input_data",
		"Payload":            "model_input",
		"DummyDataLoading":   "INPUT_DATA",
		"Package":            "model_input,inference_scripts_input,calibration_model",
	} {
		if got := names(st); got != want {
			t.Errorf("%s dependencies %q, want %q", st, got, want)
		}
	}
	s := mustStep(t, c, "CradleDataLoading")
	if in, _ := s.Input("data_sources_spec"); !s.ConfigFileInput(in) {
		t.Error("data_sources_spec is not a config-file input")
	}
}

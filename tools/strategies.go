package tools

import (
	"context"
	"strings"

	"github.com/cursus-go/cursus/engine/strategies"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// StrategiesNamespace returns the strategies namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func StrategiesNamespace() registry.Namespace {
	return namespace("strategies", "Strategy library: how the compiler builds each kind of step (one builder per SageMaker verb, Processing assemblies), with each strategy's knobs and the routing from a step type to its strategy.",
		registry.New("strategies.list_axes", registry.Spec{
			Description: "Lists the strategy axes (sagemaker_step_type, step_assembly) with the number of strategies on each and what each routes on.",
			When:        "first look at the strategy library",
			Examples:    []string{`strategies.list_axes {}`},
			Tags:        []string{registry.PhasePlanner},
		}, strategiesListAxes),
		registry.New("strategies.list", registry.Spec{
			Description:      "Lists the strategies by axis and name: verb, builder, step type, API request, knob names and routed step types.",
			When:             "you want every way the compiler builds steps",
			Examples:         []string{`strategies.list {}`, `strategies.list {"axis": "step_assembly", "detail": true}  # Processing assemblies with their knobs`},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, strategiesList),
		registry.New("strategies.show", registry.Spec{
			Description:      "One strategy by name (case-insensitive): its verb, compiler builder, definition step type, API request, knobs, preset knobs and routed step types.",
			When:             "you know a strategy's name",
			Examples:         []string{`strategies.show {"name": "Training"}`, `strategies.show {"name": "code", "axis": "step_assembly"}`},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, strategiesShow),
		registry.New("strategies.knobs", registry.Spec{
			Description: "The knobs of one strategy: each setting its builder reads, with type, default, whether it is required and what it does.",
			When:        "writing a step file or config",
			Examples:    []string{`strategies.knobs {"axis": "sagemaker_step_type", "name": "Tuning"}`, `strategies.knobs {"axis": "step_assembly", "name": "code"}`},
			Tags:        []string{registry.PhasePlanner},
		}, strategiesKnobs),
		registry.New("strategies.for_step_type", registry.Spec{
			Description: "Routes a step (verb, catalog step type or DAG node name) to its strategy: Processing by step_assembly, any other verb by sagemaker_step_type.",
			When:        "you need the builder and knobs of a step type",
			Examples: []string{
				`strategies.for_step_type {"sagemaker_step_type": "Processing"}  # -> step_assembly/code`,
				`strategies.for_step_type {"sagemaker_step_type": "Processing", "step_assembly": "step_args"}`,
				`strategies.for_step_type {"sagemaker_step_type": "XGBoostTraining"}  # a catalog step type`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, strategiesForStepType),
	)
}

type strategiesAxisArgs struct {
	Axis string `json:"axis,omitempty" jsonschema:"enum=sagemaker_step_type,enum=step_assembly" jsonschema_description:"Only strategies on this axis."`
}

type strategiesListArgs struct {
	strategiesAxisArgs
	Detail bool `json:"detail,omitempty" jsonschema_description:"Each strategy's knobs in full, and its preset knobs."`
}

type strategiesShowArgs struct {
	Name string `json:"name" jsonschema:"required,minLength=1" jsonschema_description:"Strategy name, e.g. Training, Tuning, code, step_args."`
	Axis string `json:"axis,omitempty" jsonschema:"enum=sagemaker_step_type,enum=step_assembly" jsonschema_description:"Axis to look on (needed when a name exists on both)."`
}

type strategiesKnobsArgs struct {
	Axis string `json:"axis" jsonschema:"required,enum=sagemaker_step_type,enum=step_assembly"`
	Name string `json:"name" jsonschema:"required,minLength=1" jsonschema_description:"Strategy name on that axis."`
}

type strategiesForArgs struct {
	SageMakerStepType string `json:"sagemaker_step_type" jsonschema:"required,minLength=1" jsonschema_description:"A SageMaker verb (Processing, Training, ...), a catalog step type or a DAG node name."`
	StepAssembly      string `json:"step_assembly,omitempty" jsonschema_description:"For Processing: code (default) or step_args."`
}

func strategyLibrary() (*strategies.Library, error) {
	l, err := strategies.Default()
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "cannot build the strategy library: %v", err).WithDetails("exception", err.Error())
	}
	return l, nil
}

// StrategiesListAxesData is the data of strategies.list_axes.
type StrategiesListAxesData struct {
	Count int                   `json:"count"`
	Axes  []strategies.AxisInfo `json:"axes"`
}

func strategiesListAxes(ctx context.Context, _ struct{}) (*envelope.Result[StrategiesListAxesData], error) {
	l, err := strategyLibrary()
	if err != nil {
		return nil, err
	}
	axes := l.ListAxes()
	return envelope.Success(StrategiesListAxesData{Count: len(axes), Axes: axes}).WithNextSteps(
		envelope.NextStep{Tool: "strategies.list", When: "to see the strategies of an axis", Why: "each with its builder and knobs", ArgsHint: map[string]any{"axis": strategies.AxisSageMakerStepType}},
	), nil
}

// StrategiesListData is the data of strategies.list.
type StrategiesListData struct {
	// Axis echoes the filter (null: every axis).
	Axis       *string          `json:"axis"`
	Count      int              `json:"count"`
	Strategies []StrategiesItem `json:"strategies"`
}

// StrategiesItem is one strategy in strategies.list: what it builds and
// how, its knobs by name, and in detail the knobs themselves.
type StrategiesItem struct {
	Axis           string   `json:"axis"`
	Name           string   `json:"name"`
	Verb           string   `json:"verb"`
	Handler        string   `json:"handler"`
	DefinitionType string   `json:"definition_type"`
	APIRequest     string   `json:"api_request"`
	Routable       bool     `json:"routable"`
	Implemented    bool     `json:"implemented"`
	Description    string   `json:"description"`
	KnobNames      []string `json:"knob_names"`
	StepTypes      []string `json:"step_types"`
	// Knobs and PresetKnobs are given with detail (strategies.knobs gives
	// one strategy's).
	Knobs       []strategies.Knob `json:"knobs,omitempty"`
	PresetKnobs map[string]any    `json:"preset_knobs,omitempty"`
}

func strategiesList(ctx context.Context, a strategiesListArgs) (*envelope.Result[StrategiesListData], error) {
	l, err := strategyLibrary()
	if err != nil {
		return nil, err
	}
	list, err := l.List(a.Axis)
	if err != nil {
		return nil, toolError(err)
	}
	items := make([]StrategiesItem, len(list))
	for i, s := range list {
		names := make([]string, len(s.Knobs))
		for j, k := range s.Knobs {
			names[j] = k.Name
		}
		items[i] = StrategiesItem{Axis: s.Axis, Name: s.Name, Verb: s.Verb, Handler: s.Handler, DefinitionType: s.DefinitionType,
			APIRequest: s.APIRequest, Routable: s.Routable, Implemented: s.Implemented, Description: s.Description,
			KnobNames: names, StepTypes: nonNilList(s.StepTypes)}
		if a.Detail {
			items[i].Knobs, items[i].PresetKnobs = s.Knobs, s.PresetKnobs
		}
	}
	res := envelope.Success(StrategiesListData{Axis: optString(a.Axis), Count: len(items), Strategies: items}).WithMeta("count", len(items))
	if !a.Detail && len(items) > 0 {
		res.WithNextSteps(envelope.NextStep{Tool: "strategies.knobs", When: "you need a strategy's knobs in full", Why: "type, default, source and doc of each", ArgsHint: map[string]any{"axis": items[0].Axis, "name": items[0].Name}})
	}
	return res, nil
}

// StrategiesShowData is the data of strategies.show: one strategy in full.
type StrategiesShowData = strategies.Strategy

func strategiesShow(ctx context.Context, a strategiesShowArgs) (*envelope.Result[StrategiesShowData], error) {
	if strings.TrimSpace(a.Name) == "" {
		return nil, envelope.InvalidInput("name must be a non-empty strategy name").WithRemedy("see strategies.list", "strategies.list")
	}
	l, err := strategyLibrary()
	if err != nil {
		return nil, err
	}
	s, err := l.Show(a.Name, a.Axis)
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(*s).WithMeta("axis", s.Axis).WithMeta("name", s.Name).WithNextSteps(
		envelope.NextStep{Tool: "strategies.knobs", When: "to configure steps built this way", Why: "what the builder reads", ArgsHint: map[string]any{"axis": s.Axis, "name": s.Name}},
	), nil
}

// StrategiesKnobsData is the data of strategies.knobs.
type StrategiesKnobsData struct {
	Axis        string            `json:"axis"`
	Name        string            `json:"name"`
	Count       int               `json:"count"`
	Knobs       []strategies.Knob `json:"knobs"`
	PresetKnobs map[string]any    `json:"preset_knobs"`
}

func strategiesKnobs(ctx context.Context, a strategiesKnobsArgs) (*envelope.Result[StrategiesKnobsData], error) {
	if strings.TrimSpace(a.Name) == "" {
		return nil, envelope.InvalidInput("name must be a non-empty strategy name")
	}
	l, err := strategyLibrary()
	if err != nil {
		return nil, err
	}
	knobs, s, err := l.Knobs(a.Axis, a.Name)
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(StrategiesKnobsData{Axis: s.Axis, Name: s.Name, Count: len(knobs), Knobs: nonNilList(knobs), PresetKnobs: s.PresetKnobs}).
		WithMeta("count", len(knobs)), nil
}

// StrategiesForStepTypeData is the data of strategies.for_step_type: the
// route from a step type to its strategy.
type StrategiesForStepTypeData = strategies.Route

func strategiesForStepType(ctx context.Context, a strategiesForArgs) (*envelope.Result[StrategiesForStepTypeData], error) {
	if strings.TrimSpace(a.SageMakerStepType) == "" {
		return nil, envelope.InvalidInput("sagemaker_step_type must be a non-empty verb or step type")
	}
	l, err := strategyLibrary()
	if err != nil {
		return nil, err
	}
	r, err := l.ForStepType(a.SageMakerStepType, a.StepAssembly)
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(*r).WithMeta("resolved_axis", r.ResolvedAxis).WithMeta("resolved_name", r.ResolvedName).WithWarnings(r.Warnings...).WithNextSteps(
		envelope.NextStep{Tool: "strategies.knobs", When: "to see what the builder reads", Why: "knobs of the routed strategy", ArgsHint: map[string]any{"axis": r.ResolvedAxis, "name": r.ResolvedName}},
	), nil
}

package author

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/internal/safefs"
)

// The gates of PreflightStep, in order.
const (
	GateInterface   = "interface"
	GateParity      = "registry_parity"
	GateRoutability = "builder_routability"
	GatePorts       = "resolvable_ports"
)

// Gates lists the gate names in order.
var Gates = []string{GateInterface, GateParity, GateRoutability, GatePorts}

// Gate is one gate's verdict (for one step, or for all in all-mode).
type Gate struct {
	Name   string   `json:"name"`
	Passed bool     `json:"passed"`
	Detail string   `json:"detail"`
	Step   string   `json:"step,omitempty"`
	Issues []string `json:"issues,omitempty"`
}

// Preflight is the outcome of PreflightStep.
type Preflight struct {
	StepName      *string  `json:"step_name"` // null in all-mode
	Scope         string   `json:"scope"`     // "all" or the step name
	Constructible bool     `json:"constructible"`
	FailedGates   []string `json:"failed_gates"`
	Gates         []Gate   `json:"gates"`
}

// PreflightOptions selects what PreflightStep checks.
type PreflightOptions struct {
	StepName      string
	All           bool
	JobType       string
	WorkspaceDirs []string
}

// PreflightStep runs the gates a step must pass before it can compile:
//
//   - interface: the step file loads and passes validate.step_interface
//     (schema and invariants);
//   - registry_parity: its config class, names and node names round-trip;
//   - builder_routability: its verb has a builder, and the builder builds it
//     from a default config;
//   - resolvable_ports: every required input not supplied from config has a
//     provider in the catalog above the resolver threshold.
//
// In all-mode each gate covers every step and lists the failing ones.
// Unknown steps fail the interface gate. An error that prevents the
// preflight carries a kind (errkind): its own, else InvalidInput.
func PreflightStep(ctx context.Context, opts PreflightOptions) (*Preflight, error) {
	pf, err := preflightStep(ctx, opts)
	if err != nil && errkind.Of(err) == errkind.Unknown {
		err = errkind.Errorf(errkind.InvalidInput, "cannot run the preflight: %w", err)
	}
	return pf, err
}

func preflightStep(ctx context.Context, opts PreflightOptions) (*Preflight, error) {
	name := strings.TrimSpace(opts.StepName)
	if name == "" && !opts.All {
		return nil, validation.ErrNoSelection
	}
	rep, err := validation.CheckInterfaces(validation.InterfaceOptions{StepName: name, All: opts.All, JobType: opts.JobType, WorkspaceDirs: opts.WorkspaceDirs, FS: safefs.From(ctx)})
	if err != nil {
		return nil, err
	}
	pf := &Preflight{FailedGates: []string{}}
	if opts.All {
		pf.Scope = "all"
	} else {
		pf.StepName = &name
		pf.Scope = name
	}
	// Split interface errors into the interface and parity gates.
	ifaceFail, parityFail := map[string][]string{}, map[string][]string{}
	for _, r := range rep.Results {
		for _, e := range r.Errors {
			switch {
			case strings.HasPrefix(e, "registry parity:"):
				parityFail[r.Step] = append(parityFail[r.Step], e)
			case strings.HasPrefix(e, "routability:"):
				// reported by the routability gate
			default:
				ifaceFail[r.Step] = append(ifaceFail[r.Step], e)
			}
		}
	}
	cat, catErr := catalog.Load(safefs.From(ctx), opts.WorkspaceDirs...)
	var steps []*catalog.Step
	if catErr == nil {
		if opts.All {
			steps = cat.Steps()
		} else if st, _, err := validation.LookupStep(cat, name); err == nil {
			steps = []*catalog.Step{st}
			if st.Type != catalog.StepType(name) {
				pf.Scope = string(st.Type)
			}
		}
	}
	routeFail, portFail := map[string][]string{}, map[string][]string{}
	types := make([]catalog.StepType, len(steps))
	for i, st := range steps {
		types[i] = st.Type
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := string(st.Type)
		if !compiler.HasBuilder(st.Verb) {
			routeFail[s] = append(routeFail[s], fmt.Sprintf("no builder for SageMaker step type %s", st.Verb))
		} else if len(ifaceFail[s]) == 0 {
			b, err := validation.BuildStep(ctx, cat, st, opts.JobType)
			switch {
			case err != nil:
				routeFail[s] = append(routeFail[s], err.Error())
			case !b.Built:
				routeFail[s] = append(routeFail[s], "the builder fails on a default config: "+b.Error)
			}
		}
	}
	if len(steps) > 0 {
		ar, err := validation.Align(ctx, validation.AlignOptions{Catalog: cat, Steps: types, SkipBuild: true})
		if err != nil {
			return nil, err
		}
		for _, sa := range ar.Steps {
			if lr := sa.Levels["level_3"]; lr != nil {
				for _, is := range validation.Blocking(lr.Issues) {
					portFail[sa.StepName] = append(portFail[sa.StepName], is.Message)
				}
			}
		}
	}
	notChecked := ""
	if len(steps) == 0 {
		notChecked = "not checked: the step did not load"
	}
	gate := func(gname, okDetail string, fails map[string][]string) {
		g := Gate{Name: gname, Passed: len(fails) == 0}
		if !opts.All {
			g.Step = pf.Scope
		}
		if g.Passed {
			g.Detail = okDetail
			if notChecked != "" && (gname == GateRoutability || gname == GatePorts) {
				g.Passed, g.Detail = false, notChecked
			}
		} else {
			var names []string
			for s, msgs := range fails {
				names = append(names, s)
				for _, m := range msgs {
					if opts.All {
						m = s + ": " + m
					}
					g.Issues = append(g.Issues, m)
				}
			}
			sort.Strings(names)
			sort.Strings(g.Issues)
			g.Detail = fmt.Sprintf("%d step(s) fail: %s", len(names), strings.Join(names, ", "))
			if !opts.All && len(g.Issues) > 0 {
				g.Detail = g.Issues[0]
			}
		}
		if !g.Passed {
			pf.FailedGates = append(pf.FailedGates, gname)
		}
		pf.Gates = append(pf.Gates, g)
	}
	n := len(steps)
	if !opts.All {
		n = 1
	}
	gate(GateInterface, fmt.Sprintf("%d step file(s) load and validate", max(n, rep.Validated)), ifaceFail)
	gate(GateParity, fmt.Sprintf("config class, names and node names round-trip (%d rows derived)", max(len(steps), 1)), parityFail)
	gate(GateRoutability, "the verb's builder builds the step from a default config", routeFail)
	gate(GatePorts, "every required input has a provider above the resolver threshold", portFail)
	pf.Constructible = len(pf.FailedGates) == 0
	return pf, nil
}

package compiler

import (
	"errors"
	"slices"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// This file places the steps of a gated DAG: the nodes downstream of a
// gate (a node of a control verb: the quality gate's Condition) go into
// the Condition step's IfSteps, as the SageMaker SDK nests them, and
// steps nest as the gates do.

// BranchReport is one gate of a compile: the Condition step, the steps of
// its branches and the gate it sits in.
type BranchReport struct {
	Gate          catalog.NodeName            `json:"gate"`                  // the DAG node
	ConditionStep catalog.SageMakerStepName   `json:"condition_step"`        // its SageMaker step name
	Parent        catalog.NodeName            `json:"parent_gate,omitempty"` // the gate whose branch holds it
	IfSteps       []catalog.SageMakerStepName `json:"if_steps"`              // run when the condition holds
	ElseSteps     []catalog.SageMakerStepName `json:"else_steps"`            // run when it does not: the Fail step
}

// branches returns the DAG's branches (dag.Branches with the nodes whose
// step is of a control verb as gates); a node under two unrelated gates is
// an *InvalidDAGError.
func (pl *plan) branches() ([]dag.Branch, error) {
	b, err := pl.dag.Branches(func(n catalog.NodeName) bool {
		np := pl.nodes[n]
		return np != nil && np.Step.Info().Control
	})
	var bc *dag.BranchConflictError
	if errors.As(err, &bc) {
		return nil, &InvalidDAGError{Reason: bc.Error(), Nodes: append([]catalog.NodeName{bc.Node}, bc.Gates...), Err: bc}
	}
	return b, err
}

// nestBranches attaches the property files gates declare to the steps
// that write them and moves the steps of each gate's branch into its
// Condition step: a step in a branch no longer lists the gate in
// DependsOn (it sits inside it), and a Condition step does not list the
// step whose report it reads (its Std:JsonGet says so). Steps that did not
// build are left out; a branch whose gate did not build stays at the top.
func (pl *plan) nestBranches(env *buildEnv, def *Definition, branches []dag.Branch, report *Report) {
	for i := range def.Steps {
		if pf := env.propertyFiles[def.Steps[i].Name]; len(pf) > 0 {
			def.Steps[i].PropertyFiles = pf
		}
	}
	if len(branches) == 0 {
		return
	}
	// A step no longer lists a gate in DependsOn, and a gate's own step
	// not the step its report is read from.
	gateStep := map[catalog.SageMakerStepName]bool{}
	reportStep := map[catalog.SageMakerStepName]catalog.SageMakerStepName{}
	for _, b := range branches {
		np := pl.nodes[b.Gate]
		gateStep[np.Name] = true
		if bd, ok := np.Bound[gateInput]; ok {
			reportStep[np.Name] = bd.ProviderStep
		}
	}
	at := map[catalog.SageMakerStepName]int{} // SageMaker step name -> index in def.Steps
	for i := range def.Steps {
		st := &def.Steps[i]
		at[st.Name] = i
		report, readsReport := reportStep[st.Name]
		st.DependsOn = slices.DeleteFunc(st.DependsOn, func(n catalog.SageMakerStepName) bool { return gateStep[n] || readsReport && n == report })
		if len(st.DependsOn) == 0 {
			st.DependsOn = nil
		}
	}
	moved := map[catalog.SageMakerStepName]bool{}
	for _, b := range branches {
		ci, ok := at[pl.nodes[b.Gate].Name]
		if !ok {
			continue
		}
		args := def.Steps[ci].Arguments.(*ConditionArguments)
		br := BranchReport{Gate: b.Gate, ConditionStep: def.Steps[ci].Name, Parent: b.Parent, IfSteps: []catalog.SageMakerStepName{}, ElseSteps: []catalog.SageMakerStepName{}}
		for _, n := range b.Nodes {
			name := pl.nodes[n].Name
			if _, ok := at[name]; !ok {
				continue
			}
			for _, a := range env.added[name] { // before the node's own step, as at the top
				if i, ok := at[a.Name]; ok {
					args.IfSteps = append(args.IfSteps, def.Steps[i])
					moved[a.Name] = true
					br.IfSteps = append(br.IfSteps, a.Name)
				}
			}
			if i, ok := at[name]; ok {
				args.IfSteps = append(args.IfSteps, def.Steps[i])
				moved[name] = true
				br.IfSteps = append(br.IfSteps, name)
			}
		}
		for _, s := range args.ElseSteps {
			br.ElseSteps = append(br.ElseSteps, s.Name)
		}
		report.Branches = append(report.Branches, br)
	}
	// Nested Condition steps were copied into their parent's IfSteps before
	// or after their own IfSteps were filled: their Arguments are shared
	// pointers, so both copies see them.
	def.Steps = slices.DeleteFunc(def.Steps, func(s Step) bool { return moved[s.Name] })
	in := dag.InBranch(branches)
	for i := range report.Nodes {
		report.Nodes[i].Branch = in[report.Nodes[i].Node]
	}
}

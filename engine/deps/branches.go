package deps

import (
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Branches returns the gates of a DAG and the nodes each guards
// (dag.Branches): the nodes whose step, as lookup finds it, is of a
// control verb (a quality gate's Condition). A node lookup does not know
// is no gate. A gate's edges carry no data (it has no outputs): a node
// after a gate reads its inputs through edges of its own.
func Branches(d *dag.PipelineDAG, lookup StepLookup) ([]dag.Branch, error) {
	return d.Branches(func(n catalog.NodeName) bool {
		s, err := lookup(n)
		return err == nil && s != nil && s.Info().Control
	})
}

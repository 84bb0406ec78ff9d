package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/deps"
)

// weakBindingWarnings warn of every input bound to an upstream output at a
// score below deps.HighScore: viable, but matched on little more than its
// type, so worth a look. Each names the binding and its score.
func weakBindingWarnings(r *Report) []string {
	if r == nil {
		return nil
	}
	var parts []string
	for _, n := range r.Nodes {
		for _, b := range n.Inputs {
			if b == nil || b.Source != SourceDependency || b.Score >= deps.HighScore {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s.%s <- %s.%s (score %.3f)", n.Node, b.Input, b.Provider, b.Output, b.Score))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d input(s) bound below the trusted score %.1f: %s; check each is the output meant (validate.deps_explain shows why it matched), or name it in the input's compatible_sources or the output's aliases",
		len(parts), deps.HighScore, strings.Join(parts, "; "))}
}

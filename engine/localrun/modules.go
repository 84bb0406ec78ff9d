package localrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/proc"
)

// frameworkModules are the Python modules a step of a catalog framework
// imports beyond pandas, which every step script reads its data with.
var frameworkModules = map[string][]string{
	"xgboost":  {"xgboost"},
	"pytorch":  {"torch"},
	"lightgbm": {"lightgbm"},
}

// debianPackages name the Debian package of a module where it has one.
var debianPackages = map[string]string{
	"pandas": "python3-pandas", "numpy": "python3-numpy", "sklearn": "python3-sklearn",
	"xgboost": "python3-xgboost", "torch": "python3-torch",
}

// pipNames are the pip package names of modules named otherwise.
var pipNames = map[string]string{"sklearn": "scikit-learn"}

// MissingModulesError is a run's interpreter lacking modules its steps
// import, found before the first step.
type MissingModulesError struct {
	Python  string
	Missing []string          // module names, sorted
	Steps   map[string]string // module -> a step that imports it
}

// Error names the modules, a step needing each, and how to install them.
func (e *MissingModulesError) Error() string {
	var who []string
	for _, m := range e.Missing {
		who = append(who, fmt.Sprintf("%s (step %s)", m, e.Steps[m]))
	}
	var deb, pip []string
	for _, m := range e.Missing {
		if p, ok := debianPackages[m]; ok {
			deb = append(deb, p)
		}
		if p, ok := pipNames[m]; ok {
			pip = append(pip, p)
		} else {
			pip = append(pip, m)
		}
	}
	how := fmt.Sprintf("install them into that interpreter (%s -m pip install %s)", e.Python, strings.Join(pip, " "))
	if len(deb) == len(e.Missing) {
		how += fmt.Sprintf(", or on Debian: apt-get install %s", strings.Join(deb, " "))
	}
	return fmt.Sprintf("the Python interpreter %s cannot import %s, which the run's steps need: %s, or run with another interpreter (the argument python, or %s)",
		e.Python, strings.Join(who, ", "), how, EnvPython)
}

// Kind makes the error a missing capability of this machine.
func (e *MissingModulesError) Kind() errkind.Kind { return errkind.Unsupported }

// Details gives the interpreter and the missing modules.
func (e *MissingModulesError) Details() map[string]any {
	return map[string]any{"python": e.Python, "missing_modules": e.Missing}
}

// neededModules are the modules the run's jobs import, each with a step
// that imports it: pandas for every job that runs a catalog step's
// script, and its framework's library. A step of no catalog type (a
// project's own) brings its own imports, which its job reports.
func (r *run) neededModules() map[string]string {
	need := map[string]string{}
	cat, _ := catalog.Default()
	for _, s := range r.order {
		switch s.Type {
		case "Processing", "Training", "Transform":
		default:
			continue
		}
		if _, managed := managedDataSteps[r.stepType[s.Name]]; managed {
			continue
		}
		if cat == nil {
			break
		}
		st, ok := cat.Step(r.stepType[s.Name])
		if !ok {
			continue // not a catalog step: its imports are its own
		}
		for _, m := range append([]string{"pandas"}, frameworkModules[st.Framework]...) {
			if _, seen := need[m]; !seen {
				need[m] = s.Name
			}
		}
	}
	return need
}

// checkModules probes the interpreter for the modules the run's steps
// import, before the first step runs.
func (r *run) checkModules(python string) error {
	need := r.neededModules()
	if len(need) == 0 {
		return nil
	}
	mods := mapkeys.Sorted(need)
	probe := "import importlib.util, sys\nprint(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))\n"
	res, err := proc.Run(context.Background(), proc.Cmd{Path: python, Args: append([]string{"-c", probe}, mods...),
		Timeout: 60 * time.Second, MemoryBytes: 1 << 30, MaxOutput: 4096})
	if err != nil {
		return fmt.Errorf("%w: %s does not run: %v", ErrNoPython, python, err)
	}
	missing := strings.Fields(string(res.Stdout))
	if len(missing) == 0 {
		return nil
	}
	return &MissingModulesError{Python: python, Missing: missing, Steps: need}
}

package localrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/internal/proc"
)

// EnvPython names the environment variable that, when set, is the Python
// interpreter step scripts run with instead of python3 on PATH.
const EnvPython = "CURSUS_PYTHON"

// ErrNoPython is returned (wrapped) when no Python 3 interpreter is found:
// running scripts is Unsupported on this machine until one is installed.
var ErrNoPython = errkind.New(errkind.Unsupported, "python3 not found")

// Python describes the interpreter scripts run with.
type Python struct {
	// Path is the interpreter's own executable (sys.executable), so that a
	// launcher script on PATH (a pyenv shim) is not needed at run time.
	Path      string `json:"path,omitempty"`
	Version   string `json:"version,omitempty"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why it is unavailable
	// Prefixes are the installation's sys.prefix and sys.base_prefix.
	Prefixes []string `json:"-"`
}

var pythons sync.Map // CURSUS_PYTHON value -> Python

// FindPython returns the interpreter named by $CURSUS_PYTHON, else python3
// on PATH, probed once per value of the variable.
func FindPython() Python {
	name := strings.TrimSpace(os.Getenv(EnvPython))
	if name == "" {
		name = "python3"
	}
	if p, ok := pythons.Load(name); ok {
		return p.(Python)
	}
	p := probePython(name)
	pythons.Store(name, p)
	return p
}

func probePython(name string) Python {
	path, err := exec.LookPath(name)
	if err != nil {
		if strings.ContainsRune(name, filepath.Separator) {
			return Python{Reason: fmt.Sprintf("%s: no such executable file (name a Python 3 interpreter)", name)}
		}
		return Python{Reason: fmt.Sprintf("%s is not on PATH (set %s to a Python 3 interpreter)", name, EnvPython)}
	}
	// The caller's environment, so that a launcher (pyenv) finds its
	// interpreter; the answer is the real executable.
	res, err := proc.Run(context.Background(), proc.Cmd{
		Path: path, Args: []string{"-c", "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable); print(sys.prefix); print(sys.base_prefix)"},
		Env: os.Environ(), Timeout: 30 * time.Second, MemoryBytes: 1 << 30, MaxOutput: 4096,
	})
	if err != nil {
		return Python{Path: path, Reason: fmt.Sprintf("%s does not run: %v", path, err)}
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) < 4 {
		return Python{Path: path, Reason: fmt.Sprintf("%s printed no version", path)}
	}
	v, exe := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	if !strings.HasPrefix(v, "3.") {
		return Python{Path: path, Version: v, Reason: fmt.Sprintf("%s is Python %s; Python 3 is needed", path, v)}
	}
	return Python{Path: exe, Version: v, Available: true, Prefixes: []string{strings.TrimSpace(lines[2]), strings.TrimSpace(lines[3])}}
}

// pythonAt describes the interpreter at path, probed once per path.
func pythonAt(path string) Python {
	if p, ok := pythons.Load(path); ok {
		return p.(Python)
	}
	p := probePython(path)
	pythons.Store(path, p)
	return p
}

// RequirePython returns the interpreter's path, or an error wrapping
// ErrNoPython that says why there is none.
func RequirePython() (string, error) {
	p := FindPython()
	if !p.Available {
		return "", fmt.Errorf("%w: %s", ErrNoPython, p.Reason)
	}
	return p.Path, nil
}

// Ready says whether a local run of scripts that import modules can run
// here in the sandbox: nil, or an error naming what is missing (the
// interpreter, the modules it cannot import, a working bubblewrap).
func Ready(modules ...string) error {
	p := FindPython()
	if !p.Available {
		return fmt.Errorf("%w: %s", ErrNoPython, p.Reason)
	}
	if len(modules) > 0 {
		probe := "import importlib.util, sys\nprint(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))\n"
		res, err := proc.Run(context.Background(), proc.Cmd{Path: p.Path, Args: append([]string{"-c", probe}, modules...),
			Timeout: 60 * time.Second, MemoryBytes: 1 << 30, MaxOutput: 4096})
		if err != nil {
			return fmt.Errorf("probe %s: %w", p.Path, err)
		}
		if missing := strings.TrimSpace(string(res.Stdout)); missing != "" {
			return fmt.Errorf("the interpreter %s cannot import %s (set %s to one that can, e.g. /usr/bin/python3 with Debian's python3-pandas python3-sklearn python3-xgboost python3-torch)", p.Path, missing, EnvPython)
		}
	}
	if kind, why := DetectSandbox(); kind != Bubblewrap {
		if kind == "" {
			return &SandboxError{Reason: why}
		}
		return fmt.Errorf("bubblewrap cannot run here: %s", why)
	}
	return nil
}

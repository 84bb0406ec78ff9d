package testenv

import (
	"os"
	"os/exec"
)

// EnvPython is the variable that names the Python interpreter step scripts
// run with (localrun.EnvPython; repeated here, below the engine).
const EnvPython = "CURSUS_PYTHON"

// DebianPython is where Debian's python3 lives, the one the apt packages
// the README lists (python3-pandas, python3-sklearn, python3-xgboost,
// python3-torch) install into.
const DebianPython = "/usr/bin/python3"

// Every test binary that imports this package runs Python with one
// interpreter: CURSUS_PYTHON when it is set, else DebianPython when it
// exists, else python3 on PATH. Setting the variable here, before any
// test runs, gives the same answer to the tests that resolve the
// interpreter themselves (Python), to the product's own resolution
// (localrun.FindPython reads CURSUS_PYTHON) and to the servers and CLIs
// the tests start (they inherit the environment): without it a python3
// on PATH without the ML stack (a pyenv shim) made some tests skip while
// others ran their scripts with /usr/bin/python3.
func init() {
	if os.Getenv(EnvPython) != "" {
		return
	}
	if _, err := os.Stat(DebianPython); err == nil {
		os.Setenv(EnvPython, DebianPython)
	}
}

// Python returns the interpreter tests run Python with (see the package's
// init): CURSUS_PYTHON's path, else python3's on PATH, or "" when there is
// none.
func Python() string {
	name := os.Getenv(EnvPython)
	if name == "" {
		name = "python3"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return path
}

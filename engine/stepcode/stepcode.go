// Package stepcode holds the Python code Cursus ships for its step types
// and serves it as one embedded file system (FS). The code lives in
// scripts/ of this package:
//
//	<entry_point>                  a Processing, Training or Tuning step's script
//	                               (xgboost_training.py; steps with the same entry
//	                               point share it)
//	inference/<framework>/         model-serving code (xgboost, pytorch, lightgbm):
//	                               inference.py and its helper modules
//	steplib/                       helpers several scripts share
//	requirements/<name>.txt        pip requirements a step's image lacks (a step
//	                               file's contract.requirements_file)
//
// The step catalog (engine/catalog) decides which code a step uses and
// how it is bundled; this package only holds the code. The scripts run
// for real on small data in codetest and xgboosttest (the scripts' own
// tests), through engine/compiler/scripttest (one step compiled alone and
// run in a bubblewrap sandbox as its container would run it), which sits
// above the compiler it uses.
package stepcode

import (
	"embed"
	"io/fs"
)

// Dir is the directory of this package that holds the code; it is also
// the name the catalog gives embedded code in messages and manifests
// ("embedded:scripts/<path>").
const Dir = "scripts"

// all: keeps helper modules such as __init__.py; the catalog skips caches
// and dot files when it lists code.
//
//go:embed all:scripts
var embedded embed.FS

var root = func() fs.FS {
	sub, err := fs.Sub(embedded, Dir)
	if err != nil { // cannot happen: Dir is a valid path
		panic(err)
	}
	return sub
}()

// FS returns the embedded code, rooted at scripts/ (so "xgboost_training.py",
// "steplib/splits.py", "inference/pytorch/inference.py").
func FS() fs.FS { return root }

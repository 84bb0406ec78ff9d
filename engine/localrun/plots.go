package localrun

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Plot is an image a step wrote into one of its outputs (an evaluation's
// ROC and precision-recall curves, a calibration's reliability diagram),
// so that a run's answer names what it drew.
type Plot struct {
	Step   string `json:"step"`
	Output string `json:"output"`
	// Name is the file's path inside the output; Path its absolute local
	// path.
	Name string `json:"name"`
	Path string `json:"path"`
}

// maxPlots bounds the plots listed of one step.
const maxPlots = 50

// plotExts are the file types listed as plots.
var plotExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".svg": true, ".gif": true, ".pdf": true}

// plotsOf lists the plots in a step's output folders, by output name and
// then path. Only regular files count (a link the job made is not
// followed).
func plotsOf(step string, outputs map[string]string) []Plot {
	var out []Plot
	names := make([]string, 0, len(outputs))
	for o := range outputs {
		names = append(names, o)
	}
	sort.Strings(names)
	for _, o := range names {
		root := outputs[o]
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxPlots {
				return fs.SkipDir
			}
			if !d.Type().IsRegular() || !plotExts[strings.ToLower(filepath.Ext(p))] {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil
			}
			out = append(out, Plot{Step: step, Output: o, Name: filepath.ToSlash(rel), Path: p})
			return nil
		})
	}
	return out
}

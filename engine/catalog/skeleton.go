package catalog

import "bytes"

// The marks of a script skeleton (written by the project scaffolder for a
// project's own step): its docstring carries SkeletonHeader, and the hook
// that asks for the step's logic has a line starting with SkeletonTODO.
// They live here, beside the step code, so that every package that looks
// at code (the scaffolder writing it, the compiler's readiness gate and the
// authoring workflow judging it) shares one definition.
const (
	SkeletonHeader = "a skeleton written by cursus project.init"
	SkeletonTODO   = "TODO: replace "
)

// IsSkeletonScript reports whether a script is still an untouched
// skeleton: it keeps SkeletonHeader and a line starting with SkeletonTODO.
// Writing the logic means removing that TODO line; a script that keeps it
// is taken as untouched.
func IsSkeletonScript(script []byte) bool {
	if !bytes.Contains(script, []byte(SkeletonHeader)) {
		return false
	}
	for _, line := range bytes.Split(script, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(SkeletonTODO)) {
			return true
		}
	}
	return false
}

//go:build !linux

package localrun

import "errors"

// seccompProgram: the filter is Linux's (seccomp.go).
func seccompProgram() ([]byte, error) {
	return nil, errors.New("seccomp filters are Linux's: no bubblewrap sandbox here")
}

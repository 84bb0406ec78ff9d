//go:build !linux

package localrun

import "errors"

// staging is Linux's (stage_linux.go): a root runner elsewhere has no
// bubblewrap sandbox.
type staging struct{}

func newStaging() (*staging, error) {
	return nil, &SandboxError{Reason: "bubblewrap sandboxes run on Linux only"}
}

func (s *staging) add(hostPath) string { return "" }

func (s *staging) remove() {}

func (s *staging) setup() (func(), error) { return nil, errors.New("no staging here") }

//go:build !linux

package server

import "os"

// pollable returns nil: outside Linux there is no way to make a
// non-blocking description of stdin that is ours alone, so stdin is read
// as it is (see the Linux version for why it matters).
func pollable(*os.File) *os.File { return nil }

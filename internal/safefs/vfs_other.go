//go:build !linux

package safefs

import "os"

// virtualFS is Linux-only; elsewhere /proc-like files are still refused
// when they are not regular files.
func virtualFS(*os.File) string { return "" }

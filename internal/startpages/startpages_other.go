//go:build !linux

package startpages

// Release does nothing on this platform (see the package doc).
func Release() (int64, error) { return 0, nil }

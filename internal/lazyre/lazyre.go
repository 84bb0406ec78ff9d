// Package lazyre compiles a regular expression on first use. A package
// that declares its patterns at package level with regexp.MustCompile
// compiles them while the process starts, before main, whether or not the
// process ever uses the package; declared with New, a pattern costs
// nothing until it is matched.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern the first time it is
// called and returns that *regexp.Regexp ever after (safe for concurrent
// use). A pattern that does not compile panics on that first call, as
// regexp.MustCompile does.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

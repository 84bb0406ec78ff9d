//go:build race

package tools_test

// raceEnabled says the test binary runs under the race detector.
const raceEnabled = true

package server

import "time"

// SetDrainGrace shortens the end-of-input grace period for a test and
// returns the function that restores it.
func SetDrainGrace(d time.Duration) func() {
	old := drainGrace
	drainGrace = d
	return func() { drainGrace = old }
}

// DirectAnswers is how many tool calls the stdio connection has answered
// without the SDK's session (directConn) since the process started.
func DirectAnswers() uint64 { return directAnswers.Load() }

// PlainCall exposes plainCall.
var PlainCall = plainCall

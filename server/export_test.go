package server

import "time"

// SetDrainGrace shortens the end-of-input grace period for a test and
// returns the function that restores it.
func SetDrainGrace(d time.Duration) func() {
	old := drainGrace
	drainGrace = d
	return func() { drainGrace = old }
}

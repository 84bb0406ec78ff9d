//go:build linux

package proc

import (
	"os/exec"
	"testing"
	"time"
)

// TestAwaitExitWaitsInBoundedPolls: while the child runs, awaitExit's
// waits end without its exit (they are bounded: a wait that blocked for
// the child's whole run would never end here, and the test's limit would
// fail it); once the child exits, awaitExit returns with the child exited
// and not reaped, so Wait collects it without waiting.
func TestAwaitExitWaitsInBoundedPolls(t *testing.T) {
	prevPoll, prevEnded := exitPoll, pollEnded
	ended := make(chan struct{}, 100)
	exitPoll = 20 * time.Millisecond
	pollEnded = func() {
		select {
		case ended <- struct{}{}:
		default:
		}
	}
	t.Cleanup(func() { exitPoll, pollEnded = prevPoll, prevEnded })

	cmd := exec.Command("sh", "-c", "read line; exit 0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh here: %v", err)
	}
	wakes := make(chan int, 1)
	go func() { wakes <- awaitExit(cmd.Process) }()
	for i := range 3 { // the child runs until its input ends
		select {
		case <-ended:
		case w := <-wakes:
			t.Fatalf("awaitExit returned (after %d wakes) while the child ran", w)
		case <-time.After(time.Minute):
			t.Fatalf("awaitExit's wait %d did not end within a minute: its waits are not bounded", i+1)
		}
	}
	stdin.Close()
	var w int
	select {
	case w = <-wakes:
	case <-time.After(time.Minute):
		t.Fatal("awaitExit did not return a minute after the child's input ended")
	}
	if w < 3 {
		t.Fatalf("awaitExit reported %d wakes, want at least the 3 seen", w)
	}
	if !isZombie(cmd.Process.Pid) {
		t.Fatalf("after awaitExit, process %d has not exited, or was reaped", cmd.Process.Pid)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Wait after awaitExit: %v", err)
	}
}

func TestAwaitExitOfAnExitedChildReturnsAtOnce(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("no true(1) here: %v", err)
	}
	awaitExit(cmd.Process)
	// Exited but not reaped: a second wait finds the exit without a timeout.
	if wakes := awaitExit(cmd.Process); wakes != 0 {
		t.Fatalf("awaitExit of an exited child woke %d times", wakes)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("state after awaitExit and Wait: %v", cmd.ProcessState)
	}
}

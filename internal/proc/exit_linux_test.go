//go:build linux

package proc

import (
	"os/exec"
	"testing"
	"time"
)

func TestAwaitExitWaitsInBoundedPolls(t *testing.T) {
	prev := exitPoll
	exitPoll = 20 * time.Millisecond
	t.Cleanup(func() { exitPoll = prev })

	cmd := exec.Command("sleep", "0.5")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep(1) here: %v", err)
	}
	began := time.Now()
	wakes := awaitExit(cmd.Process)
	waited := time.Since(began)
	if waited < 400*time.Millisecond {
		t.Fatalf("awaitExit returned after %v, before the child's 0.5 s were over", waited)
	}
	// 0.5 s in polls of 20 ms: about 25 that end without the exit. Fewer
	// than 5 would mean one poll blocked for most of the child's run.
	if wakes < 5 {
		t.Fatalf("awaitExit woke %d times in %v: its polls are not bounded by %v", wakes, waited, exitPoll)
	}
	// The child has exited and is not yet reaped: Wait collects it at once.
	reaped := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Wait after awaitExit: %v", err)
	}
	if d := time.Since(reaped); d > time.Second {
		t.Fatalf("Wait after awaitExit took %v", d)
	}
}

func TestAwaitExitOfAnExitedChildReturnsAtOnce(t *testing.T) {
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

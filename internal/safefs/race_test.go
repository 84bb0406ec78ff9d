package safefs

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var swapFor = flag.Duration("swap-race", time.Second, "how long TestSymlinkSwapRace swaps a directory for a symbolic link")

// TestSymlinkSwapRace writes into runs/ while another goroutine keeps
// swapping runs/ for a symbolic link out of the root and back: not one file
// may land outside the root, and no temporary file may stay anywhere.
// `go test -run SymlinkSwapRace -swap-race 10s ./internal/safefs` is the
// long measurement.
func TestSymlinkSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	runs := filepath.Join(root, "runs")
	for _, d := range []string{runs, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := confined(t, root)
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		parked := filepath.Join(root, "runs.real")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(runs, parked) == nil {
				_ = os.Symlink(outside, runs)
				swaps.Add(1)
				_ = os.Remove(runs)
				// A write may have made a fresh runs/ in the instant it
				// was absent: drop it and put the real one back.
				for os.Rename(parked, runs) != nil {
					_ = os.RemoveAll(runs)
				}
			}
		}
	}()
	deadline := time.Now().Add(*swapFor)
	var writes, refused int
	for i := 0; time.Now().Before(deadline); i++ {
		if err := f.WriteFile(fmt.Sprintf("runs/r%d/dag.json", i%50), []byte(`{"dag":{}}`), 0o644); err != nil {
			refused++
		}
		writes++
	}
	close(stop)
	wg.Wait()
	escapes, _ := os.ReadDir(outside)
	t.Logf("%d writes (%d refused: runs/ was a link or mid-swap), %d swaps in %v: %d files outside the root", writes, refused, swaps.Load(), *swapFor, len(escapes))
	if len(escapes) != 0 {
		t.Errorf("%d files escaped the root: %v", len(escapes), escapes)
	}
	if swaps.Load() == 0 {
		t.Error("the swapper never swapped: the test proved nothing")
	}
	noTemps(t, base)
}

// TestKilledWriteLeavesNoTemp kills a process in the middle of writing big
// files: no temporary file may be left (the content is written to an
// unnamed file, named only once complete).
func TestKilledWriteLeavesNoTemp(t *testing.T) {
	if dir := os.Getenv("SAFEFS_KILL_CHILD"); dir != "" {
		data := []byte(strings.Repeat("0123456789abcdef", 4<<20)) // 64 MiB
		f, err := New(Options{Root: dir})
		if err != nil {
			os.Exit(3)
		}
		for i := 0; ; i++ {
			_ = f.WriteFile(fmt.Sprintf("out/%d.bin", i%2), data, 0o644)
		}
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriteLeavesNoTemp$")
		cmd.Env = append(os.Environ(), "SAFEFS_KILL_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write a while, then kill it mid-write.
		deadline := time.Now().Add(20 * time.Second)
		for !exists(filepath.Join(dir, "out", "0.bin")) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(150+round*70) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	if !exists(filepath.Join(dir, "out", "0.bin")) {
		t.Fatal("the child never wrote")
	}
	noTemps(t, dir)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

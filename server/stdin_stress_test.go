//go:build unix && stress

package server

import (
	"bufio"
	"runtime"
	"testing"
	"time"
)

// TestStdinWaitsAreBounded: the client-and-server exchange that stalls the
// Go runtime when the server reads stdin in a blocking read(2) (a
// stop-the-world starting right as the reader goes back to wait for the
// next line waits for that read, and the read for the client, until the
// runtime's monitor takes the reader's processor away: 60 s later when
// nothing else is scheduled, here when the test's timer fires) runs
// through a waitingReader with no exchange waiting more than its bounded
// poll. With a plain *os.File it fails within a few thousand exchanges on
// Go 1.26. It takes about 40 s: it runs with -tags stress (.ci/run does).
func TestStdinWaitsAreBounded(t *testing.T) {
	t.Parallel()
	r, w := blockingPipe(t)
	in := waitingStdin(r)
	if in == nil {
		t.Fatal("waitingStdin refused a blocking pipe")
	}
	lines := make(chan []byte)
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	const exchanges = 6000
	// A stall lasts until the runtime's monitor steps in, 60 s; no
	// exchange that does not stall comes near the limit.
	const limit = 20 * time.Second
	for i := range exchanges {
		deadline := time.Now().Add(limit)
		if _, err := w.WriteString("ping\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-lines:
		case <-time.After(limit):
			t.Fatalf("exchange %d: no line within %v", i, limit)
		}
		runtime.GC() // stops the world while the reader goes back to wait
		if time.Now().After(deadline) {
			t.Fatalf("exchange %d outlived its %v limit: the reader and a stop-the-world waited on each other", i, limit)
		}
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
}

//go:build unix

package boundedpoll

import (
	"os"
	"testing"
	"time"
)

// TestReadable: a wait on an empty pipe ends, not ready (a wait that did
// not end would hang the test: that is the bound); a pipe with input or at
// its end is ready.
func TestReadable(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()

	if ready, err := Readable(r.Fd(), 30*time.Millisecond); err != nil || ready {
		t.Fatalf("an empty pipe: ready=%v, err=%v", ready, err)
	}

	if _, err := w.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if ready, err := Readable(r.Fd(), time.Minute); err != nil || !ready {
		t.Fatalf("a pipe with input: ready=%v, err=%v", ready, err)
	}
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if ready, err := Readable(r.Fd(), time.Minute); err != nil || !ready {
		t.Fatalf("a pipe at its end: ready=%v, err=%v", ready, err)
	}
}

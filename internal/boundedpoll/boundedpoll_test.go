//go:build unix

package boundedpoll

import (
	"os"
	"testing"
	"time"
)

func TestReadable(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()

	start := time.Now()
	ready, err := Readable(r.Fd(), 30*time.Millisecond)
	if err != nil || ready {
		t.Fatalf("an empty pipe: ready=%v, err=%v", ready, err)
	}
	if took := time.Since(start); took < 20*time.Millisecond || took > 5*time.Second {
		t.Fatalf("an empty pipe's wait took %v, want about 30 ms", took)
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

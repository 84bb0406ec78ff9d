package server

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// idleAfter waits until p has n idle workers, failing after a while.
func idleAfter(t *testing.T, p *warmPool, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.idle.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("idle workers: got %d, want %d", p.idle.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWarmPoolRunsOnAWorkerAndReusesIt(t *testing.T) {
	p := newWarmPool(2, time.Minute)
	ran := 0
	p.run(func() { ran++ })
	if ran != 1 {
		t.Fatalf("run returned before fn ran (ran=%d)", ran)
	}
	idleAfter(t, p, 1)
	// The idle worker takes the next call: none starts, so one stays idle.
	p.run(func() { ran++ })
	idleAfter(t, p, 1)
	if ran != 2 {
		t.Fatalf("ran=%d, want 2", ran)
	}
}

func TestWarmPoolCallsDoNotQueue(t *testing.T) {
	// Calls that block each other's progress must all be running at once:
	// the pool never makes a call wait for a worker.
	p := newWarmPool(1, time.Minute)
	const n = 8
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var done sync.WaitGroup
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			p.run(func() { started.Done(); <-release })
		}()
	}
	waited := make(chan struct{})
	go func() { started.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("not every call was running at once")
	}
	close(release)
	done.Wait()
	// Of the eight workers, maxIdle (1) waits; the others ended. A count
	// of 1 could be a moment on the way to 8: it must still be 1 once the
	// others have had time to finish.
	idleAfter(t, p, 1)
	time.Sleep(100 * time.Millisecond)
	if n := p.idle.Load(); n != 1 {
		t.Fatalf("idle workers after a burst of 8: %d, want maxIdle (1)", n)
	}
}

func TestWarmPoolWorkersEndAfterLinger(t *testing.T) {
	p := newWarmPool(4, 200*time.Millisecond)
	p.run(func() {})
	// run returns before the worker counts itself idle: see it wait, then
	// see it end.
	idleAfter(t, p, 1)
	idleAfter(t, p, 0)
}

func TestWarmPoolRaisesThePanicOnTheCaller(t *testing.T) {
	p := newWarmPool(2, time.Minute)
	var got any
	func() {
		defer func() { got = recover() }()
		p.run(func() { panic("boom") })
	}()
	if got != "boom" {
		t.Fatalf("recovered %v, want boom", got)
	}
	// The worker survived the panic and takes the next call.
	idleAfter(t, p, 1)
	var ok atomic.Bool
	p.run(func() { ok.Store(true) })
	if !ok.Load() {
		t.Fatal("the call after a panic did not run")
	}
}

// deep recurses n frames of about 1 KB each: a call whose stack outgrows
// a new goroutine's.
//
//go:noinline
func deep(n int) int {
	var pad [1024]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%len(pad)])
}

// BenchmarkDeepCall compares a call whose stack outgrows a new
// goroutine's, run on a goroutine started for it (as the SDK runs a
// request) and on the warm pool.
func BenchmarkDeepCall(b *testing.B) {
	b.Run("new-goroutine", func(b *testing.B) {
		for b.Loop() {
			done := make(chan struct{})
			go func() { deep(24); close(done) }()
			<-done
		}
	})
	b.Run("warm-pool", func(b *testing.B) {
		p := newWarmPool(2, time.Minute)
		for b.Loop() {
			done := make(chan struct{})
			go func() { p.run(func() { deep(24) }); close(done) }()
			<-done
		}
	})
}

package server

import (
	"runtime"
	"sync/atomic"
	"time"
)

// warmPool runs tool calls on long-lived goroutines, so that a call does
// not pay to grow a new goroutine's stack.
//
// The SDK handles each request on a goroutine it starts for it, with the
// runtime's smallest stack. Running a tool and encoding its envelope goes
// deep enough (encoding/json's reflection, the argument checker) to grow
// that stack two or three times, each growth copying it: measured, 11-16 %
// of a cheap call's CPU (runtime.newstack in the profile of
// BenchmarkCheapCallRawStdio). A worker of the pool keeps the stack it grew,
// until the collector halves a parked one's.
//
// run hands the call to an idle worker, or starts one when none is idle,
// so calls never queue behind each other: the pool bounds how many workers
// wait, not how many run. A worker that finishes while maxIdle others wait
// ends, as does one that waited linger for work.
type warmPool struct {
	jobs    chan *warmJob // unbuffered: a send succeeds only when a worker waits
	idle    atomic.Int32  // workers waiting on jobs
	maxIdle int32
	linger  time.Duration
}

// warmJob is one call handed to a worker.
type warmJob struct {
	fn    func()
	done  chan struct{} // closed when fn returned; nil for a job nobody waits for (start)
	panic any           // what fn panicked with, raised again on the caller's goroutine
}

// warm is the pool every server's tool calls run on.
var warm = newWarmPool(max(2, runtime.GOMAXPROCS(0)), time.Minute)

func newWarmPool(maxIdle int, linger time.Duration) *warmPool {
	return &warmPool{jobs: make(chan *warmJob), maxIdle: int32(maxIdle), linger: linger}
}

// run calls fn on a worker and returns when fn has returned. A panic of fn
// is raised again here, so the caller sees what it would have seen calling
// fn itself.
func (p *warmPool) run(fn func()) {
	j := &warmJob{fn: fn, done: make(chan struct{})}
	select {
	case p.jobs <- j:
	default:
		go p.work(j)
	}
	<-j.done
	if j.panic != nil {
		panic(j.panic)
	}
}

// start runs fn on a worker and returns at once. Nobody waits for fn: a
// panic of fn ends the process, as it would on a goroutine of its own.
func (p *warmPool) start(fn func()) {
	j := &warmJob{fn: fn}
	select {
	case p.jobs <- j:
	default:
		go p.work(j)
	}
}

// work runs j, then the jobs handed to it, until it has waited linger for
// one or finishes a job while maxIdle workers already wait.
func (p *warmPool) work(j *warmJob) {
	t := time.NewTimer(p.linger)
	defer t.Stop()
	for {
		j.call()
		if p.idle.Add(1) > p.maxIdle {
			p.idle.Add(-1)
			return
		}
		t.Reset(p.linger)
		var ok bool
		select {
		case j, ok = <-p.jobs:
		case <-t.C:
		}
		p.idle.Add(-1)
		if !ok {
			return
		}
	}
}

// call runs the job's function and, when a caller waits for it, signals
// that caller, even when the function panics.
func (j *warmJob) call() {
	if j.done == nil {
		j.fn()
		return
	}
	defer close(j.done)
	defer func() { j.panic = recover() }()
	j.fn()
}

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultMaxOutput caps each captured stream when Cmd.MaxOutput is 0.
const DefaultMaxOutput = 1 << 20

// drainDelay bounds the wait for the output pipes after the child exited
// and its group was killed.
const drainDelay = 2 * time.Second

// ErrTimeout is returned (wrapped) when a child ran past Cmd.Timeout.
var ErrTimeout = errors.New("time limit exceeded")

// ErrOutputLimit is returned (wrapped) when a child wrote more than
// Cmd.MaxOutput bytes to stdout with Cmd.FailOnOverflow set.
var ErrOutputLimit = errors.New("output limit exceeded")

// Cmd is one child process to run.
type Cmd struct {
	Path string   // program (looked up on PATH when it has no slash)
	Args []string // arguments after the program name
	Env  []string // the child's whole environment ("K=V"); nil is empty
	Dir  string   // working directory ("" = the caller's)
	// Stdin is the child's whole standard input; nil gives it /dev/null.
	// It is handed over, never inherited.
	Stdin []byte

	// Timeout bounds the run (0: only the context bounds it).
	Timeout time.Duration
	// MemoryBytes is the child's address-space limit (RLIMIT_AS); 0 sets
	// none. Only Linux applies it (MemoryLimitSupported), as it does
	// FileBytes and Processes.
	MemoryBytes int64
	// FileBytes is the largest file the child may write (RLIMIT_FSIZE; a
	// write past it fails and the child gets SIGXFSZ); 0 sets none.
	FileBytes int64
	// Processes bounds the processes and threads the child's user may have
	// (RLIMIT_NPROC; the kernel counts every process of that user, see
	// UserTasks); 0 sets none.
	Processes int
	// MaxOutput caps each captured stream (DefaultMaxOutput when 0).
	MaxOutput int
	// CombinedOutput sends stderr to the stdout capture, in order, as one
	// log; Result.Stderr is then empty.
	CombinedOutput bool
	// FailOnOverflow kills the child when stdout passes MaxOutput and
	// makes Run return ErrOutputLimit (for output that is data, where a cut
	// is worse than a failure). Otherwise the newest bytes are kept.
	FailOnOverflow bool

	// ExtraFiles are open files the child inherits as descriptors 3, 4,
	// ... (in order); the caller keeps and closes them.
	ExtraFiles []*os.File
	// User, when set, is the user and group the child runs as, with no
	// supplementary groups (on Unix; the caller needs the privilege to
	// switch to them).
	User *User
	// Stop, when set, is called whenever Run kills the child's process
	// group (the time limit, cancellation, an output overflow, and after
	// the child exited): it ends what the group kill cannot reach, such as
	// a sandbox's processes in a session of their own. It may be called
	// more than once, and from another goroutine.
	Stop func()
	// Setup, when set, runs on the OS thread that starts the child, right
	// before it starts, and may change that thread's own state (its mount
	// namespace, say) for the child to inherit; cleanup (when not nil) runs
	// on the same thread once the child has been reaped. That thread is
	// never the program's main thread and is never used again: it ends
	// with the run.
	Setup func() (cleanup func(), err error)
}

// User is a user and group id a child runs as (Cmd.User).
type User struct {
	UID, GID uint32
}

// Result is what a child did.
type Result struct {
	Stdout []byte
	Stderr []byte
	// StdoutDropped and StderrDropped count the bytes not kept (the oldest
	// ones) when a stream passed its cap.
	StdoutDropped int64
	StderrDropped int64
	ExitCode      int    // -1 when the child was killed by a signal
	Signal        string // the signal that ended it, if any
	TimedOut      bool
	Duration      time.Duration
}

// ExitError is a child that exited with a non-zero status or was killed
// by a signal (not by Run's own time limit or cancellation).
type ExitError struct {
	Code   int
	Signal string
	// MemoryBytes is the limit the child ran under, for the message.
	MemoryBytes int64
	// Tail is the end of its stderr (of its log with CombinedOutput).
	Tail string
}

// Error gives the status (or signal), the memory limit when it may have
// been hit, and the last line of the output.
func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != "" {
		fmt.Fprintf(&b, "killed by signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "exit status %d", e.Code)
	}
	if e.MemoryBytes > 0 && (e.Signal == "segmentation fault" || e.Signal == "aborted" || e.Signal == "killed" ||
		strings.Contains(e.Tail, "MemoryError") || strings.Contains(e.Tail, "Cannot allocate memory") || strings.Contains(e.Tail, "bad_alloc")) {
		fmt.Fprintf(&b, " (the memory limit is %d MiB)", e.MemoryBytes>>20)
	}
	if l := LastLine(e.Tail); l != "" {
		b.WriteString(": ")
		b.WriteString(l)
	}
	return b.String()
}

// Run starts the child, waits for it and returns what it did. The
// returned Result is non-nil whenever the child started. err is nil for an
// exit status of 0, an *ExitError for another status, ErrTimeout (wrapped)
// past the time limit, ErrOutputLimit (wrapped) past the output cap with
// FailOnOverflow, ctx.Err() when the context ended first, or the error
// that kept the child from starting.
func Run(ctx context.Context, c Cmd) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.Setup == nil {
		return run(ctx, c, false)
	}
	var (
		res *Result
		err error
	)
	onOwnThread(func() { res, err = run(ctx, c, true) })
	return res, err
}

// onOwnThread runs fn on an OS thread of its own that is not the main
// thread and ends after fn (fn may change the thread's state).
func onOwnThread(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if onMainThread() {
			// The main thread cannot end: keep it (locked, waiting) so that
			// the scheduler runs fn elsewhere, and hand it back untouched.
			onOwnThread(fn)
			runtime.UnlockOSThread()
			return
		}
		fn()
	}()
	<-done
}

// run is Run; ownThread says it already holds a thread of its own that is
// not to be handed back.
func run(ctx context.Context, c Cmd, ownThread bool) (*Result, error) {
	runCtx := ctx
	var cancelTimeout context.CancelFunc = func() {}
	if c.Timeout > 0 {
		runCtx, cancelTimeout = context.WithTimeout(ctx, c.Timeout)
	}
	defer cancelTimeout()
	// overflow ends the child when a data stream passes its cap.
	runCtx, overflow := context.WithCancelCause(runCtx)
	defer overflow(nil)

	max := c.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	stdout := &capture{max: max}
	stderr := &capture{max: max}
	if c.FailOnOverflow {
		stdout.onOverflow = func() { overflow(ErrOutputLimit) }
	}

	path, err := exec.LookPath(c.Path)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	if c.User != nil && !UserSupported {
		return nil, fmt.Errorf("start %s: running as another user is not supported here", c.Path)
	}
	args := c.Args
	if MemoryLimitSupported && (c.MemoryBytes > 0 || c.FileBytes > 0 || c.Processes > 0) {
		path, args = withLimits(c, path, args)
	}
	cmd := exec.CommandContext(runCtx, path, args...)
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = c.Dir
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	} // else /dev/null
	// Bounds the wait for the stdin copy once the child exited (the output
	// pipes are drained here, below).
	cmd.WaitDelay = drainDelay
	// The child writes into pipes this function drains itself, so that it
	// can kill the group as soon as the child exits: a background
	// grandchild holding the pipe open then cannot keep Run waiting.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer outR.Close()
	cmd.Stdout = outW
	var errR, errW *os.File
	if c.CombinedOutput {
		cmd.Stderr = outW
	} else {
		if errR, errW, err = os.Pipe(); err != nil {
			outW.Close()
			return nil, err
		}
		defer errR.Close()
		cmd.Stderr = errW
	}
	cmd.ExtraFiles = c.ExtraFiles
	isolate(cmd)
	setUser(cmd, c.User)
	if c.Stop != nil {
		groupKill := cmd.Cancel
		cmd.Cancel = func() error {
			c.Stop()
			if groupKill != nil {
				return groupKill()
			}
			return cmd.Process.Kill()
		}
	}

	// Pdeathsig fires when the thread that forked the child exits, so the
	// thread stays with this goroutine until the child has been reaped.
	runtime.LockOSThread()
	if !ownThread {
		defer runtime.UnlockOSThread()
	}
	if c.Setup != nil {
		cleanup, err := c.Setup()
		if err != nil {
			outW.Close()
			if errW != nil {
				errW.Close()
			}
			return nil, err
		}
		if cleanup != nil {
			defer cleanup()
		}
	}
	began := time.Now()
	err = cmd.Start()
	outW.Close()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	var drained sync.WaitGroup
	drain := func(r *os.File, w *capture) {
		drained.Add(1)
		go func() {
			defer drained.Done()
			_, _ = io.Copy(w, r)
		}()
	}
	drain(outR, stdout)
	if errR != nil {
		drain(errR, stderr)
	}
	awaitExit(cmd.Process) // so that Wait's waitid(2) does not block (awaitExit)
	waitErr := cmd.Wait()
	killGroup(cmd) // whatever the child left behind in its group
	if c.Stop != nil {
		c.Stop()
	}
	done := make(chan struct{})
	go func() { drained.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainDelay):
		// A process outside the group still holds a pipe: stop reading.
		outR.Close()
		if errR != nil {
			errR.Close()
		}
		<-done
	}
	res := &Result{
		Stdout: stdout.bytes(), Stderr: stderr.bytes(), StdoutDropped: stdout.dropped, StderrDropped: stderr.dropped,
		Duration: time.Since(began),
	}
	if st := cmd.ProcessState; st != nil {
		res.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	}
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.Is(context.Cause(runCtx), ErrOutputLimit):
		return res, fmt.Errorf("%s wrote more than %d bytes to stdout: %w", c.Path, max, ErrOutputLimit)
	case c.Timeout > 0 && runCtx.Err() != nil:
		res.TimedOut = true
		return res, fmt.Errorf("%s ran longer than %s: %w", c.Path, c.Timeout, ErrTimeout)
	case waitErr == nil:
		return res, nil
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		tail := res.Stderr
		if c.CombinedOutput {
			tail = res.Stdout
		}
		return res, &ExitError{Code: res.ExitCode, Signal: res.Signal, MemoryBytes: c.MemoryBytes, Tail: Tail(tail, 4096)}
	}
	return res, waitErr
}

// Tail returns the last n bytes of b as trimmed text, starting at a line
// boundary when one is near.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < 200 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}

// LastLine returns the last non-blank line of s, trimmed.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// capture is an io.Writer that keeps at most max bytes: the newest ones,
// counting what it drops. It is safe for the two copy goroutines of
// exec.Cmd writing to it at once (CombinedOutput).
type capture struct {
	mu         sync.Mutex
	max        int
	buf        []byte
	dropped    int64
	onOverflow func()
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if len(c.buf)+len(p) > c.max {
		if c.onOverflow != nil {
			c.onOverflow()
			c.onOverflow = nil
		}
		if len(p) >= c.max {
			c.dropped += int64(len(c.buf) + len(p) - c.max)
			c.buf = append(c.buf[:0], p[len(p)-c.max:]...)
			return n, nil
		}
		cut := len(c.buf) + len(p) - c.max
		c.dropped += int64(cut)
		c.buf = append(c.buf[:0], c.buf[cut:]...)
	}
	c.buf = append(c.buf, p...)
	return n, nil
}

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf...)
}

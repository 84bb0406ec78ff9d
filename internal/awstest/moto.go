//go:build unix

package awstest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/testenv"
)

// Moto is a moto_server process started by a test.
type Moto struct {
	// Endpoint is http://127.0.0.1:<port>.
	Endpoint string
	cmd      *exec.Cmd
	log      *syncBuffer
	exited   chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// StartMoto starts moto_server on a free 127.0.0.1 port, waits until it answers, and stops it (its
// whole process group, by id: the pyenv shim runs moto under a shell) when t ends. Without
// moto_server on PATH it skips t, or fails it under CI.
func StartMoto(t testing.TB) *Moto {
	t.Helper()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		testenv.Missing(t, "moto_server is not on PATH (pip install 'moto[server]')")
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		start := time.Now()
		m, err := launch(bin)
		if err == nil {
			t.Logf("moto_server ready at %s in %v", m.Endpoint, time.Since(start).Round(time.Millisecond))
			t.Cleanup(m.stop)
			return m
		}
		lastErr = err
	}
	t.Fatalf("moto_server did not start: %v", lastErr)
	return nil
}

func launch(bin string) (*Moto, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m := &Moto{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), log: &syncBuffer{}, exited: make(chan struct{})}
	m.cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = m.cmd.Wait(); close(m.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-m.exited:
			return nil, fmt.Errorf("moto_server exited early: %s", m.log.String())
		default:
		}
		resp, err := client.Get(m.Endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return m, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.stop()
	return nil, fmt.Errorf("moto_server not ready after 30s: %s", m.log.String())
}

// stop terminates the server's process group and waits for it.
func (m *Moto) stop() {
	pgid := m.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-m.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-m.exited
	}
}

// Reset wipes all moto state (between subtests that share one server).
func (m *Moto) Reset(t testing.TB) {
	t.Helper()
	resp, err := http.Post(m.Endpoint+"/moto-api/reset", "application/json", nil)
	if err != nil {
		t.Fatalf("moto reset: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("moto reset: HTTP %d", resp.StatusCode)
	}
}

// Log is what moto_server printed so far, for failure messages.
func (m *Moto) Log() string { return m.log.String() }

//go:build !unix

package awstest

import (
	"testing"

	"github.com/cursus-go/cursus/internal/testenv"
)

// Moto is a moto_server process started by a test (unix only).
type Moto struct {
	// Endpoint is http://127.0.0.1:<port>.
	Endpoint string
}

// StartMoto skips t (or fails it under CI): starting and stopping moto_server's process group
// needs a unix system.
func StartMoto(t testing.TB) *Moto {
	t.Helper()
	testenv.Missing(t, "moto_server tests need a unix system")
	return nil
}

// Reset wipes all moto state.
func (m *Moto) Reset(t testing.TB) {}

// Log is what moto_server printed so far.
func (m *Moto) Log() string { return "" }

package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The environment variable and defaults of the HTTP transport.
const (
	// EnvAuthToken is the bearer token every HTTP request must carry when set.
	EnvAuthToken = "CURSUS_MCP_AUTH_TOKEN"
	// DefaultMaxSessions bounds the HTTP sessions alive at once.
	DefaultMaxSessions = 100
	// DefaultSessionIdleTimeout closes an HTTP session that received no
	// request for this long.
	DefaultSessionIdleTimeout = 10 * time.Minute
	// HTTPDrainTimeout bounds how long ServeHTTP waits, when stopping, for
	// the calls in flight to finish.
	HTTPDrainTimeout = 5 * time.Second
	// DefaultReadTimeout bounds reading one HTTP request.
	DefaultReadTimeout = 60 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection idle between requests.
	DefaultIdleTimeout = 2 * time.Minute
)

// HTTPOptions configures the Streamable HTTP transport.
type HTTPOptions struct {
	// AuthToken, when set, is required on every request as
	// "Authorization: Bearer <token>" (compared in constant time); other
	// requests answer 401. ServeHTTP refuses to listen without one unless
	// NoAuth is set.
	AuthToken string
	// NoAuth lets ServeHTTP serve the loopback interface without a token
	// (any local user, and a browser's page that reaches the port, may
	// then call the tools). It never opens another address.
	NoAuth bool
	// MaxSessions bounds the sessions alive at once (DefaultMaxSessions
	// when 0); a new session beyond it answers 503.
	MaxSessions int
	// SessionIdleTimeout closes a session idle this long
	// (DefaultSessionIdleTimeout when 0).
	SessionIdleTimeout time.Duration
	// ReadTimeout bounds reading one request, headers and body
	// (DefaultReadTimeout when 0); the response then streams for as long
	// as its call runs.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long between
	// requests (DefaultIdleTimeout when 0).
	IdleTimeout time.Duration
}

// ErrNoAuthToken is returned by ServeHTTP without an auth token when
// HTTPOptions.NoAuth is not set.
var ErrNoAuthToken = errors.New("refusing to serve HTTP without authentication: set " + EnvAuthToken + " (or --auth-token-file), or pass --no-auth to serve the loopback interface without a token")

// ErrUnauthenticatedBind is returned by ServeHTTP for an address that is
// not loopback when no auth token is set.
var ErrUnauthenticatedBind = errors.New("refusing to serve HTTP beyond the loopback interface without authentication: set " + EnvAuthToken + " (or --auth-token-file)")

// httpFront is what ServeHTTP puts in front of the SDK's handler: the
// bearer-token check, the session bound, and the count of calls in flight
// that a shutdown drains.
type httpFront struct {
	next    http.Handler
	token   [sha256.Size]byte
	hasAuth bool
	max     int
	idle    time.Duration

	mu      sync.Mutex
	live    map[string]*mcp.Server // session id -> the server holding it
	pending int                    // new sessions being set up
	flight  int                    // POST requests being served
	drained chan struct{}          // closed and replaced when flight drops to 0
}

type frontKey struct{}

// serverSlot carries, in a request's context, the server getServer made or
// picked for a new session.
type serverSlot struct{ s *mcp.Server }

func newHTTPFront(opts HTTPOptions) *httpFront {
	f := &httpFront{max: opts.MaxSessions, idle: opts.SessionIdleTimeout, live: map[string]*mcp.Server{}, drained: make(chan struct{})}
	if f.max <= 0 {
		f.max = DefaultMaxSessions
	}
	if f.idle <= 0 {
		f.idle = DefaultSessionIdleTimeout
	}
	if opts.AuthToken != "" {
		f.token, f.hasAuth = sha256.Sum256([]byte(opts.AuthToken)), true
	}
	return f
}

// getServer wraps the SDK's getServer: it records which server a new
// session lands on, so the session bound can tell when it is gone.
func (f *httpFront) getServer(inner func(*http.Request) *mcp.Server) func(*http.Request) *mcp.Server {
	return func(r *http.Request) *mcp.Server {
		s := inner(r)
		if slot, ok := r.Context().Value(frontKey{}).(*serverSlot); ok && slot.s == nil {
			slot.s = s
		}
		return s
	}
}

// ServeHTTP implements http.Handler.
func (f *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.hasAuth && !f.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="cursus"`)
		http.Error(w, "Unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	// ReadTimeout bounds reading the request; once it is read, the
	// response may stream for as long as the call takes (the server's read
	// deadline would otherwise cancel a call running past it).
	rc := http.NewResponseController(w)
	if r.Body == nil || r.Body == http.NoBody || r.Method == http.MethodGet {
		_ = rc.SetReadDeadline(time.Time{})
	} else {
		r.Body = &readThenStream{ReadCloser: r.Body, rc: rc}
	}
	if r.Method != http.MethodPost {
		f.next.ServeHTTP(w, r)
		return
	}
	f.enter()
	defer f.leave()
	if r.Header.Get("Mcp-Session-Id") != "" {
		f.next.ServeHTTP(w, r)
		return
	}
	// A request without a session id may start a session: keep a slot.
	if !f.reserve() {
		w.Header().Set("Retry-After", strconv.Itoa(int(f.idle.Seconds())))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too many sessions: %d are open; close one (HTTP DELETE with its Mcp-Session-Id) or wait for idle ones to expire after %s"}}`+"\n", f.max, f.idle)
		return
	}
	slot := &serverSlot{}
	defer func() {
		f.mu.Lock()
		f.pending--
		// The SDK set the new session's id in the response headers.
		if id := w.Header().Get("Mcp-Session-Id"); id != "" && slot.s != nil {
			f.live[id] = slot.s
		}
		f.mu.Unlock()
	}()
	f.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), frontKey{}, slot)))
}

// authorized compares the request's bearer token in constant time (both
// sides hashed first, so the length does not show either).
func (f *httpFront) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], f.token[:]) == 1
}

// reserve takes a slot for a new session, first dropping the sessions that
// ended (closed, or timed out idle); false when every slot is taken.
func (f *httpFront) reserve() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.live)+f.pending >= f.max {
		f.prune()
	}
	if len(f.live)+f.pending >= f.max {
		return false
	}
	f.pending++
	return true
}

// prune forgets the sessions their server no longer holds. The caller
// holds f.mu.
func (f *httpFront) prune() {
	alive := map[*mcp.Server]map[string]bool{}
	for id, s := range f.live {
		ids, ok := alive[s]
		if !ok {
			ids = map[string]bool{}
			for ss := range s.Sessions() {
				ids[ss.ID()] = true
			}
			alive[s] = ids
		}
		if !ids[id] {
			delete(f.live, id)
		}
	}
}

func (f *httpFront) enter() {
	f.mu.Lock()
	f.flight++
	f.mu.Unlock()
}

func (f *httpFront) leave() {
	f.mu.Lock()
	f.flight--
	if f.flight == 0 {
		close(f.drained)
		f.drained = make(chan struct{})
	}
	f.mu.Unlock()
}

// drain waits until no POST is in flight, or ctx is done.
func (f *httpFront) drain(ctx context.Context) bool {
	for {
		f.mu.Lock()
		n, ch := f.flight, f.drained
		f.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// readThenStream lifts the connection's read deadline once the request
// body has been read to its end.
type readThenStream struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *readThenStream) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// loopbackHost reports whether a listen host (an IP or "localhost") is a
// loopback address; any other name counts as reachable from the network.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

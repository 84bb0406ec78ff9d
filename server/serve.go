package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/registry"
)

// ServeStdio serves one MCP session over newline-delimited JSON-RPC: it
// reads requests from in and writes only JSON-RPC messages to out. It
// returns nil when in ends or ctx is cancelled, a *SelectionError when the
// options name unknown tools or namespaces, and any other error of the
// session. When in is an io.Closer, cancelling ctx closes it.
//
// At the end of input the requests already read are still answered
// (waiting up to ten seconds) before ServeStdio returns: a client may pipe
// its requests and close stdin. The SDK alone would drop them. A line that
// is not a JSON-RPC message is answered with a JSON-RPC error (-32700 or
// -32600) and the session goes on (frameFilter, frameConn); the SDK alone
// would end it. Everything else is the SDK's own stdio transport
// (mcp.IOTransport).
//
// When in is an *os.File that is a blocking pipe, socket or terminal (on
// Unix), it is read without ever blocking in read(2) (waitingReader): a
// read of stdin blocked in the kernel can hold up the Go runtime's
// stop-the-world, and with it the session, until the client writes again
// (see package internal/boundedpoll).
//
// ServeStdio never waits on a stuck call: when ctx is cancelled, or the
// input ended and the grace period is over, the calls still running are
// cancelled and ServeStdio returns within ShutdownGrace, whether they
// returned or not (a call blocked in the kernel is abandoned; the process
// exiting ends it).
func ServeStdio(ctx context.Context, reg *registry.Registry, opts Options, in io.Reader, out io.Writer) error {
	s, err := New(reg, opts)
	if err != nil {
		return err
	}
	if f, ok := in.(*os.File); ok {
		if w := waitingStdin(f); w != nil {
			in = w
		}
	}
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	log := logger(opts)
	w := &lockedWriter{w: out}
	// Cancelling the session's context cancels the calls in flight: the
	// middleware ties each request's context to it (the SDK cancels its
	// requests only once the connection closes, which waits for the read
	// of the input to end).
	sessCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	calls := &inFlight{stop: sessCtx}
	s.AddReceivingMiddleware(calls.count)
	t := &drainTransport{Transport: &frameTransport{filter: newFrameFilter(rc, w, maxFrame), out: w}, grace: drainGrace, readEnded: make(chan struct{})}
	ss, err := s.Connect(sessCtx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		return sessionEnd(err)
	case <-ctx.Done():
		log.Info("stopping: cancelling the calls in flight")
	case <-t.readEnded:
	}
	cancel()
	_ = rc.Close()
	// The connection stays open until ServeStdio returns, so the answers of
	// the cancelled calls can still be written; closing it at once lost
	// them.
	defer func() { go func() { _ = ss.Close() }() }()
	grace := time.After(ShutdownGrace)
	select {
	case err := <-done:
		if ctx.Err() != nil {
			return nil
		}
		return sessionEnd(err)
	case <-calls.none():
		// Every cancelled call returned: leave their answers a moment to
		// be written; the session itself may wait on a read that never
		// ends (stdin).
		select {
		case <-done:
		case <-time.After(answerFlush):
		}
		return nil
	case <-grace:
		log.Warn("calls still running at shutdown were abandoned", "grace", ShutdownGrace.String())
		return nil
	}
}

// answerFlush is how long ServeStdio, stopping, lets the answers of the
// cancelled calls be written once they all returned.
const answerFlush = 100 * time.Millisecond

// inFlight counts the requests being handled, and cancels each when stop
// ends.
type inFlight struct {
	stop context.Context
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed while n is 0; nil until the first request
}

// count is the middleware that counts a request while it is handled and
// cancels it when f.stop ends.
func (f *inFlight) count(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, end := f.begin(ctx)
		defer end()
		return next(ctx, method, req)
	}
}

// begin counts a request from now until end is called, and returns the
// context to handle it in: ctx, cancelled when f.stop ends or by end.
func (f *inFlight) begin(ctx context.Context) (_ context.Context, end func()) {
	ctx, cancel := context.WithCancel(ctx)
	stopCancel := context.AfterFunc(f.stop, cancel)
	f.mu.Lock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
	return ctx, func() {
		stopCancel()
		cancel()
		f.mu.Lock()
		if f.n--; f.n == 0 {
			close(f.zero)
		}
		f.mu.Unlock()
	}
}

// none returns a channel closed once no request is being handled.
func (f *inFlight) none() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.zero == nil {
		f.zero = make(chan struct{})
		if f.n == 0 {
			close(f.zero)
		}
	}
	return f.zero
}

// ShutdownGrace bounds how long ServeStdio waits for cancelled calls to
// return once it stops.
const ShutdownGrace = 2 * time.Second

// sessionEnd is ServeStdio's result for the error a session ended with.
// A reader already closed (os.ErrClosed) is the end ServeStdio made
// itself: at the end of input or on cancellation it closes the input,
// and the connection, closing, closes it again.
func sessionEnd(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// drainGrace bounds how long ServeStdio waits, after the end of input, for
// the answers to requests already read.
var drainGrace = 10 * time.Second

// drainTransport wraps a transport so that a read error (the end of input)
// is reported only once every request read so far has been answered, or
// the grace period ran out, or the connection was closed; readEnded is
// closed then.
type drainTransport struct {
	mcp.Transport
	grace     time.Duration
	readEnded chan struct{}
}

// Connect implements mcp.Transport.
func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, grace: t.grace, changed: make(chan struct{}), done: make(chan struct{}), readEnded: t.readEnded}, nil
}

type drainConn struct {
	mcp.Connection
	grace     time.Duration
	readEnded chan struct{}
	endOnce   sync.Once

	mu      sync.Mutex
	pending int           // requests read and not yet answered
	changed chan struct{} // closed and replaced whenever pending drops

	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

// Read implements mcp.Connection.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending++
			c.mu.Unlock()
		}
		return msg, nil
	}
	c.drain(ctx)
	if c.readEnded != nil {
		c.endOnce.Do(func() { close(c.readEnded) })
	}
	return nil, err
}

func (c *drainConn) drain(ctx context.Context) {
	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n, changed := c.pending, c.changed
		c.mu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-c.done:
			return
		}
	}
}

// Write implements mcp.Connection.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		c.pending--
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	return err
}

// Close implements mcp.Connection.
func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return c.Connection.Close()
}

// NewHTTPHandler builds the server and returns an http.Handler serving it
// over the Streamable HTTP transport, at any path (hosts usually use /mcp).
// Every session shares the one server. Browser cross-origin requests are
// refused, and so are requests to a loopback address that carry a
// non-loopback Host header (DNS rebinding protection of the SDK). With
// Options.HTTP.AuthToken every request must carry it as a bearer token
// (401 otherwise); sessions are bounded in number (503 beyond) and closed
// when idle (Options.HTTP).
//
// In guided mode (Options.Guided, Options.Stage) every session gets its own
// server, so two sessions can be in different stages at once.
func NewHTTPHandler(reg *registry.Registry, opts Options) (http.Handler, error) {
	f, err := newHTTPHandler(reg, opts)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func newHTTPHandler(reg *registry.Registry, opts Options) (*httpFront, error) {
	s, g, err := build(reg, opts)
	if err != nil {
		return nil, err
	}
	getServer := func(*http.Request) *mcp.Server { return s }
	if g != nil {
		getServer = g.forRequest(s)
	}
	f := newHTTPFront(opts.HTTP)
	log := logger(opts)
	h := mcp.NewStreamableHTTPHandler(f.getServer(getServer), &mcp.StreamableHTTPOptions{
		Logger:         slog.New(sdkLog{log.Handler()}),
		SessionTimeout: f.idle,
	})
	f.next = http.NewCrossOriginProtection().Handler(h)
	return f, nil
}

// ListenAddr turns an --http address into the address to listen on: a bare
// port ("8080") or an address without a host (":8080") binds 127.0.0.1;
// an address that names a host ("0.0.0.0:8080", "[::1]:8080") is kept.
func ListenAddr(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", fmt.Errorf("empty HTTP address")
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("HTTP address %q: %v", addr, err)
	}
	if port == "" {
		return "", fmt.Errorf("HTTP address %q: no port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// ServeHTTP serves the Streamable HTTP transport on addr (see ListenAddr)
// until ctx is cancelled, then shuts down: it stops accepting connections,
// waits up to HTTPDrainTimeout for the calls in flight to finish (their
// answers are delivered), then closes what is left. Without
// Options.HTTP.AuthToken it refuses to serve: ErrUnauthenticatedBind for
// an address that is not loopback, ErrNoAuthToken for a loopback one
// unless Options.HTTP.NoAuth is set. It logs the URL to Options.Logger once
// listening.
func ServeHTTP(ctx context.Context, reg *registry.Registry, opts Options, addr string) error {
	hostPort, err := ListenAddr(addr)
	if err != nil {
		return err
	}
	if opts.HTTP.AuthToken == "" {
		if !loopbackHost(hostOf(hostPort)) {
			return ErrUnauthenticatedBind
		}
		if !opts.HTTP.NoAuth {
			return ErrNoAuthToken
		}
	}
	f, err := newHTTPHandler(reg, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return err
	}
	log := logger(opts)
	if ip := net.ParseIP(hostOf(ln.Addr().String())); ip != nil && !ip.IsLoopback() {
		log.Warn("the MCP server is reachable from the network; every request must carry the bearer token", "addr", ln.Addr().String())
	}
	// Requests get a context of their own, cancelled only after the drain:
	// a signal must not cut the calls in flight short.
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	readTimeout := opts.HTTP.ReadTimeout
	if readTimeout <= 0 {
		readTimeout = DefaultReadTimeout
	}
	idleTimeout := opts.HTTP.IdleTimeout
	if idleTimeout <= 0 {
		idleTimeout = DefaultIdleTimeout
	}
	hs := &http.Server{
		Handler:           f,
		ReadHeaderTimeout: min(10*time.Second, readTimeout),
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	log.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "auth", opts.HTTP.AuthToken != "")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stop accepting; let the calls in flight finish, then close the rest
	// (idle keep-alive connections and standalone event streams).
	shut := make(chan error, 1)
	sctx, cancel := context.WithTimeout(context.Background(), HTTPDrainTimeout)
	defer cancel()
	go func() { shut <- hs.Shutdown(sctx) }()
	if !f.drain(sctx) {
		log.Warn("calls still in flight after the drain were cut off", "drain", HTTPDrainTimeout.String())
	}
	cancelBase()
	_ = hs.Close()
	<-shut
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func hostOf(hostPort string) string {
	h, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return hostPort
	}
	return h
}

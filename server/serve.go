package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
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
// -32600) and the session goes on; the SDK alone would end it.
func ServeStdio(ctx context.Context, reg *registry.Registry, opts Options, in io.Reader, out io.Writer) error {
	s, err := New(reg, opts)
	if err != nil {
		return err
	}
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	w := &lockedWriter{w: out}
	t := &drainTransport{Transport: &mcp.IOTransport{Reader: newFrameFilter(rc, w, maxFrame), Writer: w}, grace: drainGrace}
	err = s.Run(ctx, t)
	if ctx.Err() != nil || err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// drainGrace bounds how long ServeStdio waits, after the end of input, for
// the answers to requests already read.
const drainGrace = 10 * time.Second

// drainTransport wraps a transport so that a read error (the end of input)
// is reported only once every request read so far has been answered, or
// the grace period ran out, or the connection was closed.
type drainTransport struct {
	mcp.Transport
	grace time.Duration
}

// Connect implements mcp.Transport.
func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, grace: t.grace, changed: make(chan struct{}), done: make(chan struct{})}, nil
}

type drainConn struct {
	mcp.Connection
	grace time.Duration

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
// non-loopback Host header (DNS rebinding protection of the SDK).
//
// In guided mode (Options.Guided, Options.Stage) every session gets its own
// server, so two sessions can be in different stages at once.
func NewHTTPHandler(reg *registry.Registry, opts Options) (http.Handler, error) {
	s, g, err := build(reg, opts)
	if err != nil {
		return nil, err
	}
	getServer := func(*http.Request) *mcp.Server { return s }
	if g != nil {
		getServer = g.forRequest(s)
	}
	h := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:         opts.Logger,
		SessionTimeout: 30 * time.Minute,
	})
	return http.NewCrossOriginProtection().Handler(h), nil
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
// until ctx is cancelled, then shuts down (waiting up to five seconds for
// requests in flight). It logs the URL to Options.Logger once listening.
func ServeHTTP(ctx context.Context, reg *registry.Registry, opts Options, addr string) error {
	h, err := NewHTTPHandler(reg, opts)
	if err != nil {
		return err
	}
	hostPort, err := ListenAddr(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if ip := net.ParseIP(hostOf(ln.Addr().String())); ip != nil && !ip.IsLoopback() {
		log.Warn("the MCP server is reachable from the network and has no authentication", "addr", ln.Addr().String())
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	log.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
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

package awstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Handler answers one SageMaker operation: it gets the decoded JSON request body and returns the
// response body (marshalled as JSON), or an error; an *APIError becomes that AWS error response,
// any other error a 500 InternalFailure.
type Handler func(req map[string]any) (any, error)

// APIError is an error response of the AWS JSON 1.1 protocol: HTTP Status with
// {"__type": Type, "message": Message}.
type APIError struct {
	Status  int
	Type    string
	Message string
}

// Error implements error.
func (e *APIError) Error() string { return e.Type + ": " + e.Message }

// Server is an httptest server speaking the AWS JSON 1.1 protocol of SageMaker (POST /, routed on
// X-Amz-Target: SageMaker.<Op>) and of the other JSON services (CloudWatch Logs, ...).
// Operations with a Handler are answered by it; every other request (any service) is forwarded
// to the upstream endpoint when one was given (a recording proxy in front of moto), else
// answered with UnknownOperationException (JSON services) or 404 (REST). Every request is
// recorded: "sagemaker:<Op>", "logs:<Op>", "sts:<Action>", "s3:<METHOD> <path>",
// "scheduler:<METHOD> <path>".
type Server struct {
	// URL is the server's base URL, to use as the AWS endpoint.
	URL string

	proxy    *httputil.ReverseProxy
	mu       sync.Mutex
	calls    []string
	bodies   map[string][]map[string]any
	handlers map[string]Handler
}

// NewServer starts a Server, closed when t ends. upstream is the endpoint unhandled requests go
// to ("" for none).
func NewServer(t testing.TB, upstream string) *Server {
	t.Helper()
	s := &Server{bodies: map[string][]map[string]any{}, handlers: map[string]Handler{}}
	if upstream != "" {
		u, err := url.Parse(upstream)
		if err != nil {
			t.Fatalf("awstest: upstream %q: %v", upstream, err)
		}
		s.proxy = httputil.NewSingleHostReverseProxy(u)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Handle makes h answer the operation op: a SageMaker operation by its name
// ("ListPipelineExecutionSteps"), another JSON-protocol service's as "<service>:<Op>"
// ("logs:FilterLogEvents").
func (s *Server) Handle(op string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[op] = h
}

// Calls returns the requests seen so far, in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Count returns how many requests were call ("sagemaker:UpdatePipeline", "s3:PUT /bucket/key").
func (s *Server) Count(call string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c == call {
			n++
		}
	}
	return n
}

// Requests returns the decoded bodies of the op requests seen so far (op as Handle names it).
func (s *Server) Requests(op string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies[op])
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	call, op := callName(r, body)
	if op == "" {
		s.record(call, "", nil)
		if s.proxy == nil {
			http.NotFound(w, r)
			return
		}
		s.proxy.ServeHTTP(w, r)
		return
	}
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	h := s.record(call, op, req)
	switch {
	case h != nil:
		resp, err := h(req)
		if err != nil {
			var ae *APIError
			if !errors.As(err, &ae) {
				ae = &APIError{Status: http.StatusInternalServerError, Type: "InternalFailure", Message: err.Error()}
			}
			WriteError(w, ae)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(resp)
	case s.proxy != nil:
		s.proxy.ServeHTTP(w, r)
	default:
		WriteError(w, &APIError{Status: http.StatusBadRequest, Type: "UnknownOperationException", Message: "no handler for " + op})
	}
}

// callName names a request: "sagemaker:<Op>" (op "<Op>") and "<service>:<Op>" (op the same) for
// the AWS JSON protocol (X-Amz-Target), "sts:<Action>" for the query protocol, and
// "<service>:<METHOD> <path>" for REST services (S3, EventBridge Scheduler; op ""), the service
// taken from the SigV4 credential scope ("s3" when there is none).
func callName(r *http.Request, body []byte) (call, op string) {
	service := "s3"
	if _, scope, ok := strings.Cut(r.Header.Get("Authorization"), "Credential="); ok {
		if parts := strings.Split(strings.SplitN(scope, ",", 2)[0], "/"); len(parts) >= 4 {
			service = parts[3]
		}
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		name := target[strings.LastIndexByte(target, '.')+1:]
		if strings.HasPrefix(target, "SageMaker.") {
			return "sagemaker:" + name, name
		}
		return service + ":" + name, service + ":" + name
	}
	if service == "sts" {
		if q, err := url.ParseQuery(string(body)); err == nil && q.Get("Action") != "" {
			return "sts:" + q.Get("Action"), ""
		}
	}
	return service + ":" + r.Method + " " + r.URL.Path, ""
}

// record logs a call and returns the handler of op, if any.
func (s *Server) record(call, op string, req map[string]any) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
	if op == "" {
		return nil
	}
	s.bodies[op] = append(s.bodies[op], req)
	return s.handlers[op]
}

// WriteError writes e in the AWS JSON 1.1 error shape.
func WriteError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": e.Type, "message": e.Message})
}

// Call sends one raw AWS JSON 1.1 SageMaker request to endpoint and returns the decoded answer,
// failing t on a transport error or a non-200 status. It reads what the SDK cannot: moto answers
// DescribePipeline for a pipeline created from PipelineDefinitionS3Location with the definition as
// a JSON object where SageMaker answers a string, which the SDK refuses to decode.
func Call(t testing.TB, endpoint, op string, req any) map[string]any {
	t.Helper()
	out, err := Forward(endpoint, op, req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Forward is Call returning its error instead of failing a test: for a Handler, which runs off the
// test's goroutine, to ask the upstream and change its answer.
func Forward(endpoint, op string, req any) (map[string]any, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequest(http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/x-amz-json-1.1")
	hr.Header.Set("X-Amz-Target", "SageMaker."+op)
	// moto routes on the SigV4 credential scope; the signature itself is not checked.
	hr.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=testing/20240101/"+Region+"/sagemaker/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		var ae struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &ae)
		return nil, &APIError{Status: resp.StatusCode, Type: ae.Type, Message: ae.Message}
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", op, err, raw)
	}
	return out, nil
}

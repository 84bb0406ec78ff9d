package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// content holds the resource templates of a core, described once, and its
// resources and prompts, described on first use (listing the resources
// loads the step and pipeline catalogs, the prompts the guided stages,
// which a session that never asks for them should not pay for at
// start-up); every server of the core registers them.
type content struct {
	c         *core
	templates []*mcp.ResourceTemplate

	once      sync.Once
	resources []*mcp.Resource
	err       error

	promptOnce sync.Once
	prompts    []*mcp.Prompt
	promptErr  error
}

func newContent(c *core) (*content, error) {
	ct := &content{c: c}
	for _, t := range cursus.ResourceTemplates() {
		ct.templates = append(ct.templates, &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
	}
	return ct, nil
}

// listPrompts describes the prompts, once per core.
func (ct *content) listPrompts() ([]*mcp.Prompt, error) {
	ct.promptOnce.Do(func() {
		ps, err := cursus.Prompts()
		if err != nil {
			ct.promptErr = fmt.Errorf("server: prompts: %w", err)
			return
		}
		for _, p := range ps {
			args := []*mcp.PromptArgument{{Name: "run_id", Description: p.RunArg}}
			if p.HostArg != "" {
				args = append(args, &mcp.PromptArgument{Name: "host", Description: p.HostArg})
			}
			ct.prompts = append(ct.prompts, &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: args})
		}
	})
	return ct.prompts, ct.promptErr
}

// listResources describes the fixed resources, once per core.
func (ct *content) listResources() ([]*mcp.Resource, error) {
	ct.once.Do(func() {
		ctx := safefs.WithFS(registry.WithPolicy(context.Background(), ct.c.opts.Policy), ct.c.fs)
		rs, err := cursus.Resources(ctx)
		if err != nil {
			ct.err = fmt.Errorf("server: resources: %w", err)
			return
		}
		for _, r := range rs {
			ct.resources = append(ct.resources, &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
		}
	})
	return ct.resources, ct.err
}

// register adds the content to a server of the session s: the templates
// now, the fixed resources before the first resources/ request the server
// answers, the prompts before the first prompts/ request.
func (ct *content) register(m *mcp.Server, s *session) {
	lazy := []*lazyContent{
		{prefix: "resources/", add: func() error {
			rs, err := ct.listResources()
			for _, r := range rs {
				m.AddResource(r, s.readResource)
			}
			return err
		}},
		{prefix: "prompts/", add: func() error {
			ps, err := ct.listPrompts()
			for _, p := range ps {
				m.AddPrompt(p, s.getPrompt)
			}
			return err
		}},
	}
	m.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			for _, l := range lazy {
				if !strings.HasPrefix(method, l.prefix) {
					continue
				}
				l.once.Do(func() { l.err = l.add() })
				if l.err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: l.err.Error()}
				}
			}
			return next(ctx, method, req)
		}
	})
	for _, t := range ct.templates {
		m.AddResourceTemplate(t, s.readResource)
	}
}

// lazyContent is content a server registers before the first request
// whose method starts with prefix; a failure answers every such request.
type lazyContent struct {
	prefix string
	add    func() error
	once   sync.Once
	err    error
}

// readResource answers resources/read through the registry and the
// session's file-access layer, confined as the tools are. An unknown
// resource is the SDK's resource-not-found error; a tool's failure (an
// unknown step, a path outside the project root) is invalid params with
// the tool's message.
func (s *session) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	text, mime, err := cursus.ReadResource(s.callContext(ctx), s.c.reg, uri)
	if err != nil {
		return nil, contentError(err, func() error { return mcp.ResourceNotFoundError(uri) })
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

// getPrompt answers prompts/get: the prompt rendered for the run_id (and
// the host) given.
func (s *session) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	desc, text, err := cursus.GetPrompt(s.callContext(ctx), s.c.reg, req.Params.Name, args["run_id"], args["host"])
	if err != nil {
		return nil, contentError(err, func() error {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", req.Params.Name)}
		})
	}
	return &mcp.GetPromptResult{Description: desc, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// contentError maps an error of the content layer to a JSON-RPC error:
// not found as notFound says, a tool's failure as invalid params with its
// code and message, anything else as an internal error (logged by the
// SDK).
func contentError(err error, notFound func() error) error {
	if cursus.IsNotFound(err) {
		return notFound()
	}
	var te *envelope.ToolError
	if errors.As(err, &te) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: te.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

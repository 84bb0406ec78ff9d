package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/registry"
)

// withProgress returns ctx carrying a registry.ProgressFunc that sends notifications/progress to
// the client with the request's progress token, when the client sent one (params._meta.progressToken);
// otherwise ctx unchanged, so a tool's progress reports go nowhere.
func withProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Params == nil || req.Session == nil {
		return ctx
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx
	}
	session := req.Session
	return registry.WithProgress(ctx, func(progress, total float64, message string) {
		_ = session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: message})
	})
}

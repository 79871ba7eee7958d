package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/activities/tools"
)

// progressRoutes sends each progress notification to the call whose
// token it carries. Tokens are unique in the Manager, so in each session.
type progressRoutes struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]func(tools.Progress)
}

// route gives ctx's call a token if ctx asks for progress
// (tools.WithProgress), and a func that stops its notifications, to call
// once the call returned.
func (r *progressRoutes) route(ctx context.Context) (token string, done func()) {
	f := tools.ProgressFunc(ctx)
	if f == nil {
		return "", func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	token = fmt.Sprintf("tether-%d", r.next)
	if r.calls == nil {
		r.calls = map[string]func(tools.Progress){}
	}
	r.calls[token] = f
	return token, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.calls, token)
	}
}

// handle is the client's ProgressNotificationHandler. A URL in the
// server's message loses what may be a secret in it, as in errors (the
// tool activity then cuts the message to one short line).
func (r *progressRoutes) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	r.mu.Lock()
	f := r.calls[token]
	r.mu.Unlock()
	if f != nil {
		f(tools.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: redact(req.Params.Message)})
	}
}

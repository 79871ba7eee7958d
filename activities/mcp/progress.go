package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is a progress notification of a running call: Progress grows
// as the server works; Total is zero when the server does not know it.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

type progressKey struct{}

// WithProgress returns ctx whose calls (CallMCP) carry a progress token
// and report what the server says of their progress to f, in order,
// while they run; none after the call returns. f runs on the session's
// goroutine that reads the server's notifications: it must return
// quickly and never call the session.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// progressRoutes sends each progress notification to the call whose
// token it carries. Tokens are unique in the Manager, so in each session.
type progressRoutes struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]func(Progress)
}

// route gives ctx's call a token if ctx asks for progress (WithProgress),
// and a func that stops its notifications, to call once the call returned.
func (r *progressRoutes) route(ctx context.Context) (token string, done func()) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	if f == nil {
		return "", func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	token = fmt.Sprintf("tether-%d", r.next)
	if r.calls == nil {
		r.calls = map[string]func(Progress){}
	}
	r.calls[token] = f
	return token, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.calls, token)
	}
}

// handle is the client's ProgressNotificationHandler.
func (r *progressRoutes) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	r.mu.Lock()
	f := r.calls[token]
	r.mu.Unlock()
	if f != nil {
		f(Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}

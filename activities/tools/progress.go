package tools

import "context"

// Progress is what a running call says of its progress: Progress grows as
// the tool works; Total is zero when the tool does not know it. MCP's
// progress notifications carry exactly these three.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

type progressKey struct{}

// WithProgress returns ctx whose tool call reports its progress to f, in
// order, while it runs. The tool activity installs it; a tool reports
// through ReportProgress, an MCP call through its server's notifications.
// f must return quickly (it may run on a session's reading goroutine) and
// be safe for concurrent use.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ProgressFunc is the func ctx reports progress to (WithProgress), or nil
// when nobody listens.
func ProgressFunc(ctx context.Context) func(Progress) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	return f
}

// ReportProgress tells whoever listens on ctx (WithProgress) how far the
// call is; it does nothing when nobody does. What it reports is bounded
// and made one line by the listener, not here.
func ReportProgress(ctx context.Context, p Progress) {
	if f := ProgressFunc(ctx); f != nil {
		f(p)
	}
}

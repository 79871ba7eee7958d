package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Execute runs one tool call. Everything the model should see — an unknown
// tool, invalid arguments, a ModelVisibleError, a panic — comes back as a
// Result with IsError and a nil error. A non-nil error means the tool failed
// in a way worth retrying; it wraps the tool's own error.
func (r *Registry) Execute(ctx context.Context, call Call) (Result, error) {
	e, ok := r.tools[call.Name]
	if !ok {
		return r.finish(errorResult(r.unknownTool(call.Name))), nil
	}
	args, err := e.schema.validateJSON(call.Arguments)
	if err != nil {
		return r.finish(errorResult(fmt.Sprintf("invalid arguments for tool %q: %v", call.Name, err))), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("tool %s: %w", call.Name, err)
	}
	call.Arguments = args
	res, err := runRecovered(withCall(ctx, call), e.tool, call)
	if err == nil {
		return r.finish(res), nil
	}
	if _, ok := errors.AsType[*ModelVisibleError](err); ok {
		return r.finish(errorResult(err.Error())), nil
	}
	return Result{}, fmt.Errorf("tool %s: %w", call.Name, err)
}

// runRecovered calls the tool, turning a panic into a model-visible error
// result so one broken tool cannot take down the worker.
func runRecovered(ctx context.Context, t Tool, call Call) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = errorResult(fmt.Sprintf("tool %s panicked: %v", t.Name, p)), nil
		}
	}()
	return t.Run(ctx, call)
}

func (r *Registry) unknownTool(name string) string {
	available := strings.Join(r.names, ", ")
	if available == "" {
		available = "(none)"
	}
	return fmt.Sprintf("unknown tool %q; available: %s", name, available)
}

func (r *Registry) finish(res Result) Result {
	limit := r.maxResultBytes
	if limit <= 0 { // zero Registry
		limit = MaxResultBytes
	}
	res.Content = Truncate(res.Content, limit)
	return res
}

func errorResult(content string) Result { return Result{Content: content, IsError: true} }

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// IdempotencyKeyMeta is the _meta field of every tools/call request that
// carries the call's idempotency key (tools.Call.IdempotencyKey): the same
// for every attempt of one call, across retries, worker crashes and
// server restarts, so a server can dedupe side effects on it.
const IdempotencyKeyMeta = "tether/idempotency_key"

// Caller runs calls of MCP server tools for the tool activity
// (activities.MCPCaller). Safe for concurrent use.
type Caller struct {
	Sessions *Manager
	// MaxResultBytes bounds a result's content as the tool registry bounds
	// its tools'; tools.MaxResultBytes when zero.
	MaxResultBytes int
}

// CallMCP calls tool.Tool of server tool.Server with call's arguments. What
// the model should see — the tool's result, an isError result, a JSON-RPC
// error the server answered, an HTTP server's 401 or 403 (no retry mends
// refused credentials), arguments that are not an object — comes back as
// a Result (with IsError for failures). A returned error is a fault of
// the server's process or connection (it exited, refused or reset the
// connection, answered 5xx): the attempt failed and may be retried, and
// the next call connects again. A call still running when ctx ends
// returns ctx's error and keeps the session; the tool activity counts
// running past the call's time limit as the call's own failure. A ctx
// of tools.WithProgress carries a progress token and hears the call's progress.
func (c *Caller) CallMCP(ctx context.Context, tool signals.MCPGrant, call tools.Call) (tools.Result, error) {
	if !c.Sessions.Configured(tool.Server) {
		return c.failed(fmt.Sprintf("MCP server %q is not configured on this worker", tool.Server)), nil
	}
	args, ok := objectArguments(call.Arguments)
	if !ok {
		return c.failed(fmt.Sprintf("arguments of tool %q must be a JSON object", call.Name)), nil
	}
	s, err := c.Sessions.session(ctx, tool.Server)
	if r, ok := refused(err); ok {
		return c.refused(tool, r), nil
	}
	if err != nil {
		return tools.Result{}, redacted{err}
	}
	res, err := c.send(ctx, s, tool, call.IdempotencyKey, args)
	if e, ok := answer(err); ok {
		return c.failed(fmt.Sprintf("MCP server %q refused tool %q: %s (JSON-RPC error %d)", tool.Server, tool.Tool, e.Message, e.Code)), nil
	}
	if r, ok := refused(err); ok {
		return c.refused(tool, r), nil
	}
	if err != nil && ctx.Err() != nil {
		return tools.Result{}, fmt.Errorf("call tool %q of MCP server %q: %w", tool.Tool, tool.Server, redacted{err})
	}
	if err != nil {
		c.Sessions.drop(tool.Server, s) // a fault: answers and refusals went above
		return tools.Result{}, c.fault(tool, err)
	}
	return c.result(res), nil
}

// send sends the tools/call request, with the call's idempotency key and,
// if ctx asks for progress, a progress token.
func (c *Caller) send(ctx context.Context, s *sdk.ClientSession, tool signals.MCPGrant, key string, args json.RawMessage) (*sdk.CallToolResult, error) {
	params := &sdk.CallToolParams{Meta: sdk.Meta{IdempotencyKeyMeta: key}, Name: tool.Tool, Arguments: args}
	token, done := c.Sessions.progress.route(ctx)
	defer done()
	if token != "" {
		params.SetProgressToken(token)
	}
	return s.CallTool(ctx, params)
}

// fault says why a call got no answer, for the operator who reads the
// attempt's failure.
func (c *Caller) fault(tool signals.MCPGrant, err error) error {
	f := &Fault{Tool: tool.Tool, Server: tool.Server, Why: "its connection broke or it answered an HTTP error", err: redacted{err}}
	if c.Sessions.servers[tool.Server].URL == "" {
		f.Why, f.Hint = "its process exited or closed its output", "what it wrote to stderr is in the worker's log"
	}
	return f
}

// objectArguments checks that args is a JSON object; none is {}.
func objectArguments(args json.RawMessage) (json.RawMessage, bool) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), true
	}
	var obj map[string]json.RawMessage
	return args, json.Unmarshal(args, &obj) == nil && obj != nil
}

func (c *Caller) result(res *sdk.CallToolResult) tools.Result {
	text := Text(res)
	if res.IsError && text == "" {
		text = "the tool failed without saying why"
	}
	return c.bound(tools.Result{Content: text, IsError: res.IsError})
}

// refused is the result of a call whose server refused the worker's
// credentials. The operator, who alone can mend them, reads it in the log.
func (c *Caller) refused(tool signals.MCPGrant, r *refusal) tools.Result {
	c.Sessions.log.Warn("MCP server refused a call", "server", tool.Server, "tool", tool.Tool, "status", r.status)
	return c.failed(fmt.Sprintf("MCP server %q refused tool %q: %s (%v); calling it again will not help", tool.Server, tool.Tool, r.why(), r))
}

func (c *Caller) failed(msg string) tools.Result {
	return c.bound(tools.Result{Content: redact(msg), IsError: true})
}

func (c *Caller) bound(r tools.Result) tools.Result {
	limit := c.MaxResultBytes
	if limit <= 0 {
		limit = tools.MaxResultBytes
	}
	r.Content = tools.Truncate(r.Content, limit)
	return r
}

// Text is what the model reads of a result: its content, joined by
// newlines, text as it is and the rest summarized ("[image image/png,
// 12 KB]"); the structured content, as JSON, only when there is no
// content at all. A server that sends both means them as the same (the
// spec asks for a serialization of the structured content in its
// content), and the structured copy of an image holds its base64: a
// 200 KB image would reach history and every prompt as 270 KB of text.
func Text(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, describe(c))
	}
	return strings.Join(parts, "\n")
}

// describe renders one content item: text as it is, the rest summarized.
func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %s]", c.MIMEType, size(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %s]", c.MIMEType, size(len(c.Data)))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link %s %s]", c.Name, c.URI)
	case *sdk.EmbeddedResource:
		if r := c.Resource; r != nil && r.Blob == nil {
			return r.Text
		} else if r != nil {
			return fmt.Sprintf("[resource %s %s, %s]", r.URI, r.MIMEType, size(len(r.Blob)))
		}
	}
	return fmt.Sprintf("[%T content]", c)
}

// size says n bytes the way a person would.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK reports trouble of its own transport with these JSON-RPC codes
// (client closing, server closing, rejected by the transport): they never
// come from the server's answer.
var transportCodes = []error{
	&jsonrpc.Error{Code: -32003}, &jsonrpc.Error{Code: -32004}, &jsonrpc.Error{Code: -32005},
}

// answer returns the JSON-RPC error the server answered a request with,
// if err is one: the server is alive and refused the request (unknown
// tool, invalid params, a tool that failed that way), which the model
// sees. Anything else is a fault of the connection or the process.
func answer(err error) (*jsonrpc.Error, bool) {
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) {
		return nil, false
	}
	for _, t := range transportCodes {
		if errors.Is(err, t) {
			return nil, false
		}
	}
	return errors.AsType[*jsonrpc.Error](err)
}

// broken reports whether a request's failure may have broken its
// session, so it is dropped and the next use connects again: any fault
// but the caller's own deadline or cancellation. A refusal is no fault:
// the server answered.
func broken(ctx context.Context, err error) bool {
	_, answered := answer(err)
	_, isRefusal := refused(err)
	return !answered && !isRefusal && ctx.Err() == nil
}

// refusal is a streamable-HTTP server's 401 Unauthorized or 403 Forbidden
// answer: the server is up and will not serve the worker with the
// credentials it sends, which no retry mends.
type refusal struct{ status int }

func (r *refusal) Error() string {
	return fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status))
}

// why says what the refusal means, for the model.
func (r *refusal) why() string {
	if r.status == http.StatusForbidden {
		return "the worker is not allowed to use it"
	}
	return "the worker is not authorized"
}

// refused returns the refusal err is, if it is one.
func refused(err error) (*refusal, bool) { return errors.AsType[*refusal](err) }

// refusals turns a 401 or 403 answer to a POST (every request of a call
// or a listing) into a *refusal error, so it reaches the caller as the
// server's answer: the SDK would report it as a broken connection, which
// is retried. A GET, the optional stream of server messages, keeps the
// SDK's handling, which treats any 4xx as "no stream here".
type refusals struct{ next http.RoundTripper }

func (t refusals) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost ||
		resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection be reused
	_ = resp.Body.Close()
	return nil, &refusal{status: resp.StatusCode}
}

// errClosed fails calls on a Manager that was closed.
var errClosed = errors.New("the worker is stopping")

// Fault is a call its server gave no answer: Why says how, Hint where an
// operator reads more. The model may read ModelText, never the hint: it
// names the worker's insides.
type Fault struct {
	Tool, Server string
	Why, Hint    string
	err          error
}

func (f *Fault) Error() string {
	why := f.Why
	if f.Hint != "" {
		why += " (" + f.Hint + ")"
	}
	return fmt.Sprintf("call tool %q of MCP server %q: no answer: %s: %v", f.Tool, f.Server, why, f.err)
}

// ModelText is the fault as the model may read it: without the hint.
func (f *Fault) ModelText() string {
	return fmt.Sprintf("call tool %q of MCP server %q: no answer: %s: %v", f.Tool, f.Server, f.Why, f.err)
}

func (f *Fault) Unwrap() error { return f.err }

package mcp

import (
	"context"
	"errors"

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
// but the caller's own deadline or cancellation.
func broken(ctx context.Context, err error) bool {
	_, answered := answer(err)
	return !answered && ctx.Err() == nil
}

package startup

import (
	"context"
	"errors"
	"strings"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Dial explains a failure to connect to Temporal at hostPort. noServer is
// the fix when nothing answers there, which differs by command ("start one,
// or run with --dev" for the worker).
func Dial(hostPort string, err error, noServer string) *Error {
	var (
		unavailable *serviceerror.Unavailable
		deadline    *serviceerror.DeadlineExceeded
		denied      *serviceerror.PermissionDenied
	)
	why := " (" + lastClause(err) + ")"
	switch {
	case errors.As(err, &unavailable), errors.As(err, &deadline), errors.Is(err, context.DeadlineExceeded):
		return &Error{Problem: "no Temporal server at " + hostPort + why, Fix: noServer, Err: err}
	case errors.As(err, &denied), status.Code(err) == codes.Unauthenticated:
		return &Error{Problem: "Temporal at " + hostPort + " refused this client" + why,
			Fix: "check TEMPORAL_API_KEY, the TLS settings or the temporal.toml profile", Err: err}
	}
	return &Error{Problem: "cannot connect to Temporal at " + hostPort + why,
		Fix: "check --address (or TEMPORAL_ADDRESS) and the TLS settings", Err: err}
}

// lastClause is the innermost reason of a gRPC dial error, e.g.
// "connection refused" out of `failed reaching server: connection error:
// desc = "transport: Error while dialing: dial tcp ...: connect: connection
// refused"`.
func lastClause(err error) string {
	msg := strings.TrimRight(err.Error(), `" `)
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return strings.Trim(msg, `" `)
}

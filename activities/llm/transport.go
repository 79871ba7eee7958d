package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

const (
	// MaxMessageBytes bounds the provider text a failure message keeps: it
	// is recorded in the session log, so it says what went wrong and no more.
	MaxMessageBytes = 500
	// MaxErrorBody bounds the bytes of an error response read to classify it.
	MaxErrorBody = 64 << 10
)

// ClassifyTransport classifies a failure that produced no HTTP error status:
// the request never got an answer, or a 2xx answer could not be read.
// gotResponse says whether a response arrived at all. Every adapter uses it,
// so the same network trouble is the same kind whichever provider hit it.
//
// A body that ends early (io.EOF, io.ErrUnexpectedEOF) is a network failure
// even after a 2xx: a connection cut mid-body and a decoder reaching the end
// of a short document report the same error, and the cut is the likelier.
// A 2xx whose body arrived but does not decode is the server's failure.
func ClassifyTransport(ctx context.Context, err error, gotResponse bool) (eventlog.FailureKind, string) {
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return eventlog.FailureCanceled, "request canceled"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return eventlog.FailureTimeout, "request timed out"
	case errors.As(err, &netErr) && netErr.Timeout():
		return eventlog.FailureTimeout, "request timed out"
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return eventlog.FailureNetwork, "connection failed"
	case gotResponse:
		return eventlog.FailureServer, "unreadable response"
	default:
		return eventlog.FailureUnknown, "request failed"
	}
}

// ClassifyStreamCut classifies a stream that stopped without finishing.
// Garbage in an event is the server's failure; a cancel or a deadline stays
// what it is; anything else broke a reply that was under way, which is a
// network failure, never a short answer.
func ClassifyStreamCut(ctx context.Context, err error) (eventlog.FailureKind, string) {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return eventlog.FailureServer, "malformed stream event"
	}
	kind, what := ClassifyTransport(ctx, err, false)
	if kind == eventlog.FailureCanceled || kind == eventlog.FailureTimeout {
		return kind, what
	}
	return eventlog.FailureNetwork, "stream interrupted"
}

// TransportFailure is the *Error of a call that failed without an HTTP error
// status. Its message names the failure, never the URL, and s removes the
// credential from both the message and the kept error.
func TransportFailure(ctx context.Context, err error, gotResponse bool, s Scrubber) *Error {
	kind, what := ClassifyTransport(ctx, err, gotResponse)
	return transportError(kind, what, err, s)
}

// StreamCutFailure is the *Error of a stream that stopped without finishing
// (see ClassifyStreamCut).
func StreamCutFailure(ctx context.Context, err error, s Scrubber) *Error {
	kind, what := ClassifyStreamCut(ctx, err)
	return transportError(kind, what, err, s)
}

func transportError(kind eventlog.FailureKind, what string, err error, s Scrubber) *Error {
	return Fail(kind, 0, 0, Truncate(s.String(what+": "+Cause(err)), MaxMessageBytes), s.Err(err))
}

// HTTPFailure is the *Error of a non-2xx response: classified by ClassifyHTTP
// from its status and body, waiting as its retry-after headers ask. msg is
// the provider's own error text, read from the body by the adapter, which
// knows its shape; empty falls back to the status line. The kept error
// holds only the status: an SDK error holds the request, credential
// included. Adapters may refine Kind and RetryAfter with what only their
// provider says.
func HTTPFailure(res *http.Response, body, msg string, s Scrubber) *Error {
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	kind := ClassifyHTTP(res.StatusCode, body)
	wait := ParseRetryAfter(res.Header, time.Now())
	return Fail(kind, res.StatusCode, wait, Truncate(s.String(msg), MaxMessageBytes), fmt.Errorf("http status %d", res.StatusCode))
}

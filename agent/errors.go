package agent

import (
	"errors"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

// Errors a Handle returns. Validation errors are signals' sentinels
// (signals.ErrEmptyMessage, signals.ErrDisposed, ...).
var (
	ErrAlreadyExists = errors.New("agent already exists")
	ErrNotFound      = errors.New("agent not found")
	ErrClosed        = errors.New("agent is closed")
	ErrRejected      = errors.New("message rejected")
)

// fromRejection maps a workflow validator's rejection to its sentinel. The
// validator's message already names the sentinel's text when it wraps it
// (loop.Check's "%w: call %s"), so it is the error's text as it is: the
// text is never said twice.
func fromRejection(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return err
	}
	sentinel := signals.RejectionError(app.Type())
	if sentinel == nil {
		sentinel = ErrRejected
	}
	return &rejection{sentinel: sentinel, msg: app.Message(), typ: app.Type()}
}

// rejection is a workflow's refusal: its sentinel, and the validator's
// message with the sentinel's text at its head once; typ is its rejection
// type, for callers whose type has no sentinel of its own.
type rejection struct {
	sentinel error
	msg      string
	typ      string
}

func (r *rejection) Error() string {
	if head := r.sentinel.Error(); r.msg != head && !strings.HasPrefix(r.msg, head+": ") {
		return head + ": " + r.msg
	}
	return r.msg
}

func (r *rejection) Unwrap() error { return r.sentinel }

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

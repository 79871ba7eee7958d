package agent

import (
	"errors"
	"fmt"

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

// fromRejection maps a workflow validator's rejection to its sentinel.
func fromRejection(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return err
	}
	if sentinel := signals.RejectionError(app.Type()); sentinel != nil {
		return fmt.Errorf("%w: %s", sentinel, app.Message())
	}
	return fmt.Errorf("%w: %s", ErrRejected, app.Message())
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

package agent

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

// SelectModel switches the agent's provider, model and effort: s replaces
// the selection in force from the next step proposed on, so it never tears
// a request already made. Empty fields mean the worker's defaults.
//
// The switch is acknowledged (signals.SelectModelUpdate): one the worker
// cannot run, such as a provider it does not offer, fails with an error
// matching signals.ErrInvalidOptions (and ErrRejected) that says why, and
// the agent keeps its model. Raw clients may still send the
// select-model signal, which cannot answer: a refused one is recorded in
// the session log as refused (eventlog.ModelSelected.Refused).
func (h *Handle) SelectModel(ctx context.Context, s signals.Selection) error {
	if err := signals.ValidateSelection(s, nil); err != nil {
		return fmt.Errorf("%s agent %s: %w", signals.SelectModelUpdate.Name, h.ID, err)
	}
	_, err := updateOnce(ctx, h, signals.SelectModelUpdate, "", s)
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &app) && app.Type() == signals.RejectSelection:
		return fmt.Errorf("%s agent %s: %w", signals.SelectModelUpdate.Name, h.ID, selectionRefused(app.Message()))
	}
	return h.mapErr(ctx, signals.SelectModelUpdate.Name, err)
}

// selectionRefused is a model switch the agent's worker refused: its text
// is the worker's reason, and it matches signals.ErrInvalidOptions and
// ErrRejected.
type selectionRefused string

func (e selectionRefused) Error() string   { return string(e) }
func (e selectionRefused) Unwrap() []error { return []error{signals.ErrInvalidOptions, ErrRejected} }

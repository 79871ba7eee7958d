package agent

import (
	"context"
	"errors"
	"fmt"

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
// the session log as refused (eventlog.ModelSelected.Refused). Transient
// server failures are retried under one request ID, as for an
// acknowledged message, and no worker on the agent's queue is an
// *NoWorkerError within seconds.
func (h *Handle) SelectModel(ctx context.Context, s signals.Selection) error {
	if err := signals.ValidateSelection(s, nil); err != nil {
		return fmt.Errorf("%s agent %s: %w", signals.SelectModelUpdate.Name, h.ID, err)
	}
	_, err := deliver(ctx, h, request[signals.Selection, signals.SelectionAck]{
		u: signals.SelectModelUpdate, id: "select-model-" + newID(), in: s,
	})
	if r, ok := errors.AsType[*rejection](err); ok && r.typ == signals.RejectSelection {
		return fmt.Errorf("%s agent %s: %w", signals.SelectModelUpdate.Name, h.ID, selectionRefused(r.msg))
	}
	return err
}

// selectionRefused is a model switch the agent's worker refused: its text
// is the worker's reason, and it matches signals.ErrInvalidOptions and
// ErrRejected.
type selectionRefused string

func (e selectionRefused) Error() string   { return string(e) }
func (e selectionRefused) Unwrap() []error { return []error{signals.ErrInvalidOptions, ErrRejected} }

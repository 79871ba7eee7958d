package agent

import (
	"context"

	"github.com/tetherdev/tether/signals"
)

// SelectModel switches the agent's provider, model and effort (the
// select-model signal): s replaces the selection in force from the next
// step proposed on, so it never tears a request already made. Empty fields
// mean the worker's defaults.
func (h *Handle) SelectModel(ctx context.Context, s signals.Selection) error {
	return signal(ctx, h, signals.SelectModelSignal, s)
}

package agent

import (
	"context"

	"github.com/tetherdev/tether/eventlog"
)

// LogFrom reads the session log from position from (0 = the beginning) to
// its current end, across the agent's chain of runs like Log. A reader that
// keeps the Next of what it read polls with it and misses nothing: sequence
// numbers are gap-free. Without a worker it reads history, as Log does.
func (h *Handle) LogFrom(ctx context.Context, from int64) ([]eventlog.Envelope, error) {
	return h.readLog(ctx, max(from, 0))
}

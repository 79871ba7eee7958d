package workflows

import (
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// MaxLogPageBytes bounds one log page's event data, far below Temporal's
// 4 MiB gRPC limit. A page always holds at least one event.
const MaxLogPageBytes = 1 << 20

// Page answers the log query: events with From <= seq < To of this run.
func (c *Core) Page(req signals.LogRequest) signals.LogPage {
	end := c.base + int64(len(c.log))
	to := req.To
	if to <= 0 || to > end {
		to = end
	}
	limit := req.Limit
	if limit <= 0 || limit > signals.DefaultLogPage {
		limit = signals.DefaultLogPage
	}
	from := max(req.From, c.base)
	page := signals.LogPage{Events: []eventlog.Envelope{}, Len: end, Base: c.base, PrevRun: c.prevRun}
	if req.From < c.base {
		ctx := c.context
		page.Context = &ctx
	}
	size := 0
	for seq := from; seq < to && len(page.Events) < limit; seq++ {
		env := c.log[seq-c.base]
		size += len(env.Data)
		if size > MaxLogPageBytes && len(page.Events) > 0 {
			break
		}
		page.Events = append(page.Events, env)
	}
	page.Next = from + int64(len(page.Events))
	if page.Next < to && len(page.Events) == 0 {
		page.Next = to
	}
	return page
}

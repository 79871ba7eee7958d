package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// Feeds locates the feed in which this worker streams an agent's model
// calls: its URL and capability token (activities.HubStreams). The feed
// query hands them to clients, so a follower learns where to read before a
// turn starts, with nothing written to history. It is called from a query
// handler: it must not block, nor call back into the workflow.
type Feeds interface {
	Feed(agentID string) (url, token string)
}

// feedQuery answers signals.FeedQuery from the worker that holds the
// agent, which is where its model calls run (activities come back to the
// worker whose workflow task scheduled them). A query's answer is not
// recorded, so the token stays out of history.
func (r *run) feedQuery(ctx workflow.Context) error {
	return workflow.SetQueryHandler(ctx, signals.FeedQuery.Name, func() (signals.LiveFeed, error) {
		var f signals.LiveFeed
		if r.cfg.Feeds != nil {
			f.URL, f.Token = r.cfg.Feeds.Feed(r.loop.ID())
		}
		s := r.loop.State()
		if f.Turn = s.Turn + 1; s.InTurn {
			f.Turn = s.Turn
		}
		return f, nil
	})
}

package activities

import (
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/signals"
)

// HubStreams serves model calls' live chunks from this worker's hub. BaseURL
// is where clients reach the hub's handler (http://host:port, or https://
// when it serves TLS).
type HubStreams struct {
	Hub     *stream.Hub
	BaseURL string
}

// Open implements LiveStreams. The locator carries the stream's token: it
// goes into the activity's heartbeat details and nowhere else.
func (s HubStreams) Open(agent, run, activityID string, attempt int32) (ChunkWriter, signals.StreamLocator) {
	k := stream.Key{Agent: agent, Run: run, Activity: activityID, Attempt: attempt}
	w := s.Hub.Open(k)
	return w, signals.StreamLocator{URL: s.BaseURL + k.Path(), Token: w.Token(), Attempt: attempt}
}

// Feed says where this worker serves agent's feed, every model call it
// streams for the agent (it implements workflows.Feeds). The token goes
// into the feed query's answer and nowhere else.
func (s HubStreams) Feed(agent string) (url, token string) {
	path, token := s.Hub.Feed(agent)
	return s.BaseURL + path, token
}

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

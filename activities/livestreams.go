package activities

import (
	"github.com/tetherdev/tether/activities/stream"
)

// HubStreams serves model calls' live chunks from this worker's hub. BaseURL
// is where clients reach the hub's handler (http://host:port).
type HubStreams struct {
	Hub     *stream.Hub
	BaseURL string
}

// Open implements LiveStreams.
func (s HubStreams) Open(agent, run, activityID string, attempt int32) (ChunkWriter, string) {
	k := stream.Key{Agent: agent, Run: run, Activity: activityID, Attempt: attempt}
	return s.Hub.Open(k), s.BaseURL + k.Path()
}

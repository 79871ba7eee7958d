package cli

import (
	"fmt"

	"github.com/tetherdev/tether/agent"
)

// maxProgressMessage bounds a progress message on its status line; the
// worker already cuts it to one line of 160 bytes.
const maxProgressMessage = 160

// printProgress says how far the running tool calls are, as they last
// reported it: `progress:  tool files__index (activity tool-3-1-0): 40/100 "indexing"`.
func printProgress(e env, calls []agent.CallProgress) {
	for _, p := range calls {
		e.printf("progress:  tool %s (%s): %s\n", clip(p.Tool, 128), progressWhere(p), clipped(p).Text())
	}
}

// progressWhere names the call's activity, and its attempt past the first.
func progressWhere(p agent.CallProgress) string {
	if p.Attempt > 1 {
		return fmt.Sprintf("activity %s, attempt %d", p.ID, p.Attempt)
	}
	return "activity " + p.ID
}

// clipped is p with its message within maxProgressMessage bytes.
func clipped(p agent.CallProgress) agent.CallProgress {
	p.Message = clip(p.Message, maxProgressMessage)
	return p
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stepsTotal is how many steps the steps tool reports.
const stepsTotal = 3

// steps reports progress 1 of 3 with the message "<text> 1", then, each
// time the file step-<i> appears in the state directory (the test writes
// it once it saw step i), the next step, and answers "stepped 3" after
// step-3: a long call whose pace the test sets. It waits a minute at most
// for each file. A call without a progress token is answered "no token".
func (s *server) steps(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return text("no token"), nil
	}
	for i := 1; i <= stepsTotal; i++ {
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: stepsTotal,
			Message: fmt.Sprintf("%s %d", args(req).Text, i)}
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			return nil, err
		}
		if !s.await(ctx, fmt.Sprintf("step-%d", i)) {
			return text(fmt.Sprintf("no step-%d", i)), nil
		}
	}
	return text(fmt.Sprintf("stepped %d", stepsTotal)), nil
}

// await waits, a minute at most, for the file name in the state directory.
func (s *server) await(ctx context.Context, name string) bool {
	for range 6000 {
		if _, err := os.Stat(filepath.Join(s.state, name)); err == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return false
}

package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The worker's MCP server: the test server of package mcp over stdio,
// whose crash_always tool exits the server on every call.
const (
	mcpServer    = "crashy"
	crashTool    = mcpServer + "__crash_always"
	mcpEchoTool  = mcpServer + "__echo"
	mcpEchoText  = "the server serves after its crashes"
	maxMCPFaults = activities.MaxMCPFaults
)

type mcpTally struct {
	crashCalls, echoCalls int
	agents                []string
}

// mcpWorkerArgs builds the test MCP server into dir and writes the MCP
// configuration naming it: the worker's flags that enable it.
func mcpWorkerArgs(dir string) ([]string, error) {
	bin := filepath.Join(dir, "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "../activities/mcp/testdata/mcpserver").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("build the MCP server: %v: %s", err, out)
	}
	state := filepath.Join(dir, "mcp-state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(map[string]any{"servers": map[string]any{
		mcpServer: map[string]any{"command": bin, "args": []string{"-state", state}}}})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		return nil, err
	}
	return []string{"--mcp-config", path}, nil
}

// runMCPCrash: a new agent calls the tool whose server crashes on every
// call, then the same server's echo. The crashing call must end as an
// error result the model reads after MaxMCPFaults faults, and both turns
// must close (checkMessages); the echo proves the server is started
// again for the next call.
func runMCPCrash(ctx context.Context, cf *clientFaults, n int) error {
	ctx, cancel := context.WithTimeout(ctx, faultDeadline)
	defer cancel()
	id := fmt.Sprintf("f%02d-mcp", n)
	h, err := cf.create(ctx, id, signals.AgentOptions{Provider: scripted.Name,
		Tools: []string{"mcp:" + mcpServer + "/crash_always", "mcp:" + mcpServer + "/echo"}})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	cf.mu.Lock()
	cf.mcp.agents = append(cf.mcp.agents, id)
	cf.mu.Unlock()
	for i, content := range []string{"/tool " + crashTool + " {}", fmt.Sprintf(`/tool %s {"text":%q}`, mcpEchoTool, mcpEchoText)} {
		if err := cf.sendOnce(ctx, h, eventlog.MessageID(fmt.Sprintf("%s-%d", id, i)), content, false); err != nil {
			return err
		}
		if err := settle(ctx, h); err != nil {
			return err
		}
	}
	cf.mu.Lock()
	cf.mcp.crashCalls++
	cf.mcp.echoCalls++
	cf.mu.Unlock()
	return nil
}

// checkMCP: each call of the crashing tool is an error result saying its
// server broke off MaxMCPFaults times, from the attempt that hit the
// bound (its activity ran MaxMCPFaults times, no more); each echo is the
// server's answer.
func (cf *clientFaults) checkMCP(records map[string]*record, v *violations) {
	cf.mu.Lock()
	ids := slices.Clone(cf.mcp.agents)
	cf.mu.Unlock()
	// The last fault is the server's exit, whatever else (a worker
	// killed) broke an earlier attempt off.
	const cause = "no answer: its process exited"
	// An attempt lost with its worker counts as a fault but answers
	// nothing: when a kill takes the attempt that would have been the
	// last, the next one answers, counting it. A call runs at most a
	// kill's worth of attempts past the bound (the fleet's kills are
	// seconds apart, a crashing attempt milliseconds long).
	const lostToKills = 2

	for _, id := range ids {
		r := records[id]
		if r == nil || r.events == nil {
			v.add("%s: no log to check its MCP calls", id)
			continue
		}
		attempts := activityAttempts(r)
		var turn, step int
		var calls []eventlog.ToolCallRequest
		crashes, echoes := 0, 0
		for _, e := range r.events {
			switch e := e.(type) {
			case eventlog.StepStart:
				turn, step = e.Turn, e.Step
			case eventlog.AssistantMessage:
				calls = e.ToolCalls
			case eventlog.ToolResult:
				index := slices.IndexFunc(calls, func(c eventlog.ToolCallRequest) bool { return c.ID == e.CallID })
				n := attempts[signals.ToolActivityID(turn, step, index)]
				switch e.Name {
				case crashTool:
					crashes++
					want := fmt.Sprintf("crashed or lost its connection on tool %q %d times in a row", "crash_always", n)
					if !e.IsError || e.Outcome != "" || !strings.Contains(e.Content, want) || !strings.Contains(e.Content, cause) {
						v.add("%s: the crashing call %s ended %q (error %t): %q, want an error result saying %q and %q",
							id, e.CallID, e.Outcome, e.IsError, clip(e.Content), want, cause)
					}
					if n < maxMCPFaults || n > maxMCPFaults+lostToKills {
						v.add("%s: the crashing call %s ran %d attempts, want %d (up to %d more lost to worker kills)",
							id, e.CallID, n, maxMCPFaults, lostToKills)
					}
				case mcpEchoTool:
					echoes++
					if e.IsError || e.Content != mcpEchoText {
						v.add("%s: the echo after the crashes answered %q (error %t)", id, clip(e.Content), e.IsError)
					}
				}
			}
		}
		if crashes != 1 || echoes != 1 {
			v.add("%s: %d results of the crashing tool and %d of the echo, want one each", id, crashes, echoes)
		}
	}
}

// activityAttempts maps each activity ID of the chain to the attempt its
// last start was.
func activityAttempts(r *record) map[string]int {
	out := map[string]int{}
	for _, run := range r.runs {
		ids := map[int64]string{}
		for _, ev := range run.events {
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				ids[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityId()
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
				a := ev.GetActivityTaskStartedEventAttributes()
				id := ids[a.GetScheduledEventId()]
				out[id] = max(out[id], int(a.GetAttempt()))
			}
		}
	}
	return out
}

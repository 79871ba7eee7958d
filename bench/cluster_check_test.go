package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
)

// clusterCounts is what the agents' histories say about the run.
type clusterCounts struct {
	activities    map[string]int // completed activities by worker
	workflowTasks map[string]int // completed workflow tasks by worker
	// Traces of a lost worker: activities timed out (a model call, which
	// retry turns own) or retried by Temporal (a tool call), workflow tasks
	// timed out, and retry turns.
	activityTimeouts, activityRetries, taskTimeouts, retryTurns int
	// disturbed holds, by agent, when each of those traces happened.
	disturbed map[int][]time.Time
}

func newClusterCounts() clusterCounts {
	return clusterCounts{activities: map[string]int{}, workflowTasks: map[string]int{}, disturbed: map[int][]time.Time{}}
}

func (c *clusterCounts) add(o clusterCounts) {
	for k, v := range o.activities {
		c.activities[k] += v
	}
	for k, v := range o.workflowTasks {
		c.workflowTasks[k] += v
	}
	c.activityTimeouts += o.activityTimeouts
	c.activityRetries += o.activityRetries
	c.taskTimeouts += o.taskTimeouts
	c.retryTurns += o.retryTurns
	for k, v := range o.disturbed {
		c.disturbed[k] = append(c.disturbed[k], v...)
	}
}

// check reads every agent's history and proves each turn was answered
// once: as many user messages, settled turns and answers as turns, every
// tool call run once and answered by its tool.
func (f *fleet) check(ctx context.Context) (clusterCounts, error) {
	total := newClusterCounts()
	var mu sync.Mutex
	var errs []error
	ids := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for a := range ids {
				counts, err := f.checkAgent(ctx, a)
				mu.Lock()
				total.add(counts)
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	for a := range f.env.Agents {
		ids <- a
	}
	close(ids)
	wg.Wait()
	return total, errors.Join(errs...)
}

func (f *fleet) checkAgent(ctx context.Context, a int) (clusterCounts, error) {
	counts := newClusterCounts()
	id := f.agentID(a)
	history, err := projection.Fetch(ctx, f.c, id, "")
	if err != nil {
		return counts, fmt.Errorf("history of %s: %w", id, err)
	}
	for _, ev := range history {
		if f.countEvent(&counts, ev) {
			counts.disturbed[a] = append(counts.disturbed[a], ev.GetEventTime().AsTime())
		}
	}
	envs, err := projection.FromHistory(history)
	if err != nil {
		return counts, fmt.Errorf("log of %s from history: %w", id, err)
	}
	events, err := eventlog.DecodeAll(envs)
	if err != nil {
		return counts, fmt.Errorf("log of %s: %w", id, err)
	}
	for _, e := range events {
		if ts, ok := e.(eventlog.TurnStart); ok && ts.RetryOf > 0 {
			counts.retryTurns++
		}
	}
	if err := answeredOnce(events, f.turns); err != nil {
		return counts, fmt.Errorf("%s: %w", id, err)
	}
	return counts, nil
}

// countEvent counts ev and reports whether it is a trace of a lost worker.
func (f *fleet) countEvent(c *clusterCounts, ev *historypb.HistoryEvent) bool {
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		c.activities[f.worker(ev.GetActivityTaskCompletedEventAttributes().GetIdentity())]++
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
		c.workflowTasks[f.worker(ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity())]++
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
		c.activityTimeouts++
		return true
	case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
		c.taskTimeouts++
		return true
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
		if ev.GetActivityTaskStartedEventAttributes().GetAttempt() > 1 {
			c.activityRetries++
			return true
		}
	}
	return false
}

// worker names the process behind an SDK identity ("pid@host@").
func (f *fleet) worker(identity string) string {
	pid, _, _ := strings.Cut(identity, "@")
	for name, p := range f.env.Procs {
		if strconv.Itoa(p) == pid {
			return name
		}
	}
	return identity
}

// answeredOnce checks one agent's log: turns user messages "turn 1"...,
// each settled as completed with exactly one answer, and every tool call
// started once and answered once by its tool.
func answeredOnce(events []eventlog.Event, turns int) error {
	var users, answers []string
	calls, started, results := map[string]int{}, map[string]int{}, map[string]int{}
	for _, e := range events {
		switch e := e.(type) {
		case eventlog.UserMessage:
			users = append(users, e.Content)
		case eventlog.AssistantMessage:
			if len(e.ToolCalls) == 0 {
				answers = append(answers, e.Text)
			}
			for _, c := range e.ToolCalls {
				calls[c.ID]++
			}
		case eventlog.ToolCall:
			started[e.CallID]++
		case eventlog.ToolResult:
			if e.IsError || e.Outcome != "" {
				return fmt.Errorf("tool call %s ended %q (error %t): %.80s", e.CallID, e.Outcome, e.IsError, e.Content)
			}
			results[e.CallID]++
		}
	}
	if len(users) != turns || len(answers) != turns {
		return fmt.Errorf("%d user messages and %d answers, want %d of each", len(users), len(answers), turns)
	}
	for i, u := range users {
		if want := fmt.Sprintf("turn %d", i+1); u != want {
			return fmt.Errorf("user message %d is %q, want %q", i+1, u, want)
		}
	}
	settled := eventlog.Settlements(events)
	if len(settled) != turns {
		return fmt.Errorf("%d settled turns, want %d", len(settled), turns)
	}
	for _, s := range settled {
		if s.Reason != eventlog.EndCompleted {
			return fmt.Errorf("turn %d settled %s: %s", s.Turn, s.Reason, s.Error)
		}
	}
	for id, n := range calls {
		if n != 1 || started[id] != 1 || results[id] != 1 {
			return fmt.Errorf("tool call %s: asked %d, started %d, answered %d times, want once each", id, n, started[id], results[id])
		}
	}
	if len(started) != len(calls) || len(results) != len(calls) {
		return fmt.Errorf("%d tool calls asked, %d started, %d answered", len(calls), len(started), len(results))
	}
	return nil
}

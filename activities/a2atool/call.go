package a2atool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"go.temporal.io/sdk/activity"

	"github.com/tetherdev/tether/activities/tools"
)

// Args are a call's arguments, as the model gives them.
type Args struct {
	Message   string `json:"message,omitempty"`
	ContextID string `json:"context_id,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
}

// checkpoint is what a call records once the remote agent took its
// message: the task to follow after a crash instead of sending again.
type checkpoint struct {
	Task    a2a.TaskID `json:"task"`
	Context string     `json:"context,omitempty"`
}

// Derived IDs: a call's A2A message ID, and the context ID of a new
// conversation, come from the call's idempotency key, the same on every
// attempt, so a resend after a crash is the same message in the same
// context, which a server that honours message IDs (Tether's does)
// delivers once.
func messageID(key string) string { return derive("message", key) }
func contextID(key string) string { return derive("context", key) }

func derive(what, key string) string {
	sum := sha256.Sum256([]byte("tether a2a " + what + "\x00" + key))
	return "tether-" + hex.EncodeToString(sum[:16])
}

// FollowGrace is how long a call keeps trying to read a task the remote
// took while the remote fails to answer (a Tether server whose worker
// restarts answers an internal error meanwhile), before the attempt fails
// as a fault; each of MaxMCPFaults attempts gets it again.
const FollowGrace = time.Minute

// Poll bounds: how often a call asks for its task when the remote agent
// does not stream, and at least how long it waits between two follows.
const (
	pollEvery     = time.Second
	maxPollEvery  = 5 * time.Second
	requestBudget = 30 * time.Second // one tasks/get or message/send
	cancelBudget  = 10 * time.Second
)

// Call runs one call of the remote agent's tool: it sends the message (or,
// resuming after a crash, finds the task an earlier attempt's message
// started), waits for the task to settle within the agent's Timeout, and
// answers what the model should read. A remote that cannot be reached or
// fails on its side (HTTP 5xx, a JSON-RPC internal error) is a fault
// (tools.Unavailable), retried; a refusal (HTTP 401/403), a task that
// fails, is canceled or rejected, and a request the remote finds invalid
// are error results.
func (r *Remote) Call(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a Args
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tools.Result{}, tools.ErrorResult(fmt.Errorf("arguments: %v", err))
	}
	a.Message = strings.TrimSpace(a.Message)
	if a.Message == "" && a.TaskID == "" {
		return tools.Result{}, tools.ErrorResult(errors.New("message is empty: say what to ask the remote agent, " +
			"or give task_id alone to wait for a task it works on"))
	}
	c, err := r.connect(ctx)
	if err != nil {
		return tools.Result{}, r.fault("reach", err)
	}
	var cp checkpoint
	resumed, err := tools.LoadCheckpoint(ctx, &cp)
	if err != nil {
		resumed = false
	}
	var task *a2a.Task
	switch {
	case resumed:
		// An earlier attempt sent the message; the task is the remote's.
	case a.Message == "":
		cp.Task = a2a.TaskID(a.TaskID)
	default:
		res, err := r.send(ctx, c, call, a)
		if err != nil {
			return tools.Result{}, err
		}
		if m, ok := res.(*a2a.Message); ok {
			return r.answerMessage(m), nil
		}
		task = res.(*a2a.Task)
		cp = checkpoint{Task: task.ID, Context: task.ContextID}
		_ = tools.SaveCheckpoint(ctx, cp) // none in a local call; the message ID still dedupes
	}
	task, err = r.await(ctx, c, cp.Task, task)
	if err != nil {
		if ctx.Err() != nil {
			r.cancelRemote(ctx, c, cp.Task)
		}
		return tools.Result{}, err
	}
	return r.result(task), nil
}

// send sends the call's message: into the context the model named, or a
// new one derived from the call.
func (r *Remote) send(ctx context.Context, c *a2aclient.Client, call tools.Call, a Args) (a2a.SendMessageResult, error) {
	msg := &a2a.Message{ID: messageID(call.IdempotencyKey), Role: a2a.MessageRoleUser, ContextID: a.ContextID,
		TaskID: a2a.TaskID(a.TaskID), Parts: a2a.ContentParts{a2a.TextPart{Text: a.Message}}}
	if msg.ContextID == "" && msg.TaskID == "" {
		msg.ContextID = contextID(call.IdempotencyKey)
	}
	sctx, cancel := context.WithTimeout(ctx, requestBudget)
	defer cancel()
	res, err := c.SendMessage(sctx, &a2a.MessageSendParams{Message: msg})
	if err != nil {
		return nil, r.fault("send a message to", err)
	}
	switch res := res.(type) {
	case *a2a.Message:
		return res, nil
	case *a2a.Task:
		if res != nil && res.ID != "" {
			return res, nil
		}
	}
	return nil, tools.Unavailable(fmt.Errorf("A2A agent %q answered message/send with neither a task nor a message", r.Agent.Name))
}

// settled reports whether the call is done waiting for t: it ended, or
// waits for its caller.
func settled(t *a2a.Task) bool {
	return t != nil && (t.Status.State.Terminal() || t.Status.State == a2a.TaskStateInputRequired ||
		t.Status.State == a2a.TaskStateAuthRequired)
}

// await follows task id until it settles or the call's wait is up (then
// the task as last read, still working).
func (r *Remote) await(ctx context.Context, c *a2aclient.Client, id a2a.TaskID, last *a2a.Task) (*a2a.Task, error) {
	wctx, cancel := context.WithTimeout(ctx, r.wait(ctx))
	defer cancel()
	streams := false
	if card := r.Card(); card != nil {
		streams = card.Capabilities.Streaming
	}
	every := pollEvery
	var failing time.Time // since when reading the task fails
	for {
		if settled(last) {
			return last, nil
		}
		began := time.Now()
		if streams {
			r.follow(wctx, c, id)
		}
		if rest := every - time.Since(began); rest > 0 {
			select {
			case <-wctx.Done():
			case <-time.After(rest):
			}
			every = min(2*every, maxPollEvery)
		} else {
			every = pollEvery
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		gctx, gcancel := context.WithTimeout(ctx, requestBudget)
		t, err := c.GetTask(gctx, &a2a.TaskQueryParams{ID: id})
		gcancel()
		if err != nil {
			ferr := r.fault("read task "+string(id)+" of", err)
			if failing.IsZero() {
				failing = time.Now()
			}
			if _, fault := errors.AsType[*tools.UnavailableError](ferr); !fault || time.Since(failing) >= FollowGrace || wctx.Err() != nil {
				return nil, ferr
			}
			r.log.Warn("A2A task not read; trying again", "agent", r.Agent.Name, "task", id, "error", err)
			continue
		}
		failing = time.Time{}
		last = t
		if wctx.Err() != nil && !settled(last) {
			return last, nil
		}
	}
}

// follow reads the task's stream (tasks/resubscribe) until its final
// event, the stream's end or error, or ctx's: whatever it says, tasks/get
// reads the task after it.
func (r *Remote) follow(ctx context.Context, c *a2aclient.Client, id a2a.TaskID) {
	for ev, err := range c.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: id}) {
		if err != nil {
			return
		}
		switch ev := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			if ev.Final {
				return
			}
		case *a2a.Task:
			if settled(ev) {
				return
			}
		}
	}
}

// wait is how long this call may wait for its task: the agent's Timeout,
// within the attempt's own time limit less a margin to answer.
func (r *Remote) wait(ctx context.Context) time.Duration {
	d := r.Agent.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, max(time.Until(dl)-requestBudget-5*time.Second, time.Second))
	}
	return d
}

// cancelRemote cancels the remote task when the call was canceled (its
// turn was), not when its worker stops: a stopping worker's call resumes
// on the next attempt.
func (r *Remote) cancelRemote(ctx context.Context, c *a2aclient.Client, id a2a.TaskID) {
	if id == "" || !errors.Is(ctx.Err(), context.Canceled) || !activity.IsActivity(ctx) {
		return
	}
	select {
	case <-activity.GetWorkerStopChannel(ctx):
		return
	default:
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelBudget)
	defer cancel()
	if _, err := c.CancelTask(cctx, &a2a.TaskIDParams{ID: id}); err != nil {
		r.log.Warn("A2A task not canceled", "agent", r.Agent.Name, "task", id, "error", err)
	}
}

// fault sorts an error of the remote: a refusal or a request it found
// invalid is an error result the model reads; anything else (it cannot be
// reached, HTTP 5xx, an internal error) is a fault, retried.
func (r *Remote) fault(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if s, ok := refused(err); ok {
		return tools.ErrorResult(fmt.Errorf("A2A agent %q refused the worker: HTTP %s; check the token the worker sends it (token_env); calling it again will not help", r.Agent.Name, s.Status))
	}
	for _, e := range []error{a2a.ErrInvalidParams, a2a.ErrInvalidRequest, a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable,
		a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrMethodNotFound} {
		if errors.Is(err, e) {
			return tools.ErrorResult(fmt.Errorf("A2A agent %q refused: %v", r.Agent.Name, err))
		}
	}
	return tools.Unavailable(fmt.Errorf("%s A2A agent %q: %w", what, r.Agent.Name, err))
}

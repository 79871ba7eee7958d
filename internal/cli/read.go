package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// reader is a command that reads an agent, open or closed, and prints what
// show returns as text or, with --json, as JSON.
func reader(name string, show func(ctx context.Context, e env, h *agent.Handle, asJSON bool) error) command {
	return func(_ Starter, args []string) (action, error) {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "")
		pos, err := parse(fs, args, "ID")
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, e env) error {
			h, err := attachAny(ctx, e, pos[0])
			if err != nil {
				return err
			}
			return show(ctx, e, h, *asJSON)
		}, nil
	}
}

// statusJSON is status --json: the status query's view, the calls being
// retried and the running calls' progress.
type statusJSON struct {
	signals.StatusView
	Retrying []agent.Retrying     `json:"retrying,omitempty"`
	Progress []agent.CallProgress `json:"progress,omitempty"`
}

// fromHistory reports err as what a read says when no worker answered
// it (none polls, or the agent's workflow task is failing) and it was
// read from the agent's history instead: the note is printed on Err and
// the read is shown.
func fromHistory(e env, err error) bool {
	var nw *agent.NoWorkerError
	var tf *agent.TaskFailingError
	if !(errors.As(err, &nw) && nw.FromHistory) && !(errors.As(err, &tf) && tf.FromHistory) {
		return false
	}
	fmt.Fprintf(e.s.Err, "starter: %v\n", err)
	return true
}

func showStatus(ctx context.Context, e env, h *agent.Handle, asJSON bool) error {
	st, err := h.Status(ctx)
	var closed *agent.ClosedError
	if err != nil && !fromHistory(e, err) && (asJSON || !errors.As(err, &closed)) {
		return err
	}
	word, model := statusWord(ctx, e, h.ID, st, err)
	calls, err := h.Calls(ctx)
	switch {
	case err != nil:
		return err
	case asJSON:
		return e.json(statusJSON{StatusView: st, Retrying: calls.Retrying, Progress: calls.Progress})
	}
	printStatus(e, word, model, st)
	printRetrying(e, calls.Retrying)
	printProgress(e, calls.Progress)
	return nil
}

// statusWord is the agent's status as ls and tree say it (agent.Summary):
// how it ended once closed (signals.Ended), with why when its history
// says; disposing while a dispose is under way; starting while no worker
// has run it; else idle or running. err is what Status returned beside
// st. model is its model as ls shows it (agent.ModelShown), "" when its
// description cannot be read.
func statusWord(ctx context.Context, e env, id string, st signals.StatusView, err error) (word, model string) {
	desc, derr := e.conn.c.DescribeWorkflowExecution(ctx, id, "")
	info := desc.GetWorkflowExecutionInfo()
	if p := info.GetSearchAttributes().GetIndexedFields()[signals.AttrModel]; derr == nil && p != nil {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &model) // search attributes are never encrypted
		model = agent.ModelShown(model)
	}
	var closed *agent.ClosedError
	var nw *agent.NoWorkerError
	switch {
	case errors.As(err, &closed):
		word := string(signals.EndedFrom(closed.How))
		if closed.Reason != "" {
			word += " (" + closed.Reason + ")"
		}
		return cmp.Or(word, closed.How), model
	case errors.As(err, &nw) && st.Turn == 0 && st.Status == eventlog.StatusIdle:
		return agent.StatusStarting, model
	case st.Disposed && derr == nil && info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return string(signals.EndedDisposed), model
	}
	return agent.OpenStatus(st), model
}

// printRetrying says which calls fail and are tried again, and why.
func printRetrying(e env, calls []agent.Retrying) {
	for _, r := range calls {
		when := r.State
		if !r.NextAttempt.IsZero() {
			when = "next at " + r.NextAttempt.UTC().Format(time.RFC3339)
		}
		e.printf("retrying:  %s (activity %s), attempt %d, %s; last failure: %s\n",
			r.Activity, r.ID, r.Attempt, when, clip(r.LastFailure, 200))
	}
}

func showLog(ctx context.Context, e env, h *agent.Handle, asJSON bool) error {
	log, err := h.Log(ctx)
	switch {
	case err != nil && !fromHistory(e, err):
		return err
	case asJSON && log == nil: // nothing written yet
		return e.json([]eventlog.Envelope{})
	case asJSON:
		return e.json(log)
	}
	return agent.WriteTranscript(e.s.Out, h.ID, log)
}

// printStatus prints st, word its status and model its model (statusWord;
// "": no model line).
func printStatus(e env, word, model string, st signals.StatusView) {
	e.printf("status:    %s\nturn:      %d\nstep:      %d\nin turn:   %t\ndisposed:  %t\nlog:       %d events\n",
		word, st.Turn, st.Step, st.InTurn, st.Disposed, st.LogLen)
	if model != "" {
		e.printf("model:     %s\n", model)
	}
	for _, l := range []struct {
		name string
		msgs []eventlog.Pending
		n    int
	}{{"next-turn", st.NextTurn, st.NextTurnLen}, {"next-step", st.NextStep, st.NextStepLen}} {
		e.printf("%s: %d pending\n", l.name, max(l.n, len(l.msgs)))
		for _, m := range l.msgs {
			e.printf("  %s  %q\n", m.ID, clip(m.Content, 60))
		}
	}
	if st.ScheduledLen > 0 {
		e.printf("scheduled: %d, next at %s\n", st.ScheduledLen, st.NextAt.UTC().Format(time.RFC3339))
		for _, m := range st.Scheduled {
			e.printf("  %s  %s (%s)  %q\n", m.ID, m.At.UTC().Format(time.RFC3339), m.List, clip(m.Content, 60))
		}
	}
	for _, p := range st.Pending {
		e.printf("waiting for %s: call %s (%s %s) since %s\n", p.Kind, p.CallID, p.Name, clip(p.Arguments, 80),
			p.Since.UTC().Format(time.RFC3339))
	}
	for _, w := range st.Waits {
		e.printf("waiting: call %s until %s\n", w.CallID, w.Until.UTC().Format(time.RFC3339))
	}
	for _, c := range st.Children {
		e.printf("child: %s (%s, %d settled turns)\n", c.ID, c.Mode, c.Settled)
	}
}

// printBlocked says how to answer a turn that waits for a person.
func printBlocked(e env, id string, st signals.StatusView) {
	for _, p := range st.Pending {
		verb := "approve " + id + " " + p.CallID + " (or deny ... --reason R)"
		if p.Kind == eventlog.NeedAnswer {
			verb = "answer " + id + " " + p.CallID + " ANSWER"
		}
		e.printf("the turn waits for a person: starter %s\n", verb)
	}
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

type command func(ctx context.Context, e env, args []string) error

var commands = map[string]command{
	"start":    start,
	"followup": message((*agent.Handle).Followup, "followup"),
	"steer":    message((*agent.Handle).Steer, "steer"),
	"inject":   message((*agent.Handle).Inject, "inject"),
	"cancel":   cancel,
	"status":   reader("status", showStatus),
	"wait":     wait,
	"log":      reader("log", showLog),
	"dispose":  dispose,
	"compact":  compact,
	"console":  serveConsole,
	"ls":       list,
	"approve":  decision("approve", (*agent.Handle).Approve),
	"deny":     decision("deny", (*agent.Handle).Deny),
	"answer":   decision("answer", (*agent.Handle).Answer),
	"tree":     tree,
	"spawn":    spawn,
}

func compact(ctx context.Context, e env, args []string) error {
	pos, err := parse(flag.NewFlagSet("compact", flag.ContinueOnError), args, "ID")
	if err != nil {
		return err
	}
	h, err := e.agents.Attach(ctx, pos[0])
	if err != nil {
		return err
	}
	m, err := h.RunMaintenance(ctx, signals.TaskCompact)
	if err != nil {
		return err
	}
	e.printf("compacted: ~%d → ~%d tokens\n", m.Before, m.After)
	return nil
}

func start(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	var o agent.CreateOptions
	fs.StringVar(&o.ID, "id", "", "")
	fs.StringVar(&o.Options.Provider, "provider", "", "")
	fs.StringVar(&o.Options.Model, "model", "", "")
	fs.StringVar(&o.Options.SystemPrompt, "system", "", "")
	// File tools are opt-in: they exist only on a worker given --workspace,
	// and an agent naming a tool its worker lacks fails every model call.
	toolList := fs.String("tools", "current_time,calculate", "")
	approve := fs.String("approve", "", "")
	waitIdle := fs.Bool("wait", false, "")
	live := fs.Bool("stream", false, "")
	pos, err := parse(fs, args, "MESSAGE")
	if err != nil {
		return err
	}
	o.First = pos[0]
	o.Options.Tools = signals.ToolList(*toolList)
	if approved := signals.ToolList(*approve); len(approved) > 0 {
		o.Options.Approval = &signals.ApprovalPolicy{Tools: approved}
	}
	h, err := e.agents.Create(ctx, o)
	if err != nil {
		return err
	}
	e.printf("%s\n", h.ID)
	switch {
	case *live:
		return streamUntilIdle(ctx, e, h, streamStart{turn: 1})
	case *waitIdle:
		return waitAndPrint(ctx, e, h)
	}
	return nil
}

// deliveryTime is when a message is to be delivered: --at (RFC 3339),
// --in (a duration from now), or now (zero) without either.
func deliveryTime(cmd, at string, in time.Duration, now time.Time) (time.Time, error) {
	switch {
	case at != "" && in != 0:
		return time.Time{}, fmt.Errorf("%w: %s: --at and --in exclude each other", ErrUsage, cmd)
	case in < 0:
		return time.Time{}, fmt.Errorf("%w: %s: --in must not be negative", ErrUsage, cmd)
	case in > 0:
		return now.Add(in), nil
	case at == "":
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s: --at is not an RFC 3339 time (2026-12-01T10:00:00Z): %q", ErrUsage, cmd, at)
	}
	return t, nil
}

type send func(h *agent.Handle, ctx context.Context, content string, opts ...agent.SendOption) (signals.Ack, error)

func message(op send, name string) command {
	return func(ctx context.Context, e env, args []string) error {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		noAck := fs.Bool("no-ack", false, "")
		live := fs.Bool("stream", false, "")
		id := fs.String("message-id", "", "")
		at := fs.String("at", "", "")
		in := fs.Duration("in", 0, "")
		pos, err := parse(fs, args, "ID", "MESSAGE")
		if err != nil {
			return err
		}
		when, err := deliveryTime(name, *at, *in, time.Now())
		if err != nil {
			return err
		}
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		opts := []agent.SendOption{agent.WithMessageID(eventlog.MessageID(*id)), agent.At(when)}
		if !*noAck {
			opts = append(opts, agent.Acknowledged())
		}
		var from streamStart
		if *live { // before sending: a quick turn may be over before we look
			if from, err = nextTurn(ctx, h); err != nil {
				return err
			}
		}
		ack, err := op(h, ctx, pos[1], opts...)
		switch {
		case errors.Is(err, signals.ErrDuplicateID):
			// A resend of a delivered message: delivered once, so success.
			fmt.Fprintf(e.s.Err, "starter: message %s was already accepted; not delivered again\n", *id)
			ack.MessageID = eventlog.MessageID(*id)
		case err != nil:
			return err
		}
		e.printf("%s\n", ack.MessageID)
		if *live {
			return streamUntilIdle(ctx, e, h, from)
		}
		return nil
	}
}

func cancel(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("cancel", flag.ContinueOnError)
	cause := fs.String("cause", "canceled by starter", "")
	keep := fs.Bool("keep-inbox", false, "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return err
	}
	h, err := e.agents.Attach(ctx, pos[0])
	if err != nil {
		return err
	}
	return h.Cancel(ctx, *cause, *keep)
}

// reader is a command that reads an agent, open or closed, and prints what
// show returns as text or, with --json, as JSON.
func reader(name string, show func(ctx context.Context, e env, h *agent.Handle, asJSON bool) error) command {
	return func(ctx context.Context, e env, args []string) error {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "")
		pos, err := parse(fs, args, "ID")
		if err != nil {
			return err
		}
		h, err := attachAny(ctx, e, pos[0])
		if err != nil {
			return err
		}
		return show(ctx, e, h, *asJSON)
	}
}

// statusJSON is status --json: the status query's view, the calls being
// retried and the running calls' progress.
type statusJSON struct {
	signals.StatusView
	Retrying []agent.Retrying     `json:"retrying,omitempty"`
	Progress []agent.CallProgress `json:"progress,omitempty"`
}

func showStatus(ctx context.Context, e env, h *agent.Handle, asJSON bool) error {
	st, err := h.Status(ctx)
	if err != nil {
		return err
	}
	calls, err := h.Calls(ctx)
	switch {
	case err != nil:
		return err
	case asJSON:
		return e.json(statusJSON{StatusView: st, Retrying: calls.Retrying, Progress: calls.Progress})
	}
	printStatus(e, st)
	printRetrying(e, calls.Retrying)
	printProgress(e, calls.Progress)
	return nil
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
	case err != nil:
		return err
	case asJSON:
		return e.json(log)
	}
	return agent.WriteTranscript(e.s.Out, h.ID, log)
}

func printStatus(e env, st signals.StatusView) {
	e.printf("status:    %s\nturn:      %d\nstep:      %d\nin turn:   %t\ndisposed:  %t\nlog:       %d events\n",
		st.Status, st.Turn, st.Step, st.InTurn, st.Disposed, st.LogLen)
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

func wait(ctx context.Context, e env, args []string) error {
	pos, err := parse(flag.NewFlagSet("wait", flag.ContinueOnError), args, "ID")
	if err != nil {
		return err
	}
	h, err := e.agents.Attach(ctx, pos[0])
	if err != nil {
		return err
	}
	st, err := h.WaitIdle(ctx, agent.OrBlocked())
	if err != nil {
		return err
	}
	printStatus(e, st)
	printBlocked(e, h.ID, st)
	return nil
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

func dispose(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("dispose", flag.ContinueOnError)
	cause := fs.String("cause", "disposed by starter", "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return err
	}
	h, err := e.agents.Attach(ctx, pos[0])
	if err != nil {
		return err
	}
	return h.Dispose(ctx, *cause)
}

func waitAndPrint(ctx context.Context, e env, h *agent.Handle) error {
	st, err := h.WaitIdle(ctx, agent.OrBlocked())
	if err != nil {
		return err
	}
	log, err := h.Log(ctx)
	if err != nil {
		return err
	}
	if err := agent.WriteTranscript(e.s.Out, h.ID, log); err != nil {
		return err
	}
	printBlocked(e, h.ID, st)
	return nil
}

// attachAny attaches for reading: a closed agent's status and log can still
// be read.
func attachAny(ctx context.Context, e env, id string) (*agent.Handle, error) {
	h, err := e.agents.Attach(ctx, id)
	if err != nil && h != nil {
		return h, nil // closed: queries still answer
	}
	return h, err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func itoa(i int) string { return strconv.Itoa(i) }

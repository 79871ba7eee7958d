package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

func start(s Starter, args []string) (action, error) {
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
	in := inputFlags(fs)
	pos, err := parseMessage(s, fs, args, in)
	if err != nil {
		return nil, err
	}
	if o.ID != "" {
		if err := CheckAgentID(o.ID); err != nil {
			return nil, fmt.Errorf("%w: start: --id %v", ErrUsage, err)
		}
	}
	o.First = pos[0]
	o.Options.Tools = signals.ToolList(*toolList)
	if approved := signals.ToolList(*approve); len(approved) > 0 {
		o.Options.Approval = &signals.ApprovalPolicy{Tools: approved}
	}
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Create(ctx, o)
		if errors.Is(err, agent.ErrAlreadyExists) {
			return usedID(ctx, e, o.ID, err)
		}
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
		return started(ctx, e, h)
	}, nil
}

// startCheck bounds how long start without --wait waits for the agent's
// first workflow task: an agent whose options its worker refuses (a tool
// it does not offer) fails in it.
const startCheck = 10 * time.Second

// started waits for the agent's first workflow task and fails when the
// agent ended in it. A worker that has not taken it within startCheck is
// noted, not an error: the agent runs once a worker polls its queue.
func started(ctx context.Context, e env, h *agent.Handle) error {
	cctx, cancel := context.WithTimeout(ctx, startCheck)
	defer cancel()
	_, err := h.Status(cctx)
	var closed *agent.ClosedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &closed) && closed.Reason != "":
		return fmt.Errorf("agent %s ended in its first workflow task (%s): %s", h.ID, closed.How, closed.Reason)
	case errors.Is(err, agent.ErrClosed):
		return fmt.Errorf("agent %s ended in its first workflow task: %w", h.ID, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	fmt.Fprintf(e.s.Err, "starter: agent %s is started, but no worker has answered for it yet on task queue %s (%v); it runs once one polls the queue\n",
		h.ID, e.conn.taskQueue, err)
	return nil
}

// usedID explains an ID that is taken: by an open agent, or by one that
// ended (an ID is never reused).
func usedID(ctx context.Context, e env, id string, err error) error {
	desc, derr := e.conn.c.DescribeWorkflowExecution(ctx, id, "")
	if derr != nil {
		return err
	}
	st := desc.GetWorkflowExecutionInfo().GetStatus()
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return fmt.Errorf("%w (it is open: send it a message with starter followup %s MESSAGE)", err, id)
	}
	return fmt.Errorf("agent ID %s was used by an agent that has ended (%s), and an ID is never reused: "+
		"start with another --id, or read the old one with starter log %s", id, endedAs(st), id)
}

// endedAs is a closed workflow status as the views say it
// (signals.Ended): disposed, failed, timed-out, ...
func endedAs(st enumspb.WorkflowExecutionStatus) string {
	name := enumspb.WorkflowExecutionStatus_name[int32(st)]
	return cmp.Or(string(signals.EndedFrom(name)), strings.ToLower(strings.TrimPrefix(name, "WORKFLOW_EXECUTION_STATUS_")))
}

func compact(_ Starter, args []string) (action, error) {
	pos, err := parse(flag.NewFlagSet("compact", flag.ContinueOnError), args, "ID")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		m, err := h.RunMaintenance(ctx, signals.TaskCompact)
		if err != nil {
			return err
		}
		printCompacted(e, m)
		return nil
	}, nil
}

// printCompacted reports the context's estimated size before and after,
// and says so when it did not shrink.
func printCompacted(e env, m signals.Maintained) {
	switch {
	case m.Before < 0:
		e.printf("compacted (its figures were lost with an attempt's answer: starter status shows the context now)\n")
	case m.After < m.Before:
		e.printf("compacted: ~%d → ~%d tokens\n", m.Before, m.After)
	case m.After == m.Before:
		e.printf("nothing compacted: the context stays ~%d tokens (too little to prune or summarise)\n", m.After)
	default:
		e.printf("the context did not shrink: ~%d → ~%d tokens\n", m.Before, m.After)
	}
}

func cancel(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("cancel", flag.ContinueOnError)
	cause := fs.String("cause", "canceled by starter", "")
	keep := fs.Bool("keep-inbox", false, "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		st, err := h.Status(ctx)
		if err != nil {
			return err
		}
		if err := h.Cancel(ctx, *cause, *keep); err != nil {
			return err
		}
		printCanceled(e, h.ID, st, *keep)
		return nil
	}, nil
}

// printCanceled says what a cancel sent to an agent in state st did.
func printCanceled(e env, id string, st signals.StatusView, keep bool) {
	pending := max(st.NextTurnLen, len(st.NextTurn)) + max(st.NextStepLen, len(st.NextStep)) + st.ScheduledLen
	inbox := ""
	switch {
	case pending == 0:
	case keep:
		inbox = fmt.Sprintf("; %d waiting messages kept", pending)
	default:
		inbox = fmt.Sprintf("; %d waiting messages discarded", pending)
	}
	if !st.InTurn {
		e.printf("%s was idle: no turn to cancel%s\n", id, inbox)
		return
	}
	e.printf("%s: turn %d canceled%s\n", id, st.Turn, inbox)
}

func dispose(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("dispose", flag.ContinueOnError)
	cause := fs.String("cause", "disposed by starter", "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		if err := h.Dispose(ctx, *cause); err != nil {
			return err
		}
		e.printf("%s disposed (%s)\n", h.ID, *cause)
		return nil
	}, nil
}

var wait = idCommand("wait", func(ctx context.Context, e env, id string) error {
	h, err := e.agents.Attach(ctx, id)
	if err != nil {
		return err
	}
	st, err := h.WaitIdle(ctx, agent.OrBlocked())
	if err != nil {
		return err
	}
	printStatus(e, agent.OpenStatus(st), "", st)
	printBlocked(e, h.ID, st)
	return nil
})

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

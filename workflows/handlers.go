package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// errNotAccepting answers a message the loop could not record.
var errNotAccepting = errors.New("agent is not accepting messages")

// register installs every signal, update and query handler. It runs before
// the workflow's first blocking call. Handlers only turn messages into loop
// requests; the loop records the events.
func (r *run) register(ctx workflow.Context) error {
	// Followup, steer and inject route as signals.MessageOps says, the
	// table the client reads too; a send names its own route.
	for _, op := range signals.MessageOps() {
		if err := r.messageUpdate(ctx, op.Update.Name, op.Route); err != nil {
			return err
		}
		r.receive(ctx, op.Signal.Name, func(m signals.Message) { r.accept(ctx, m, op.Route, time.Time{}) })
	}
	r.inlets = append(r.inlets,
		receive(ctx, signals.SendSignal.Name, func(s signals.Send) { r.accept(ctx, s.Message, s.Route(), s.At) }),
		receive(ctx, signals.CancelSignal.Name, func(c signals.Cancel) {
			r.request(ctx, loop.Cancel{Cause: c.Cause, KeepInbox: c.KeepInbox})
		}),
		receive(ctx, signals.DisposeSignal.Name, func(d signals.Dispose) { r.request(ctx, loop.Dispose{Cause: d.Cause}) }),
		receive(ctx, signals.SelectModelSignal.Name, func(s signals.Selection) {
			if rd := r.request(ctx, loop.SelectModel{Selection: s}); rd.Err != nil {
				r.logger(ctx).Warn("Model selection rejected", "provider", s.Provider, "error", rd.Err)
			}
		}),
		receive(ctx, signals.ChildReportSignal.Name, func(rep signals.ChildReport) { r.queue(loop.ChildReport{Report: rep}) }),
	)
	r.listen(ctx)
	if err := r.orchestrationUpdates(ctx); err != nil {
		return err
	}
	if err := r.sendUpdate(ctx); err != nil {
		return err
	}
	if err := r.waitIdleUpdate(ctx); err != nil {
		return err
	}
	if err := r.maintainUpdate(ctx); err != nil {
		return err
	}
	if err := r.selectModelUpdate(ctx); err != nil {
		return err
	}
	if err := r.rewindUpdate(ctx); err != nil {
		return err
	}
	return r.queries(ctx)
}

// accept records a signalled message. A signal cannot answer, so a refused
// one is logged and left out of the session log; callers that need to know
// use the update of the same name. A zero at delivers now.
func (r *run) accept(ctx workflow.Context, m signals.Message, rt signals.Route, at time.Time) {
	if rd := r.request(ctx, loop.Accept{Message: m, List: rt.List, Wake: rt.Wake, At: at}); rd.Err != nil {
		r.logger(ctx).Warn("Message rejected", "message_id", m.ID, "list", rt.List, "error", rd.Err)
	}
}

// ackWire is what an acknowledged message's update answers: a
// signals.Ack without its message ID, which the client sent and fills in
// again (agent.deliverMessage, the TypeScript client's deliverMessage), so
// the update's completed event does not write it a sixth time (33 bytes
// of every acknowledged turn). A client that reads the ID from the answer
// finds it empty and reports the message delivered with Seq -1. Update
// results are not replayed, so runs recorded with the whole Ack replay.
type ackWire struct {
	Seq int64 `json:"seq"` // signals.Ack.Seq
}

// acked accepts a message for an update and answers its ack.
func (r *run) acked(ctx workflow.Context, m signals.Message, rt signals.Route, at time.Time) (ackWire, error) {
	r.drainSignals()
	rd := r.request(ctx, loop.Accept{Message: m, List: rt.List, Wake: rt.Wake, At: at})
	switch {
	case rd.Err != nil:
		return ackWire{}, reject(rd.Err)
	case len(rd.Recorded) == 0 || r.loop.Err() != nil:
		return ackWire{}, errNotAccepting
	}
	return ackWire{Seq: rd.Recorded[0].Seq}, nil
}

func (r *run) messageUpdate(ctx workflow.Context, name string, rt signals.Route) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, name,
		func(ctx workflow.Context, m signals.Message) (ackWire, error) {
			return r.acked(ctx, m, rt, time.Time{})
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, m signals.Message) error {
			if err := r.loop.Check(m); err != nil {
				return reject(err)
			}
			return reject(r.admit(ctx, m))
		}},
	)
}

func (r *run) sendUpdate(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.SendUpdate.Name,
		func(ctx workflow.Context, s signals.Send) (ackWire, error) {
			return r.acked(ctx, s.Message, s.Route(), s.At)
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, s signals.Send) error {
			if err := signals.ValidateSend(s); err != nil {
				return reject(err)
			}
			if err := r.loop.Check(s.Message); err != nil {
				return reject(err)
			}
			if err := r.loop.CheckSchedule(s.At, workflow.Now(ctx), s.Content); err != nil {
				return reject(err)
			}
			return reject(r.admit(ctx, s.Message))
		}},
	)
}

// waitIdleUpdate answers once the agent has no open turn and no due work.
// Its validator rejects an already idle agent, so polling an idle agent
// writes nothing to history.
func (r *run) waitIdleUpdate(ctx workflow.Context) error {
	disposed := func() bool { return r.loop.State().Disposing }
	return workflow.SetUpdateHandlerWithOptions(ctx, signals.WaitIdleUpdate.Name,
		func(ctx workflow.Context, _ signals.WaitIdle) (signals.StatusView, error) {
			err := workflow.Await(ctx, func() bool { return r.loop.Idle() || disposed() || r.continuing })
			if err == nil && r.continuing && !r.loop.Idle() {
				err = reject(signals.ErrContinuing) // ask the next run
			}
			return r.loop.Status(), err
		},
		workflow.UpdateHandlerOptions{Validator: func(workflow.Context, signals.WaitIdle) error {
			switch {
			case disposed():
				return reject(signals.ErrDisposed)
			case r.loop.Idle():
				return reject(signals.ErrAlreadyIdle)
			}
			return nil
		}},
	)
}

func (r *run) queries(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, signals.StatusQuery.Name, func() (signals.StatusView, error) {
		return r.loop.Status(), nil
	}); err != nil {
		return err
	}
	if err := r.feedQuery(ctx); err != nil {
		return err
	}
	return workflow.SetQueryHandler(ctx, signals.LogQuery.Name, func(req signals.LogRequest) (signals.LogPage, error) {
		return r.loop.Page(req), nil
	})
}

// inlet is one signal channel and the drain that hands every signal
// delivered on it but not yet received to its handler, without blocking.
type inlet struct {
	ch    workflow.ReceiveChannel
	drain func()
}

// receive is the inlet of the signals on name, each handed to handle.
func receive[T any](ctx workflow.Context, name string, handle func(T)) inlet {
	ch := workflow.GetSignalChannel(ctx, name)
	return inlet{ch: ch, drain: func() {
		for {
			var v T
			if !ch.ReceiveAsync(&v) {
				return
			}
			handle(v)
		}
	}}
}

// listen runs the one coroutine that receives every signal: whenever a
// channel holds a value it drains every inlet, in the order they were
// registered, which is the order one coroutine per channel used to run in.
// One coroutine an agent rather than one a signal name: a worker holds
// thousands of idle agents, and each parked coroutine is a goroutine with
// its stack.
//
// The coroutine waits for a channel to hold a value and only then takes
// it, rather than blocking in Receive: a blocked Receive is handed the value
// the moment the signal is delivered, before the coroutine runs, where no
// drain can see it. A run that decided to continue as new in the same
// workflow task then closed with the signal in that coroutine's hands, and
// the signal was lost (a child's report, seen about 1 run in 4 when it
// arrived while the parent's Continue-As-New was being completed). A run
// drains its inlets before it ends, so nothing delivered is lost.
func (r *run) listen(ctx workflow.Context) {
	pending := func() bool {
		for _, in := range r.inlets {
			if in.ch.Len() > 0 {
				return true
			}
		}
		return false
	}
	// Disconnected: a cancellation request ends the run through its
	// selector, not by stopping its signals halfway.
	detached, _ := workflow.NewDisconnectedContext(ctx)
	workflow.Go(detached, func(ctx workflow.Context) {
		for {
			_ = workflow.Await(ctx, pending)
			r.drainSignals()
		}
	})
}

// drainSignals hands every signal delivered but not yet received to its
// handler. Every update calls it before it acts: the SDK runs an update's
// handler ahead of every other coroutine of its workflow task, so a signal
// recorded before the update (a model switch, then a followup) otherwise
// reached the loop after the update and after all the main coroutine did
// with it: the followup's turn opened its first step on the old model. A
// signal delivered is in history before the update's acceptance, so this
// keeps history's order. A child's close and settling call it too, so the
// signals delivered before them reach the loop first.
func (r *run) drainSignals() {
	for _, in := range r.inlets {
		in.drain()
	}
}

func (r *run) receive(ctx workflow.Context, name string, handle func(signals.Message)) {
	r.inlets = append(r.inlets, receive(ctx, name, handle))
}

// admission is what the run's validators know of its history's size: the
// size the server gave at the start of the current workflow task, and the
// bytes of the messages accepted since, which that size does not show yet.
type admission struct{ size, since int }

// admitOverhead is what an accepted update adds to history beside its
// message's content and ID (its events and their metadata), rounded up.
const admitOverhead = 1 << 10

// admit refuses a message, busy, while the run's history would pass
// signals.MaxRunHistoryBytes with it: a burst of acknowledged sends (many
// accepted in one workflow task, before the run could continue as new)
// cannot take it to Temporal's limit, where the server terminates it. It
// runs in validators only, which replay does not run, so its count
// decides no command.
func (r *run) admit(ctx workflow.Context, m signals.Message) error {
	return r.admitted.admit(workflow.GetInfo(ctx).GetCurrentHistorySize(), len(m.Content)+len(m.ID)+admitOverhead)
}

// admit counts n more bytes against a history of size (the server's
// figure for the current workflow task), or refuses them, busy, when the
// total would pass signals.MaxRunHistoryBytes. A new size starts the count
// again: the server's figure then holds what was admitted before it.
func (a *admission) admit(size, n int) error {
	if size != a.size {
		*a = admission{size: size}
	}
	if total := size + a.since + n; total > signals.MaxRunHistoryBytes {
		return fmt.Errorf("%w: the run's history would hold %d bytes, limit %d, until it continues as new; retry in %s",
			signals.ErrBusy, total, signals.MaxRunHistoryBytes, signals.BusyRetryAfter)
	}
	a.since += n
	return nil
}

// reject types a validation error so clients can match it. Only a busy
// agent's refusal is retryable: every other one answers the same again.
func reject(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, signals.ErrBusy) {
		return temporal.NewApplicationError(err.Error(), signals.RejectBusy, signals.BusyRetryAfter)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), signals.RejectionType(err), nil)
}

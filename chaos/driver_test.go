package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// driver runs one agent of the fleet: round after round until the
// schedule is over (and at least minRounds), each round's messages sent
// with IDs of its own and sent again until accepted, then the agent
// settled, deciding what waits for a person on the way.
type driver struct {
	id      string
	kind    kind
	agents  *agent.Client
	h       *agent.Handle
	rng     *rand.Rand
	led     *ledger
	streams *streamTally
	decided map[string]bool
}

// run drives the agent until quiet is closed and minRounds are done. A
// round that does not finish within roundTimeout is a liveness failure.
func (d *driver) run(ctx context.Context, quiet <-chan struct{}, minRounds int, roundTimeout time.Duration) {
	if err := d.create(ctx); err != nil {
		d.led.fail("%s: create: %v", d.id, err)
		return
	}
	if d.kind == kindStream {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go d.streams.follow(fctx, d.h)
	}
	for r := 1; ; r++ {
		select {
		case <-quiet:
			if r > minRounds {
				return
			}
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, roundTimeout)
		err := d.round(rctx, r)
		cancel()
		if err != nil {
			d.led.fail("%s (%s) round %d: %v", d.id, d.kind, r, err)
			return
		}
		d.led.count(&d.led.rounds)
	}
}

// create starts the agent with no first message (messages are sent with
// IDs of the harness's choosing); a create whose answer was lost finds the
// agent already there.
func (d *driver) create(ctx context.Context) error {
	_, err := persist(ctx, func(ctx context.Context) error {
		h, err := d.agents.Create(ctx, agent.CreateOptions{ID: d.id, Options: d.kind.options()})
		if errors.Is(err, agent.ErrAlreadyExists) {
			h, err = d.agents.Attach(ctx, d.id)
		}
		d.h = h
		return err
	})
	return err
}

func (d *driver) round(ctx context.Context, r int) error {
	p := d.kind.round(r, d.rng)
	for _, s := range p.sends {
		if s.pause > 0 {
			time.Sleep(s.pause)
		}
		if err := d.deliver(ctx, r, s); err != nil {
			return fmt.Errorf("%s %s: %w", s.op, s.tag, err)
		}
	}
	if err := d.settle(ctx); err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	if !p.maintain {
		return nil
	}
	_, err := persist(ctx, func(ctx context.Context) error {
		_, err := d.h.RunMaintenance(ctx, signals.TaskCompact)
		return err
	})
	if err == nil {
		d.led.count(&d.led.maintenance)
	}
	return err
}

// deliver sends s until the agent has it: as an acknowledged update (three
// times in four) or as a signal, each try with the same message ID, so a
// resend after an unknown outcome is delivered once. Such an outcome needs
// a fault to land in the middle of the call, which the runs rarely see,
// so one message in eight is sent again on purpose once the agent has it,
// as a client that lost the answer would, either way again: an update
// after an update gets the first one's answer, an update after a signal
// ErrDuplicateID, a signal is dropped. checkMessages proves each arrived
// once.
func (d *driver) deliver(ctx context.Context, r int, s send) error {
	id := eventlog.MessageID(fmt.Sprintf("%s-r%d-%s", d.id, r, s.tag))
	signal := d.rng.IntN(4) == 0
	dup := false
	send := func(signal bool) func(context.Context) error {
		opts := []agent.SendOption{agent.WithMessageID(id)}
		if signal {
			opts = append(opts, agent.Unacknowledged())
		}
		return func(ctx context.Context) error {
			var err error
			switch s.op {
			case opFollowup:
				_, err = d.h.Followup(ctx, s.content, opts...)
			case opSteer:
				_, err = d.h.Steer(ctx, s.content, opts...)
			case opInject:
				_, err = d.h.Inject(ctx, s.content, opts...)
			case opSend:
				_, err = d.h.Send(ctx, s.content, eventlog.NextTurn, true, opts...)
			}
			if errors.Is(err, signals.ErrDuplicateID) { // a resend of what the agent has
				dup = true
				return nil
			}
			return err
		}
	}
	tries, err := persist(ctx, send(signal))
	if err == nil && d.rng.IntN(8) == 0 {
		var again int
		again, err = persist(ctx, send(d.rng.IntN(2) == 0))
		tries += again
	}
	if err == nil {
		d.led.accepted(d.id, id, sentMessage{op: s.op, content: s.content, signal: signal}, tries, dup)
	}
	return err
}

// settle waits until the agent is idle, deciding every call that waits
// for a person meanwhile.
func (d *driver) settle(ctx context.Context) error {
	for {
		var st signals.StatusView
		_, err := persist(ctx, func(ctx context.Context) error {
			var err error
			st, err = d.h.WaitIdle(ctx, agent.OrBlocked())
			return err
		})
		if err != nil {
			return err
		}
		if st.Idle() {
			return nil
		}
		for _, p := range st.Pending {
			if err := d.decide(ctx, p); err != nil {
				return fmt.Errorf("decide %s: %w", p.CallID, err)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// decide answers a question, or approves (seven times in ten) or denies a
// call. Each try has a fresh decision ID, so a try after one whose answer
// was lost finds the call decided (ErrNoSuchDecision): that is success,
// and the log check proves which decision stands.
func (d *driver) decide(ctx context.Context, p signals.PendingView) error {
	if d.decided[p.CallID] {
		return nil // the status has not caught up yet
	}
	time.Sleep(jitter(d.rng, 0, 1500*time.Millisecond))
	dec := decision{kind: p.Kind}
	switch {
	case p.Kind == eventlog.NeedAnswer:
		dec.text = "seven, says chaos"
	case d.rng.IntN(10) < 7:
		dec.approved, dec.text = true, "approved by chaos"
	default:
		dec.text = "denied by chaos"
	}
	tries, err := persist(ctx, func(ctx context.Context) error {
		var err error
		switch {
		case dec.kind == eventlog.NeedAnswer:
			_, err = d.h.Answer(ctx, p.CallID, "chaos", dec.text)
		case dec.approved:
			_, err = d.h.Approve(ctx, p.CallID, "chaos", dec.text)
		default:
			_, err = d.h.Deny(ctx, p.CallID, "chaos", dec.text)
		}
		if errors.Is(err, signals.ErrNoSuchDecision) {
			return nil
		}
		return err
	})
	if err == nil {
		d.decided[p.CallID] = true
		d.led.decided(d.id, p.CallID, dec, tries)
	}
	return err
}

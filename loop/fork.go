package loop

import (
	"fmt"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Forking, as the seed rules take it (ForkSeed):
//
//   - A fork is seeded like a run continued as new, from the source's log
//     folded up to and including a position At, and only where a seed may
//     be taken: at a turn boundary (the agent idle, no turn open) or at a
//     step boundary inside a turn whose last step ended with tool calls
//     and will take another step. Everywhere else, inside a step (a model
//     call, tool calls running, an approval or answer pending, a wait
//     sleeping), in a turn being canceled or about to stop, the position is
//     refused with the nearest valid ones (*ForkPositionError).
//   - At a valid position every call the prefix made has its result, so
//     the fork runs none of them again and the conversation it sends the
//     model is whole.
//   - What the source was told to do later does not follow the fork: the
//     messages pending or scheduled at At are dropped (listed in
//     session/forked), and so are queued maintenance and a dispose.
//   - Children are not forked: the fork starts with none, and the source's
//     children go on reporting to the source. (A call waiting for a child
//     is open inside a step, where no fork is taken.)
//   - The fork keeps the source's usage so far, model selection, system
//     prompt, runtime context and last request header, so its next request
//     is the source's request at that point.
//   - Its log goes on at At+1 with session/forked, recorded by the fork's
//     first step (Restore keeps it for Step).

// Prefix is an agent's log as a fork reads it: where the agent's own log
// begins (the zero State and an empty Context for an agent that was not
// itself forked; its first run's seed for a fork) and the events from
// State.Len on.
type Prefix struct {
	State   eventlog.State
	Context eventlog.ConversationSnapshot
	Events  []eventlog.Envelope
}

// ForkSeed folds p up to and including position f.At and returns the seed
// of a fork's first run, with f completed (Dropped, Replaced) as the event
// the fork records first. A non-empty f.ReplacedLast replaces the text of
// the last user message of the folded conversation.
func ForkSeed(p Prefix, f eventlog.SessionForked) (signals.Seed, error) {
	points, err := foldPrefix(p, f.At)
	if err != nil {
		return signals.Seed{}, err
	}
	at := points.at
	if at.why != "" {
		before, after := points.nearest(f.At)
		return signals.Seed{}, &ForkPositionError{At: f.At, Before: before, After: after, Why: at.why}
	}
	st, ctx := at.state, at.conv.Snapshot()
	f.Dropped = dropped(st)
	if f.ReplacedLast != "" {
		if f.Replaced, err = replaceLast(&ctx, f.ReplacedLast); err != nil {
			return signals.Seed{}, err
		}
	}
	st.Inbox, st.Scheduled, st.Maintenance = eventlog.Inbox{}, nil, nil
	st.Disposing, st.DisposeCause, st.Children = false, "", nil
	seed := signals.Seed{State: st, Context: ctx, Selection: st.Selection, Fork: &f}
	if st.InTurn {
		seed.Turn = &signals.OpenTurn{Retry: at.turn.retry, ToolCalls: true, LastText: at.turn.lastText}
	}
	return seed, nil
}

// ForkPoints lists the positions of p that can be forked from, in order.
func ForkPoints(p Prefix) ([]int64, error) {
	end := p.State.Len + int64(len(p.Events)) - 1
	points, err := foldPrefix(p, end)
	return points.valid, err
}

// point is the fold at one position, and why a fork may not be taken there.
type point struct {
	state eventlog.State
	conv  *eventlog.Conversation
	turn  forkTurn
	why   string
}

// forkTurn is what a step boundary's seed says of its open turn.
type forkTurn struct {
	retry     bool
	toolCalls bool // the last step asked for tools, none concluded the turn
	lastText  string
}

// points are the valid positions of a prefix and the fold at the one asked.
type points struct {
	valid []int64
	at    point
}

// nearest are the valid positions closest to at on each side (-1: none).
func (ps points) nearest(at int64) (before, after int64) {
	before, after = -1, -1
	for _, v := range ps.valid {
		if v < at {
			before = v
		} else if v > at && after < 0 {
			after = v
		}
	}
	return before, after
}

// foldPrefix folds all of p, noting every valid position, and keeps the
// fold at position at.
func foldPrefix(p Prefix, at int64) (points, error) {
	end := p.State.Len + int64(len(p.Events)) - 1
	if at < p.State.Len || at > end {
		return points{}, fmt.Errorf("cannot fork at %d: this log holds positions %d to %d", at, p.State.Len, end)
	}
	var ps points
	cur := point{state: p.State, conv: eventlog.RestoreConversation(p.Context)}
	for _, env := range p.Events {
		if env.Seq != cur.state.Len {
			return points{}, fmt.Errorf("fork prefix: seq %d where %d was due", env.Seq, cur.state.Len)
		}
		e, err := eventlog.Decode(env)
		if err != nil {
			return points{}, fmt.Errorf("fork prefix: %w", err)
		}
		if err := cur.state.Apply(e); err != nil {
			return points{}, fmt.Errorf("fork prefix: %w", err)
		}
		cur.conv.Apply(e)
		cur.turn = cur.turn.apply(e)
		cur.why = forkable(cur.state, cur.turn)
		if cur.why == "" {
			ps.valid = append(ps.valid, env.Seq)
		}
		if env.Seq == at {
			ps.at = cur
			ps.at.conv = cur.conv.Clone()
		}
	}
	return ps, nil
}

// apply follows the open turn's working set through e.
func (t forkTurn) apply(e eventlog.Event) forkTurn {
	switch e := e.(type) {
	case eventlog.TurnStart:
		return forkTurn{retry: e.RetryOf > 0}
	case eventlog.AssistantMessage:
		t.toolCalls = len(e.ToolCalls) > 0
		if e.Text != "" {
			t.lastText = e.Text
		}
	case eventlog.ToolResult:
		if e.ConcludesTurn {
			t.toolCalls = false
		}
	case eventlog.AssistantAttempt:
		t.toolCalls = false
	}
	return t
}

// forkable says why a fork may not be taken at a fold, or "" when it may.
func forkable(s eventlog.State, t forkTurn) string {
	switch {
	case s.InStep:
		return "inside a step (its calls, approvals or waits are open)"
	case s.Canceling != "":
		return "the turn is being canceled"
	case s.InTurn && !t.toolCalls:
		return "the turn's last step asked for no tools: the turn is stopping"
	case !s.InTurn && s.Status != eventlog.StatusIdle:
		return "the turn ended but the agent is not idle yet"
	case s.Disposing:
		return "the agent is being disposed"
	}
	return ""
}

// dropped lists the messages a fork does not receive: pending, then
// scheduled.
func dropped(s eventlog.State) []eventlog.MessageID {
	var out []eventlog.MessageID
	for _, l := range [][]eventlog.Pending{s.Inbox.NextTurn, s.Inbox.NextStep} {
		for _, m := range l {
			out = append(out, m.ID)
		}
	}
	for _, m := range s.Scheduled {
		out = append(out, m.ID)
	}
	return out
}

// replaceLast gives the last user message of ctx the text with, and
// returns the text it had. Runtime-context and summary messages are the
// loop's, not the user's.
func replaceLast(ctx *eventlog.ConversationSnapshot, with string) (string, error) {
	for i := len(ctx.Messages) - 1; i >= 0; i-- {
		m := ctx.Messages[i]
		if m.Role != eventlog.RoleUser || strings.HasPrefix(m.Content, eventlog.RuntimeContextPrefix) ||
			strings.HasPrefix(m.Content, eventlog.SummaryPrefix) {
			continue
		}
		ctx.Messages = append([]eventlog.Message(nil), ctx.Messages...)
		ctx.Messages[i].Content = with
		return m.Content, nil
	}
	return "", ErrNoUserMessage
}

// recordFork records the fork's first event, which Restore kept. The
// journal carries it at the next carry point: going idle or the first
// model call.
func (l *Loop) recordFork(now time.Time) {
	if l.fork == nil {
		return
	}
	f := *l.fork
	l.fork = nil
	l.record(now, "", f)
}

// FreshPrefix is the Prefix of an agent that was not forked, over its
// log's events from seq 0: the state New starts from.
func FreshPrefix(o signals.AgentOptions, events []eventlog.Envelope) Prefix {
	st := eventlog.NewState(0)
	st.Selection = signals.Selection{Provider: o.Provider, Model: o.Model, Effort: o.Effort}
	return Prefix{State: st, Events: events}
}

package a2aserver

import (
	"context"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

// drainGrace bounds how long a settled task's stream waits for the live
// tokens of its last model call before it sends the final artifact: the
// log can say a turn ended before the worker's feed reached the client.
const drainGrace = 3 * time.Second

// stream sends the task, then the model's live text as updates of the
// "answer" artifact (from the agent's token feed, from its turn's first
// call), a status update per change of state, and, once the task settles,
// the settled answer replacing the live text (lastChunk) and a final
// status. Every stream's first artifact update replaces what came before,
// so a client that resubscribes after a dropped connection ends with the
// same artifact, once, however much of the first stream it saw.
func (h *handler) stream(ctx context.Context, hd *agent.Handle, msg eventlog.MessageID, yield func(a2a.Event, error) bool) {
	snap, err := h.read(ctx, hd, msg)
	if err != nil {
		yield(nil, err)
		return
	}
	if !yield(snap.task, nil) || settled(snap.task) {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &streamer{hd: hd, msg: msg, task: snap.task, yield: yield}
	snaps := s.snapshots(ctx, h, snap)
	if snap.view.claimed {
		s.startTokens(ctx, snap.view.turn)
	}
	for {
		select {
		case ev, ok := <-s.tokens:
			if !ok {
				s.tokens = nil
				continue
			}
			if !s.token(ev) {
				return
			}
		case r, ok := <-snaps:
			if !ok {
				return
			}
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			if r.s.view.claimed {
				s.startTokens(ctx, r.s.view.turn)
			}
			if settled(r.s.task) {
				s.drain(ctx, r.s.view.lastStep)
				s.settle(r.s.task)
				return
			}
			if !yield(statusEvent(r.s.task, false), nil) {
				return
			}
		}
	}
}

type snapResult struct {
	s   snapshot
	err error
}

// snapshots runs follow in its own goroutine, after the first snapshot
// (which stream has sent), until ctx ends.
func (s *streamer) snapshots(ctx context.Context, h *handler, snap snapshot) <-chan snapResult {
	out := make(chan snapResult)
	go func() {
		defer close(out)
		first := true
		for sn, err := range h.follow(ctx, s.hd, s.msg, snap, settled) {
			if first && err == nil {
				first = false
				continue
			}
			select {
			case out <- snapResult{sn, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// streamer is one stream's live artifact: each model call's text in the
// order the calls came, and what of it the client has been sent.
type streamer struct {
	hd     *agent.Handle
	msg    eventlog.MessageID
	task   *a2a.Task
	yield  func(a2a.Event, error) bool
	tokens <-chan agent.TokenEvent
	turn   int // the task's turn, once the tokens are followed

	calls []liveCall
	sent  string
	done  map[[2]int]bool
}

type liveCall struct {
	turn, step int
	attempt    int32
	text       strings.Builder
}

// startTokens follows the agent's token feed from the task's turn, once.
// A feed that cannot be read (a worker that streams nothing, or refuses
// for load) ends the live text, never the stream: the log still settles
// the task and the final artifact carries the answer.
func (s *streamer) startTokens(ctx context.Context, turn int) {
	if s.turn != 0 {
		return
	}
	s.turn = turn
	ch := make(chan agent.TokenEvent, 64)
	s.tokens = ch
	go func() {
		defer close(ch)
		for ev, err := range s.hd.Tokens(ctx, agent.FromTurn(turn)) {
			if err != nil {
				return
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// token applies one live event to the artifact and sends what changed; it
// reports whether the client still listens.
func (s *streamer) token(ev agent.TokenEvent) bool {
	if ev.Turn < s.turn {
		return true
	}
	key := [2]int{ev.Turn, ev.Step}
	switch ev.Kind {
	case agent.TokenDone:
		if s.done == nil {
			s.done = map[[2]int]bool{}
		}
		s.done[key] = true
		return true
	case agent.TokenReset:
		for i, c := range s.calls {
			if c.turn == ev.Turn && c.step == ev.Step && c.attempt == ev.Attempt {
				s.calls = append(s.calls[:i], s.calls[i+1:]...)
				break
			}
		}
	case agent.TokenChunk:
		if ev.Chunk.Text == "" {
			return true
		}
		s.call(ev).text.WriteString(ev.Chunk.Text)
	}
	return s.send(ev)
}

func (s *streamer) call(ev agent.TokenEvent) *liveCall {
	for i := range s.calls {
		if c := &s.calls[i]; c.turn == ev.Turn && c.step == ev.Step && c.attempt == ev.Attempt {
			return c
		}
	}
	s.calls = append(s.calls, liveCall{turn: ev.Turn, step: ev.Step, attempt: ev.Attempt})
	return &s.calls[len(s.calls)-1]
}

// send sends the live text's change since the last update: appended when
// what was sent is still its start, else the whole text, replacing.
func (s *streamer) send(ev agent.TokenEvent) bool {
	var parts []string
	for i := range s.calls {
		if t := s.calls[i].text.String(); t != "" {
			parts = append(parts, t)
		}
	}
	full := strings.Join(parts, "\n\n")
	if full == s.sent {
		return true
	}
	up := &a2a.TaskArtifactUpdateEvent{
		TaskID: s.task.ID, ContextID: s.task.ContextID,
		Metadata: map[string]any{"tether.live": true, "tether.turn": ev.Turn, "tether.step": ev.Step},
	}
	text := full
	if s.sent != "" && strings.HasPrefix(full, s.sent) {
		text, up.Append = full[len(s.sent):], true
	}
	s.sent = full
	up.Artifact = &a2a.Artifact{ID: answerID(s.msg), Name: "answer", Parts: a2a.ContentParts{a2a.TextPart{Text: text}}}
	return s.yield(up, nil)
}

// drain sends the live tokens still on their way until the call last
// names has ended, the feed ends, or drainGrace passes.
func (s *streamer) drain(ctx context.Context, last [2]int) {
	if s.tokens == nil || last == [2]int{} {
		return
	}
	timer := time.NewTimer(drainGrace)
	defer timer.Stop()
	for !s.done[last] {
		select {
		case ev, ok := <-s.tokens:
			if !ok || !s.token(ev) {
				return
			}
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// settle sends the settled answer, replacing the live text, and the final
// status.
func (s *streamer) settle(t *a2a.Task) {
	for _, a := range t.Artifacts {
		if !s.yield(&a2a.TaskArtifactUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Artifact: a, LastChunk: true}, nil) {
			return
		}
	}
	s.yield(statusEvent(t, true), nil)
}

func statusEvent(t *a2a.Task, final bool) *a2a.TaskStatusUpdateEvent {
	return &a2a.TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: t.Status, Final: final, Metadata: t.Metadata}
}

func answerID(msg eventlog.MessageID) a2a.ArtifactID {
	return a2a.ArtifactID(string(msg) + "-answer")
}

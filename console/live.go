package console

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/signals"
)

// liveCall is the text so far of the model call in flight, kept so that a
// page arriving mid-call (a reload, a reconnect) gets all of it.
type liveCall struct {
	active     bool
	Turn, Step int
	Attempt    int32
	text       strings.Builder
	failed     bool // an attempt of this step failed: its output was discarded
}

// apply folds ev and returns the frame that tells pages, if any: the end
// of a call tells them nothing (its message is about to reach the log).
func (l *liveCall) apply(ev agent.TokenEvent) (frame, bool) {
	if !l.active || l.Turn != ev.Turn || l.Step != ev.Step || l.Attempt != ev.Attempt {
		failed := l.active && l.Turn == ev.Turn && l.Step == ev.Step && l.failed
		*l = liveCall{active: true, Turn: ev.Turn, Step: ev.Step, Attempt: ev.Attempt, failed: failed}
		if ev.Kind == agent.TokenChunk {
			l.text.WriteString(chunkText(ev.Chunk))
			return l.frame(true), true
		}
	}
	switch ev.Kind {
	case agent.TokenChunk:
		delta := chunkText(ev.Chunk)
		l.text.WriteString(delta)
		return l.delta(delta), true
	case agent.TokenReset:
		l.text.Reset()
		l.failed = true
		return l.frame(true), true
	}
	return frame{}, false
}

// chunkText is what a chunk adds to the live text: its text, or a tool
// call's name and argument deltas.
func chunkText(c signals.Chunk) string {
	switch {
	case c.ToolName != "":
		return "\n→ " + c.ToolName + " " + c.Arguments
	case c.Arguments != "":
		return c.Arguments
	}
	return c.Text
}

// tokenData is a token frame's data: Text replaces the call's live text
// when Replace is set, else extends it.
type tokenData struct {
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	Attempt int32  `json:"attempt"`
	Text    string `json:"text"`
	Replace bool   `json:"replace,omitempty"`
	Failed  bool   `json:"failed,omitempty"`
}

func (l *liveCall) frame(replace bool) frame {
	return l.encode(tokenData{Turn: l.Turn, Step: l.Step, Attempt: l.Attempt, Text: l.text.String(), Replace: replace, Failed: l.failed})
}

func (l *liveCall) delta(text string) frame {
	return l.encode(tokenData{Turn: l.Turn, Step: l.Step, Attempt: l.Attempt, Text: text, Failed: l.failed})
}

func (l *liveCall) encode(d tokenData) frame {
	data, _ := json.Marshal(d)
	return frame{Event: "token", ID: -1, Data: data}
}

// maxLiveCalls bounds the calls a feed keeps live text of.
const maxLiveCalls = 4

// liveCalls are the model calls in flight, oldest first. Usually there is
// one, but a canceled call streams on until its activity hears of the
// cancel (at its next heartbeat) while the next turn's call has begun:
// each call keeps its own text, so the two never cut into each other.
type liveCalls []*liveCall

// apply folds ev into its call's text and returns the frame that tells
// pages, if any.
func (ls *liveCalls) apply(ev agent.TokenEvent) (frame, bool) {
	for _, l := range *ls {
		if l.Turn == ev.Turn && l.Step == ev.Step {
			return l.apply(ev)
		}
	}
	if len(*ls) == maxLiveCalls {
		*ls = (*ls)[1:]
	}
	l := &liveCall{}
	*ls = append(*ls, l)
	return l.apply(ev)
}

// settle drops the calls whose step tr shows is no longer calling: the log
// has their message or their failure now.
func (ls *liveCalls) settle(tr *transcript.Transcript) {
	*ls = slices.DeleteFunc(*ls, func(l *liveCall) bool { return !calling(tr, l.Turn, l.Step) })
}

// frames bring a page arriving mid-call all of each call's text.
func (ls liveCalls) frames() []frame {
	out := make([]frame, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.frame(true))
	}
	return out
}

// followTokens reads the agent's token streams while the feed runs; a
// worker that refuses for load is asked again after a pause.
func (f *feed) followTokens() {
	for f.ctx.Err() == nil {
		for ev, err := range f.h.Tokens(f.ctx) {
			if err != nil {
				break
			}
			f.mu.Lock()
			if !calling(f.tr, ev.Turn, ev.Step) {
				// The log has settled this call: what streams now is
				// a canceled call's tail.
				f.mu.Unlock()
				continue
			}
			if fr, ok := f.live.apply(ev); ok {
				f.broadcast(fr)
			}
			f.mu.Unlock()
		}
		select {
		case <-f.ctx.Done():
		case <-time.After(retryTokens):
		}
	}
}

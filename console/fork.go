package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// lineage is what an agent page says of where the agent came from (its
// log's session/forked) and of the agents forked from it (TetherForkOf).
type lineage struct {
	Fork      *eventlog.SessionForked
	SourceURL string // the source as of the fork point
	DiffURL   string // this fork beside its source
	Forks     []forkLink
	MoreForks int // forks left out of Forks
}

type forkLink struct{ ID, URL, DiffURL string }

// maxForksShown bounds the forks an agent page lists.
const maxForksShown = 20

// lineage reads the forks of the agent (a visibility query, bounded by
// QueryTimeout; none when it fails, e.g. without search attributes) and
// names its source when it is a fork.
func (s *Server) lineage(ctx context.Context, snap *snapshot, tr *transcript.Transcript) lineage {
	var l lineage
	if f := tr.Fork; f != nil {
		l.Fork = f
		l.SourceURL = "/agents/" + url.PathEscape(f.Source) + "?at=" + strconv.FormatInt(f.At, 10)
		l.DiffURL = diffURL(f.Source, snap.ID)
	}
	if snap.Handle == nil {
		return l
	}
	qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
	defer cancel()
	forks, err := snap.Handle.Forks(qctx)
	if err != nil {
		return l
	}
	if len(forks) > maxForksShown {
		l.MoreForks, forks = len(forks)-maxForksShown, forks[:maxForksShown]
	}
	for _, id := range forks {
		l.Forks = append(l.Forks, forkLink{ID: id, URL: "/agents/" + url.PathEscape(id), DiffURL: diffURL(snap.ID, id)})
	}
	return l
}

func diffURL(a, b string) string {
	return "/diff?" + url.Values{"a": {a}, "b": {b}}.Encode()
}

// errForkPosition marks a fork position the agent's log refuses
// (agent.ForkPositionError, agent.ForkRangeError).
var errForkPosition = errors.New("fork refused")

// fork starts a new agent from the agent's log up to the form's position
// (agent.Handle.Fork) and goes to it. The source is read, never written:
// a refused fork leaves it as it was.
func (s *Server) fork(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	opts, at, err := forkForm(r)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	h, err := s.agents.Attach(ctx, r.PathValue("id"))
	if h == nil { // a closed agent forks too: only a missing one fails here
		s.fail(w, r, 0, err)
		return
	}
	f, err := h.Fork(ctx, at, opts...)
	if err != nil {
		s.fail(w, r, 0, forkError(err))
		return
	}
	s.done(w, r, f.ID, "fork", map[string]any{"id": f.ID, "url": "/agents/" + url.PathEscape(f.ID) + "?done=fork"})
}

// forkForm reads the fork form: the position, and optionally the new
// agent's ID, a replacement for the last user message and a message to
// append, each checked as the client would.
func forkForm(r *http.Request) ([]agent.ForkOption, int64, error) {
	raw := strings.TrimSpace(r.PostFormValue("at"))
	at, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || at < 0 {
		return nil, 0, fmt.Errorf("%w: at=%q: want a log position, a number from 0", errBadInput, raw)
	}
	id := strings.TrimSpace(r.PostFormValue("new_id"))
	switch {
	case len(id) > maxAgentIDBytes:
		return nil, 0, fmt.Errorf("%w: agent ID: at most %d bytes", errBadInput, maxAgentIDBytes)
	case id != "" && !validID(id):
		return nil, 0, errBadID
	}
	opts := []agent.ForkOption{agent.WithForkID(id)}
	for _, f := range []struct {
		field, what string
		opt         func(string) agent.ForkOption
	}{{"replace_last", "the replacement of the last user message", agent.ReplaceLast}, {"append", "the appended message", agent.AppendMessage}} {
		text := r.PostFormValue(f.field)
		if text == "" {
			continue
		}
		if err := signals.ValidateContent(text); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f.what, err)
		}
		opts = append(opts, f.opt(text))
	}
	return opts, at, nil
}

// forkError gives the fork's own refusals their kind: a position the seed
// rules refuse or outside what the agent's history holds (Fork reads the
// log from history, which may not hold an open agent's newest events
// yet), a last user message to replace that is not there.
func forkError(err error) error {
	var pos *agent.ForkPositionError
	if errors.As(err, &pos) || errors.Is(err, agent.ErrForkOutOfRange) {
		return fmt.Errorf("%w: %w", errForkPosition, err)
	}
	return err
}

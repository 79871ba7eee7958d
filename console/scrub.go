package console

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// scrubber is the page's range over the positions of the log. Scrubbed
// says the page shows the agent as of At, read-only; otherwise At is the
// latest position and the page is live. First is the log's first position:
// 0, or for a fork the position after its fork point (the positions before
// are its source's).
type scrubber struct {
	At       int64
	First    int64
	Last     int64
	When     time.Time // when the event at At was recorded
	Scrubbed bool
	LiveURL  string // the page as it is now
}

// parseAt reads the at parameter: "" for the live page, else a position
// of a log of n events from position first. Anything else is refused,
// never clamped: a link to a position names exactly what it shows.
func parseAt(raw string, first int64, n int) (int64, bool, error) {
	if raw == "" {
		return 0, false, nil
	}
	at, err := strconv.ParseInt(raw, 10, 64)
	last := first + int64(n) - 1
	switch {
	case n == 0:
		return 0, false, fmt.Errorf("%w: at=%q: the log is empty", errBadInput, raw)
	case err != nil || at < first || at > last:
		return 0, false, fmt.Errorf("%w: at=%q: want a log position from %d to %d", errBadInput, raw, first, last)
	}
	return at, true, nil
}

// statusAt is the status the loop's fold of log from base gives (a fresh
// state, or a fork's seed): what the status query answered when the log
// ended where log does, less whether work was due and the run count,
// which the log does not hold.
func statusAt(base eventlog.State, log []eventlog.Envelope) (*signals.StatusView, error) {
	s := base
	for _, env := range log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return nil, err
		}
		if err := s.Apply(e); err != nil {
			return nil, err
		}
	}
	v := signals.StatusOf(s)
	return &v, nil
}

// scrub shows v as of position at of snap's log, whose fold begins at base:
// the transcript and the status folded from the log's prefix, with no
// forms, no live feed and no tree (which is read as it is now, not as it
// was).
func scrub(v *agentView, snap *snapshot, base eventlog.State, at int64) error {
	prefix := snap.Log[:at-base.Len+1]
	tr, err := transcript.Build(prefix, snap.prices())
	if err != nil {
		return err
	}
	st, err := statusAt(base, prefix)
	if err != nil {
		return err
	}
	v.Blocks, v.Next = tr.Blocks, tr.Next
	v.Status.Status, v.Status.Err, v.Status.Total, v.Status.Selection = st, "", tr.Total, tr.Selection
	v.Status.Live, v.Status.Closed, v.Status.Tree, v.Status.Forms, v.Status.CSRF = false, false, nil, false, ""
	v.Scrub.At, v.Scrub.When, v.Scrub.Scrubbed = at, prefix[len(prefix)-1].At, true
	v.Scrub.LiveURL = "/agents/" + url.PathEscape(v.ID)
	return nil
}

// foldBase is where the fold of an agent's log begins: a fresh state, or
// for a fork (whose log begins with session/forked) the state its first
// run was seeded with, read from that run's input.
func (s *Server) foldBase(ctx context.Context, id string, tr *transcript.Transcript) (eventlog.State, error) {
	if tr.Fork == nil {
		return eventlog.NewState(0), nil
	}
	runs, err := projection.FetchChain(ctx, s.o.Client, id)
	if err != nil {
		return eventlog.State{}, err
	}
	first, err := projection.Using(s.o.DataConverter).Runs(runs[0])
	if err != nil {
		return eventlog.State{}, fmt.Errorf("read the seed of fork %s: %w", id, err)
	}
	seed := first[0].Input.Seed
	if seed == nil || seed.State.Len != tr.First {
		return eventlog.State{}, fmt.Errorf("fork %s: its first run's seed does not end where its log begins (%d)", id, tr.First)
	}
	return seed.State, nil
}

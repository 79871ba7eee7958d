package console

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// scrubber is the page's range over the positions of the log. Scrubbed
// says the page shows the agent as of At, read-only; otherwise At is the
// latest position and the page is live.
type scrubber struct {
	At       int64
	Last     int64
	When     time.Time // when the event at At was recorded
	Scrubbed bool
	LiveURL  string // the page as it is now
}

// parseAt reads the at parameter: "" for the live page, else a position
// of a log with n events. Anything else is refused, never clamped: a link
// to a position names exactly what it shows.
func parseAt(raw string, n int) (int64, bool, error) {
	if raw == "" {
		return 0, false, nil
	}
	at, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case n == 0:
		return 0, false, fmt.Errorf("%w: at=%q: the log is empty", errBadInput, raw)
	case err != nil || at < 0 || at >= int64(n):
		return 0, false, fmt.Errorf("%w: at=%q: want a log position from 0 to %d", errBadInput, raw, n-1)
	}
	return at, true, nil
}

// statusAt is the status the loop's fold of log gives: what the status
// query answered when the log had len(log) events, less whether work was
// due and the run count, which the log does not hold.
func statusAt(log []eventlog.Envelope) (*signals.StatusView, error) {
	s := eventlog.NewState(0)
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

// scrub shows v as of position at of snap's log: the transcript and the
// status folded from the log's prefix, with no forms, no live feed and no
// tree (which is read as it is now, not as it was).
func scrub(v *agentView, snap *snapshot, at int64) error {
	prefix := snap.Log[:at+1]
	tr, err := transcript.Build(prefix, snap.prices())
	if err != nil {
		return err
	}
	st, err := statusAt(prefix)
	if err != nil {
		return err
	}
	v.Blocks, v.Next = tr.Blocks, tr.Next
	v.Status.Status, v.Status.Err, v.Status.Total, v.Status.Selection = st, "", tr.Total, tr.Selection
	v.Status.Live, v.Status.Closed, v.Status.Tree, v.Status.Forms, v.Status.CSRF = false, false, nil, false, ""
	v.Scrub.At, v.Scrub.When, v.Scrub.Scrubbed = at, prefix[at].At, true
	v.Scrub.LiveURL = "/agents/" + url.PathEscape(v.ID)
	return nil
}

package console

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// scrubView is the replay scrubber: the page shows the session as it was
// when its log ended at At.
type scrubView struct {
	At      int64     // the last event shown
	Last    int64     // the log's last event
	When    time.Time // when event At was recorded
	LiveURL string
}

// errScrub is a malformed or out-of-range position.
var errScrub = fmt.Errorf("%w: at must be a log position", errBadInput)

// scrubTo reads the page's "at" and cuts log after it. Without "at" the
// log is whole and scrub is nil; a position that is not an integer within
// the log is an error, never clamped: a link to a point in a session
// either shows that point or says why not.
func scrubTo(r *http.Request, id string, log []eventlog.Envelope) ([]eventlog.Envelope, *scrubView, error) {
	raw, ok := r.URL.Query()["at"]
	if !ok {
		return log, nil, nil
	}
	if len(raw) != 1 || len(log) == 0 {
		return nil, nil, fmt.Errorf("%w (the log has %d events)", errScrub, len(log))
	}
	at, err := strconv.ParseInt(raw[0], 10, 64)
	last := log[len(log)-1].Seq
	if err != nil || at < log[0].Seq || at > last {
		return nil, nil, fmt.Errorf("%w from %d to %d, not %q", errScrub, log[0].Seq, last, raw[0])
	}
	n := sort.Search(len(log), func(i int) bool { return log[i].Seq > at })
	return log[:n], &scrubView{At: at, Last: last, When: log[n-1].At, LiveURL: "/agents/" + url.PathEscape(id)}, nil
}

// statusAsOf folds the status an agent had when its log was log: the
// state machine's dimensions, its inbox and usage. What only the running
// workflow knows (runs, pending decisions, children) is left out.
func statusAsOf(log []eventlog.Envelope) (*signals.StatusView, error) {
	var st eventlog.State
	for _, env := range log {
		e, err := eventlog.Decode(env)
		if err != nil {
			return nil, err
		}
		if err := st.Apply(e); err != nil {
			return nil, fmt.Errorf("event %d: %w", env.Seq, err)
		}
	}
	return &signals.StatusView{Status: st.Status, Turn: st.Turn, Step: st.Step, InTurn: st.InTurn,
		NextTurn: st.Inbox.NextTurn, NextStep: st.Inbox.NextStep, LogLen: st.Len, Disposed: st.Disposing, Usage: st.Usage}, nil
}

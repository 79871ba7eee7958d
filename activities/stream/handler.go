package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// writeTimeout bounds each write to a client, replacing any server-wide
// WriteTimeout, which a long stream would outlive: a client that stalls
// longer is dropped rather than holding its subscription forever.
const writeTimeout = 30 * time.Second

// Handler serves streams as Server-Sent Events at GET <Key.Path()>?from=N
// to a request bearing the stream's token (Authorization: Bearer <token>):
// one "data: <json Event>" message per event, then the response ends after
// the terminal event. It sends a ": ping" comment after PingEvery of
// silence. Mount it at the server's root.
//
// Refusals say nothing a guesser could use: 404 for an unknown key, a
// missing token and a wrong one alike (so HEAD with the token tells whether
// a stream is there); 503 when the hub is at MaxSubscribers or closing; 429,
// only to a holder of the token, when the stream is at
// MaxSubscribersPerStream. None of them carries a byte of the stream.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	// ServeMux matches the escaped path and unescapes wildcards, so an
	// escaped "/" stays inside its segment.
	mux.HandleFunc("GET "+pathPrefix+"{agent}/{run}/{activity}/{attempt}", h.serveStream)
	mux.HandleFunc("GET "+feedPrefix+"{agent}", h.serveFeed)
	return mux
}

// serveFeed serves an agent's feed at GET <FeedPath(agent)>?from=N or
// ?turn=N (see SubscribeFeed), with the same refusals as a call's stream.
// The response ends only when the subscription does.
func (h *Hub) serveFeed(w http.ResponseWriter, r *http.Request) {
	from, turn, err := parseFeedRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	events, err := h.SubscribeFeed(ctx, r.PathValue("agent"), bearer(r), from, turn)
	if err != nil {
		refuse(w, err)
		return
	}
	rc := http.NewResponseController(w)
	if !startEvents(w, rc) || r.Method == http.MethodHead {
		return
	}
	h.pipe(w, rc, events)
}

func parseFeedRequest(r *http.Request) (from int64, turn int, err error) {
	q := r.URL.Query()
	if v := q.Get("from"); v != "" {
		if from, err = strconv.ParseInt(v, 10, 64); err != nil || from < 0 {
			return 0, 0, fmt.Errorf("bad from %q", v)
		}
	}
	if v := q.Get("turn"); v != "" {
		if turn, err = strconv.Atoi(v); err != nil || turn < 0 {
			return 0, 0, fmt.Errorf("bad turn %q", v)
		}
	}
	return from, turn, nil
}

func (h *Hub) serveStream(w http.ResponseWriter, r *http.Request) {
	k, from, err := parseRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel() // ends the subscription if the client goes first
	events, err := h.Subscribe(ctx, k, bearer(r), from)
	if err != nil {
		refuse(w, err)
		return
	}
	rc := http.NewResponseController(w)
	if !startEvents(w, rc) || r.Method == http.MethodHead {
		return
	}
	h.pipe(w, rc, events)
}

// retryBusy is the Retry-After, in seconds, of a busy answer.
const retryBusy = "1"

// refuse answers a request whose Subscribe failed.
func refuse(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrNoStream):
		http.Error(w, "no such stream", http.StatusNotFound)
	case errors.Is(err, ErrStreamBusy):
		w.Header().Set("Retry-After", retryBusy)
		http.Error(w, "too many subscribers to this stream", http.StatusTooManyRequests)
	case errors.Is(err, ErrHubBusy):
		w.Header().Set("Retry-After", retryBusy)
		http.Error(w, "stream hub busy: too many subscribers", http.StatusServiceUnavailable)
	case errors.Is(err, ErrHubClosed):
		http.Error(w, "stream hub closed", http.StatusServiceUnavailable)
	default:
		http.Error(w, "stream unavailable", http.StatusInternalServerError)
	}
}

// startEvents sends the headers of an event stream and reports whether
// they reached the client.
func startEvents(w http.ResponseWriter, rc *http.ResponseController) bool {
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no") // keep nginx from buffering
	w.WriteHeader(http.StatusOK)
	return rc.Flush() == nil
}

// pipe writes events until the subscription ends or a write fails. It
// flushes whenever no further event is ready, so a live event is never held
// back and a replay does not cost one flush per event.
func (h *Hub) pipe(w io.Writer, rc *http.ResponseController, events <-chan Event) {
	ping := time.NewTimer(h.opts.PingEvery)
	defer ping.Stop()
	for {
		frame := pingFrame
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			var err error
			if frame, err = encodeEvent(ev); err != nil {
				return
			}
		case <-ping.C:
		}
		if send(w, rc, frame, len(events) == 0) != nil {
			return
		}
		ping.Reset(h.opts.PingEvery)
	}
}

var pingFrame = []byte(": ping\n\n")

// send writes one frame within writeTimeout, flushing if asked.
func send(w io.Writer, rc *http.ResponseController, frame []byte, flush bool) error {
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := w.Write(frame); err != nil || !flush {
		return err
	}
	return rc.Flush()
}

// encodeEvent frames ev as one SSE message. JSON escapes newlines, so the
// payload is always a single data line.
func encodeEvent(ev Event) ([]byte, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event %d: %w", ev.Seq, err)
	}
	frame := make([]byte, 0, len(data)+8)
	frame = append(frame, "data: "...)
	frame = append(frame, data...)
	return append(frame, "\n\n"...), nil
}

func parseRequest(r *http.Request) (Key, int64, error) {
	attempt, err := strconv.ParseInt(r.PathValue("attempt"), 10, 32)
	if err != nil {
		return Key{}, 0, fmt.Errorf("bad attempt %q", r.PathValue("attempt"))
	}
	k := Key{
		Agent:    r.PathValue("agent"),
		Run:      r.PathValue("run"),
		Activity: r.PathValue("activity"),
		Attempt:  int32(attempt),
	}
	var from int64
	if v := r.URL.Query().Get("from"); v != "" {
		from, err = strconv.ParseInt(v, 10, 64)
		if err != nil || from < 0 {
			return Key{}, 0, fmt.Errorf("bad from %q", v)
		}
	}
	return k, from, nil
}

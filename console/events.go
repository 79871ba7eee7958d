package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tetherdev/tether/agent"
)

// pingEvery keeps idle event streams open through proxies.
const pingEvery = 15 * time.Second

// events streams an agent's live updates as Server-Sent Events. Each
// update that moves the page's log position carries it as the event ID, so
// a browser reconnecting (Last-Event-ID) or a page loaded at a position
// (?from, the first seq it lacks) gets exactly what it is missing.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	from, err := eventsFrom(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	h, err := s.agents.Attach(r.Context(), r.PathValue("id"))
	if err != nil && !errors.Is(err, agent.ErrClosed) {
		s.fail(w, r, 0, err)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, r, http.StatusInternalServerError, errors.New("streaming unsupported"))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	fmt.Fprint(w, "retry: 1000\n\n")
	if errors.Is(err, agent.ErrClosed) {
		writeFrame(w, closedFrame)
		fl.Flush()
		return
	}
	f := s.feeds.join(h)
	defer s.feeds.leave(f)
	first, ch, err := f.subscribe(r.Context(), from)
	if err != nil {
		writeFrame(w, notice("live updates unavailable: "+err.Error()))
		fl.Flush()
		return
	}
	for _, fr := range first {
		writeFrame(w, fr)
	}
	fl.Flush()
	if ch == nil {
		return
	}
	defer f.unsubscribe(ch)
	s.pump(w, fl, r, ch)
}

func (s *Server) pump(w http.ResponseWriter, fl http.Flusher, r *http.Request, ch chan frame) {
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case fr, ok := <-ch:
			if !ok {
				return // dropped or ended: the browser reconnects from its last ID
			}
			writeFrame(w, fr)
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		}
		fl.Flush()
	}
}

// eventsFrom is the first log position a stream must bring: after the
// Last-Event-ID of a reconnect, else ?from.
func eventsFrom(r *http.Request) (int64, error) {
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: Last-Event-ID %q", errBadInput, last)
		}
		return n + 1, nil
	}
	if from := r.URL.Query().Get("from"); from != "" {
		n, err := strconv.ParseInt(from, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: from %q", errBadInput, from)
		}
		return n, nil
	}
	return 0, nil
}

func writeFrame(w http.ResponseWriter, fr frame) {
	if fr.ID >= 0 {
		fmt.Fprintf(w, "id: %d\n", fr.ID)
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", fr.Event, fr.Data)
}

func notice(msg string) frame {
	data, _ := json.Marshal(struct {
		Message string `json:"message"`
	}{msg})
	return frame{Event: "notice", ID: -1, Data: data}
}

func turnID(turn int) string { return "turn-" + strconv.Itoa(turn) }

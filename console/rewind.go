package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/agent"
)

// rewind brings the agent back to the end of the form's turn
// (agent.Handle.Rewind), recorded as session/rewound by the console. The
// agent's own refusals come back typed: a turn it never ended or a turn
// running (signals.ErrInvalidRewind), a turn it can no longer rebuild in
// place (signals.ErrRewindLost, which names a fork instead).
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	turn, err := rewindForm(r)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	h, err := s.attach(ctx, r)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	out, err := h.Rewind(ctx, turn, agent.RewoundBy(decider))
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, "rewind", map[string]any{"turn": out.Turn, "past": out.Past, "keep": out.Keep, "seq": out.Seq})
}

// maxRewindTurn bounds the form's turn to what an int holds everywhere;
// the agent refuses a turn it never ended.
const maxRewindTurn = 1<<31 - 1

// rewindForm reads the turn whose end the form goes back to.
func rewindForm(r *http.Request) (int, error) {
	raw := strings.TrimSpace(r.PostFormValue("to_turn"))
	turn, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || turn < 0 || turn > maxRewindTurn {
		return 0, fmt.Errorf("%w: to_turn=%q: want a turn number, from 0 (the agent's start)", errBadInput, raw)
	}
	return int(turn), nil
}

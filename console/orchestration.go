package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// decider names who decided in the agent's log.
const decider = "console"

// decisions are the decision actions, by path.
var decisions = map[string]func(*agent.Handle, context.Context, string, string, string) (signals.Decided, error){
	"approve": (*agent.Handle).Approve,
	"deny":    (*agent.Handle).Deny,
	"answer":  (*agent.Handle).Answer,
}

// decide approves or denies a pending tool call, or answers a question,
// through the client's validated updates: an unknown or already decided
// call comes back as signals.ErrNoSuchDecision. An approval's "args", when
// set, are the arguments the call runs with in place of the model's; an
// edit the agent refuses (signals.ErrInvalidEdit) leaves the call waiting.
func (s *Server) decide(what string) http.HandlerFunc {
	send := decisions[what]
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
		defer cancel()
		call := strings.TrimSpace(r.PostFormValue("call_id"))
		text := r.PostFormValue("text")
		if err := needsText(what, text); err != nil {
			s.fail(w, r, 0, err)
			return
		}
		h, err := s.attach(ctx, r)
		if err != nil {
			s.fail(w, r, 0, err)
			return
		}
		var d signals.Decided
		switch args := strings.TrimSpace(r.PostFormValue("args")); {
		case args != "" && what != "approve":
			err = fmt.Errorf("%w: only an approval takes edited arguments", errBadInput)
		case args != "":
			d, err = h.ApproveWith(ctx, call, decider, text, agent.WithArgs(json.RawMessage(args)))
		default:
			d, err = send(h, ctx, call, decider, text)
		}
		if err != nil {
			s.fail(w, r, 0, err)
			return
		}
		s.done(w, r, h.ID, what, map[string]any{"call_id": d.CallID, "seq": d.Seq})
	}
}

// needsText refuses a denial without a reason and an empty answer: the
// model reads either as the call's result.
func needsText(what, text string) error {
	if strings.TrimSpace(text) != "" || what == "approve" {
		return nil
	}
	if what == "deny" {
		return fmt.Errorf("%w: a denial needs a reason", errBadInput)
	}
	return fmt.Errorf("%w: the answer", signals.ErrEmptyMessage)
}

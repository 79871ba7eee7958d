package console

import (
	"context"

	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// actionTimeout bounds one action; an acknowledged message waits for the
// workflow to validate and accept it, so a worker must answer.
const actionTimeout = 30 * time.Second

// done answers a successful action: JSON for the page's script, else back
// to the agent's page.
func (s *Server) done(w http.ResponseWriter, r *http.Request, id, what string, extra map[string]any) {
	if wantsJSON(r) {
		body := map[string]any{"ok": true, "done": what}
		for k, v := range extra {
			body[k] = v
		}
		writeJSON(w, http.StatusOK, body)
		return
	}
	http.Redirect(w, r, "/agents/"+url.PathEscape(id)+"?done="+url.QueryEscape(what), http.StatusSeeOther)
}

// doneText is the banner an action's redirect shows for ?done=key: the key
// of an action this console did, or nothing. The query's text is never
// shown as it came, so a link cannot put words in the console's mouth.
func doneText(key string) string {
	_, message := messageKinds[key]
	_, decision := decisions[key]
	switch {
	case message, decision:
		return key
	case key == "cancel", key == "dispose", key == "model", key == "start", key == "fork", key == "rewind":
		return key
	}
	return ""
}

// attach finds the agent an action is for: an agent that is closed, or
// missing, fails with the client's typed error.
func (s *Server) attach(ctx context.Context, r *http.Request) (*agent.Handle, error) {
	return s.agents.Attach(ctx, r.PathValue("id"))
}

// messageKinds are the message operations, by the form's kind value.
var messageKinds = map[string]func(*agent.Handle, context.Context, string, ...agent.SendOption) (signals.Ack, error){
	"followup": (*agent.Handle).Followup,
	"steer":    (*agent.Handle).Steer,
	"inject":   (*agent.Handle).Inject,
}

// message sends a followup, steer or inject as a validated update, so the
// workflow's own rejections come back typed.
func (s *Server) message(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	kind := r.PostFormValue("kind")
	send, ok := messageKinds[kind]
	if !ok {
		s.fail(w, r, 0, fmt.Errorf("%w: kind %q: want followup, steer or inject", errBadInput, kind))
		return
	}
	h, err := s.attach(ctx, r)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	ack, err := send(h, ctx, r.PostFormValue("content"), agent.Acknowledged())
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, kind, map[string]any{"message_id": ack.MessageID, "seq": ack.Seq})
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	h, err := s.attach(ctx, r)
	if err == nil {
		err = h.Cancel(ctx, cause(r, "canceled in the console"), r.PostFormValue("keep_inbox") != "")
	}
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, "cancel", nil)
}

func (s *Server) dispose(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	h, err := s.attach(ctx, r)
	if err == nil {
		err = h.Dispose(ctx, cause(r, "disposed in the console"))
	}
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, "dispose", nil)
}

func (s *Server) selectModel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	sel := signals.Selection{Provider: strings.TrimSpace(r.PostFormValue("provider")),
		Model: strings.TrimSpace(r.PostFormValue("model")), Effort: strings.TrimSpace(r.PostFormValue("effort"))}
	h, err := s.attach(ctx, r)
	if err == nil {
		err = h.SelectModel(ctx, sel)
	}
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, "model", map[string]any{"model": signals.ModelLabel(sel)})
}

// create starts an agent from the list page's form.
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	o := agent.CreateOptions{ID: strings.TrimSpace(r.PostFormValue("id")), First: r.PostFormValue("first"),
		Options: signals.AgentOptions{Provider: strings.TrimSpace(r.PostFormValue("provider")),
			Model: strings.TrimSpace(r.PostFormValue("model")), SystemPrompt: r.PostFormValue("system")}}
	o.Options.Tools = signals.ToolList(r.PostFormValue("tools"))
	if strings.TrimSpace(o.First) == "" {
		s.fail(w, r, 0, fmt.Errorf("%w: the first message", signals.ErrEmptyMessage))
		return
	}
	if len(o.ID) > maxAgentIDBytes {
		s.fail(w, r, 0, fmt.Errorf("%w: agent ID: at most %d bytes", errBadInput, maxAgentIDBytes))
		return
	}
	h, err := s.agents.Create(ctx, o)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	s.done(w, r, h.ID, "start", map[string]any{"id": h.ID, "url": "/agents/" + url.PathEscape(h.ID)})
}

// maxAgentIDBytes bounds the ID of an agent started here (Temporal's own
// limit on workflow IDs is larger).
const maxAgentIDBytes = 256

func cause(r *http.Request, def string) string {
	if c := strings.TrimSpace(r.PostFormValue("cause")); c != "" {
		return c
	}
	return def
}

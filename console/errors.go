package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// errorKinds map the client's typed errors to an HTTP status and a stable
// code that scripts and the page's JavaScript match on; the message is the
// error's own text.
var errorKinds = []struct {
	err    error
	status int
	code   string
}{
	{agent.ErrNotFound, http.StatusNotFound, "not_found"},
	{agent.ErrClosed, http.StatusConflict, "closed"},
	{agent.ErrAlreadyExists, http.StatusConflict, "already_exists"},
	{signals.ErrDisposed, http.StatusConflict, "disposed"},
	{signals.ErrDuplicateID, http.StatusConflict, "duplicate_id"},
	{signals.ErrAlreadyIdle, http.StatusConflict, "already_idle"},
	{signals.ErrNoSuchDecision, http.StatusConflict, "no_such_decision"},
	{signals.ErrInvalidEdit, http.StatusUnprocessableEntity, "invalid_edit"},
	{signals.ErrContinuing, http.StatusServiceUnavailable, "continuing"},
	{signals.ErrEmptyMessage, http.StatusBadRequest, "empty_message"},
	{signals.ErrMessageTooLarge, http.StatusRequestEntityTooLarge, "message_too_large"},
	{signals.ErrInvalidUTF8, http.StatusBadRequest, "invalid_utf8"},
	{signals.ErrInvalidID, http.StatusBadRequest, "invalid_id"},
	{signals.ErrInvalidList, http.StatusBadRequest, "invalid_list"},
	{signals.ErrCauseTooLarge, http.StatusBadRequest, "cause_too_large"},
	{agent.ErrRejected, http.StatusBadRequest, "rejected"},
	{errForkPosition, http.StatusConflict, "fork_position"},
	{signals.ErrInvalidRewind, http.StatusConflict, "invalid_rewind"},
	{signals.ErrRewindLost, http.StatusConflict, "rewind_lost"},
	{loop.ErrNoUserMessage, http.StatusConflict, "no_user_message"},
	{errReadOnly, http.StatusForbidden, "read_only"},
	{errLogin, http.StatusUnauthorized, "login_required"},
	{errCSRF, http.StatusForbidden, "csrf"},
	{errCrossOrigin, http.StatusForbidden, "cross_origin"},
	{errBadInput, http.StatusBadRequest, "bad_input"},
	{errBadID, http.StatusBadRequest, "bad_id"},
	{errTooMany, http.StatusTooManyRequests, "too_many"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout"},
}

// errBadInput marks a form or filter the console itself refuses.
var errBadInput = errors.New("bad input")

// errBadID answers a path naming no possible agent.
var errBadID = errors.New("that is not an agent ID: agent IDs are valid UTF-8 without control characters, at most 1000 bytes")

// errTemporal is what a page says of a Temporal failure the console cannot
// name: the service's own text (addresses, internal detail) goes to the
// console's log only.
var errTemporal = errors.New("the Temporal service failed to answer; the console's log has the detail")

// validID reports whether id could name an agent (a Temporal workflow ID
// Tether would start): anything else is refused before Temporal sees it.
func validID(id string) bool {
	if id == "" || len(id) > maxIDBytes || !utf8.ValidString(id) {
		return false
	}
	return strings.IndexFunc(id, unicode.IsControl) < 0
}

// maxIDBytes is the Temporal server's default workflow ID limit.
const maxIDBytes = 1000

// checkedID wraps a handler of /agents/{id}…: a malformed ID is a 400 with
// a plain sentence, never Temporal's error.
func (s *Server) checkedID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !validID(r.PathValue("id")) {
			s.fail(w, r, http.StatusBadRequest, errBadID)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// classify returns the status and code of err; unknown errors are the
// Temporal service's, answered 502.
func classify(err error) (int, string) {
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.status, k.code
		}
	}
	return http.StatusBadGateway, "temporal"
}

// apiError is an action's JSON error.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

type errorView struct {
	Status  int
	Code    string
	Message string
	Back    string
}

func (e errorView) PageTitle() string { return http.StatusText(e.Status) }

// fail answers err: JSON for scripts, a page for browsers. status 0 takes
// the status of err's kind.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	st, code := classify(err)
	if status == 0 {
		status = st
	}
	if status >= 500 {
		s.o.Logger.Warn("Console request failed", "path", r.URL.Path, "status", status, "error", err)
	}
	if code == "temporal" {
		err = errTemporal
	}
	if wantsJSON(r) || r.Header.Get("Accept") == "text/event-stream" {
		writeJSON(w, status, apiError{Error: err.Error(), Code: code})
		return
	}
	back := r.Referer()
	s.render(w, r, status, "error", errorView{Status: status, Code: code, Message: err.Error(), Back: safeNext(pathOf(back))})
}

// The refusals of the console's login and actions (auth.go).
var (
	errReadOnly    = errors.New("the console is read-only: start it with " + EnvToken + " set to act on agents")
	errLogin       = errors.New("log in with the operator token to do this")
	errBadToken    = errors.New("wrong token")
	errCSRF        = errors.New("the form is stale or came from elsewhere: reload the page and try again")
	errCrossOrigin = errors.New("cross-origin request refused")
	errTooMany     = errors.New("too many wrong tokens from your address: wait and try again")
)

// ErrShortToken refuses a guessable operator token.
var ErrShortToken = fmt.Errorf("console token must be at least %d bytes", MinTokenBytes)

// ErrBlankToken refuses an operator token of only whitespace.
var ErrBlankToken = errors.New("console token is only whitespace")

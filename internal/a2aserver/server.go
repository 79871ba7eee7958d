package a2aserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// EnvToken names the environment variable that holds the bearer token
// every JSON-RPC call must carry (the agent cards stay public: they are how
// a client learns that it needs one).
const EnvToken = "TETHER_A2A_TOKEN"

// DefaultAddr is where `starter a2a` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8290"

// Profile is one kind of agent the server offers: its card (name,
// description, a skill per tool) and the options a new context's agent
// starts with.
type Profile struct {
	Name        string
	Description string
	Options     signals.AgentOptions
}

// Options configure a Server.
type Options struct {
	Agents *agent.Client
	// Profiles are served in order; the first also at the root. At least one.
	Profiles []Profile
	// BaseURL is the URL clients reach the server by (the cards name it).
	BaseURL string
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every JSON-RPC call, and the cards say so.
	Token string
	// Describe gives a tool's description for its skill; nil or "" falls
	// back to the tool's name.
	Describe func(tool string) string
	// Push configures push notifications, which are always served.
	Push PushOptions
	// Log takes what the server cannot tell a caller (a push not
	// delivered); nil discards it.
	Log *slog.Logger
}

// Server is the A2A server: its HTTP handler, and the push notifications
// it sends until Close.
type Server struct {
	http.Handler
	push *pusher
}

// Close stops sending push notifications (their configs are forgotten) and
// waits for the senders to end.
func (s *Server) Close() { s.push.close() }

// New returns the server's HTTP handler: per profile, its agent card at
// PATH/.well-known/agent-card.json and its JSON-RPC endpoint at PATH/,
// where PATH is /agents/NAME (and, for the first profile, also the root).
// Close it to stop its push notifications.
func New(o Options) (*Server, error) {
	if o.Agents == nil {
		return nil, errors.New("a2aserver: Options.Agents is required")
	}
	if len(o.Profiles) == 0 {
		return nil, errors.New("a2aserver: at least one profile is required")
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	push, err := newPusher(&handler{agents: o.Agents}, o.Push, log)
	if err != nil {
		return nil, fmt.Errorf("a2aserver: %w", err)
	}
	base := strings.TrimRight(o.BaseURL, "/")
	mux := http.NewServeMux()
	seen := map[string]bool{}
	for i, p := range o.Profiles {
		if err := checkProfileName(p.Name); err != nil {
			push.close()
			return nil, fmt.Errorf("a2aserver: profile %d: %w", i, err)
		}
		if seen[p.Name] {
			push.close()
			return nil, fmt.Errorf("a2aserver: profile %q is named twice", p.Name)
		}
		seen[p.Name] = true
		paths := []string{"/agents/" + p.Name + "/"}
		if i == 0 {
			paths = append(paths, "/")
		}
		for _, path := range paths {
			card := cardFor(p, base+path, o)
			rpc := a2asrv.NewJSONRPCHandler(&handler{agents: o.Agents, profile: p, push: push})
			mux.Handle("GET "+path+strings.TrimPrefix(a2asrv.WellKnownAgentCardPath, "/"), a2asrv.NewStaticAgentCardHandler(card))
			mux.Handle(path+"{$}", bearer(o.Token, nullResult(rpc)))
		}
	}
	return &Server{Handler: mux, push: push}, nil
}

// bearer requires the token on every request when it is set.
func bearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tether-a2a"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unauthorized: this server needs Authorization: Bearer TOKEN (` + EnvToken + `)"}}` + "\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func cardFor(p Profile, url string, o Options) *a2a.AgentCard {
	desc := p.Description
	if desc == "" {
		desc = "A durable Tether agent: every message is a turn that survives worker and server restarts."
	}
	card := &a2a.AgentCard{
		Name: p.Name, Description: desc, URL: url,
		PreferredTransport: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0", Version: "1",
		Capabilities:      a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Provider: &a2a.AgentProvider{Org: "Tether", URL: "https://github.com/tetherdev/tether"},
	}
	for _, t := range p.Options.Tools {
		d := t
		if o.Describe != nil && o.Describe(t) != "" {
			d = o.Describe(t)
		}
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: t, Name: t, Description: d, Tags: []string{"tool"}})
	}
	if len(card.Skills) == 0 {
		card.Skills = []a2a.AgentSkill{{ID: "chat", Name: p.Name, Description: desc, Tags: []string{"chat"}}}
	}
	if o.Token != "" {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{
			Scheme: "bearer", Description: "the operator token (" + EnvToken + ")",
		}}
		card.Security = []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}}
	}
	return card
}

// handler answers one profile's JSON-RPC calls over Tether's client. It
// keeps no state: a task is named by its agent and message, and read from
// the agent's durable log.
type handler struct {
	agents  *agent.Client
	profile Profile
	push    *pusher
}

var _ a2asrv.RequestHandler = (*handler)(nil)

// taskID names message msg of agent id: "ID:MSG" (a message ID has no colon).
func taskID(id string, msg eventlog.MessageID) a2a.TaskID {
	return a2a.TaskID(id + ":" + string(msg))
}

func parseTaskID(t a2a.TaskID) (string, eventlog.MessageID, error) {
	i := strings.LastIndexByte(string(t), ':')
	if i <= 0 || i == len(t)-1 {
		return "", "", fmt.Errorf("%w: task ID %q is not CONTEXT:MESSAGE_ID, as this server names tasks", a2a.ErrTaskNotFound, t)
	}
	return string(t[:i]), eventlog.MessageID(t[i+1:]), nil
}

// snapshot is a task as the log last read says, and where to follow on.
type snapshot struct {
	task *a2a.Task
	view turnView
	next int64
}

// read folds the agent's log into task (id, msg).
func (h *handler) read(ctx context.Context, hd *agent.Handle, msg eventlog.MessageID) (snapshot, error) {
	log, err := hd.LogFrom(ctx, 0)
	if err != nil {
		return snapshot{}, fmt.Errorf("read agent %s: %w", hd.ID, err)
	}
	v, err := foldTurn(log, msg)
	if err != nil {
		return snapshot{}, err
	}
	if !v.found && !v.claimed {
		return snapshot{}, fmt.Errorf("%w: agent %s has no message %s", a2a.ErrTaskNotFound, hd.ID, msg)
	}
	var next int64
	if len(log) > 0 {
		next = log[len(log)-1].Seq + 1
	}
	inTurn := false
	if v.failed != nil && v.settled == nil {
		st, err := hd.Status(ctx)
		if err == nil || errors.Is(err, agent.ErrClosed) {
			inTurn = st.InTurn
		}
	}
	return snapshot{task: toTask(hd.ID, msg, v, inTurn), view: v, next: next}, nil
}

func toTask(id string, msg eventlog.MessageID, v turnView, inTurn bool) *a2a.Task {
	t := &a2a.Task{ID: taskID(id, msg), ContextID: id}
	say := func(s string) *a2a.Message {
		if s == "" {
			return nil
		}
		return &a2a.Message{ID: string(msg) + "-status", Role: a2a.MessageRoleAgent, ContextID: id, TaskID: t.ID, Parts: a2a.ContentParts{a2a.TextPart{Text: s}}}
	}
	state, note := a2a.TaskStateWorking, ""
	switch {
	case v.discarded != "":
		state, note = a2a.TaskStateCanceled, "the message was discarded before a turn took it ("+string(v.discarded)+")"
	case !v.claimed:
		state = a2a.TaskStateSubmitted
	case v.settled != nil:
		switch v.settled.Reason {
		case eventlog.EndCompleted, eventlog.EndConcluded:
			state = a2a.TaskStateCompleted
		case eventlog.EndCanceled:
			state, note = a2a.TaskStateCanceled, v.settled.Error
		default:
			state, note = a2a.TaskStateFailed, strings.TrimSpace(string(v.settled.Reason)+": "+v.settled.Error)
		}
	case v.failed != nil && !inTurn:
		state, note = a2a.TaskStateFailed, "failed: "+v.failed.Error
	case len(v.waiting) > 0:
		w := v.waiting[0]
		state = a2a.TaskStateInputRequired
		if w.Kind == eventlog.NeedAnswer {
			note = fmt.Sprintf("%s asks: %s (reply with the answer, taskId %s)", w.Name, v.question, t.ID)
		} else {
			note = fmt.Sprintf("%s waits for approval (reply \"approve\" or \"deny: REASON\", taskId %s)", w.Name, t.ID)
		}
	}
	now := time.Now()
	t.Status = a2a.TaskStatus{State: state, Message: say(note), Timestamp: &now}
	if v.claimed {
		t.Metadata = map[string]any{"tether.turn": v.turn}
	}
	if v.answer != "" && state == a2a.TaskStateCompleted {
		t.Artifacts = []*a2a.Artifact{{ID: answerID(msg), Name: "answer", Parts: a2a.ContentParts{a2a.TextPart{Text: v.answer}}}}
	}
	return t
}

// settled reports whether a stream or a blocking send is done with t:
// terminal, or waiting for its caller.
func settled(t *a2a.Task) bool {
	return t.Status.State.Terminal() || t.Status.State == a2a.TaskStateInputRequired
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{a2a.ErrInvalidParams}, args...)...)
}

// content joins a message's text parts (and data parts, as JSON).
func content(m *a2a.Message) (string, error) {
	var b strings.Builder
	for _, p := range m.Parts {
		switch p := p.(type) {
		case a2a.TextPart:
			b.WriteString(p.Text)
		case a2a.DataPart:
			js, err := json.Marshal(p.Data)
			if err != nil {
				return "", invalid("data part: %v", err)
			}
			b.Write(js)
		default:
			return "", fmt.Errorf("%w: only text and data parts, not %T", a2a.ErrUnsupportedContentType, p)
		}
		b.WriteByte('\n')
	}
	s := strings.TrimSpace(b.String())
	if s == "" {
		return "", invalid("the message has no text")
	}
	return s, nil
}

// deliver opens or continues the agent p names and hands it the message;
// a resend of a delivered message ID delivers nothing. It returns the
// agent and the task the message is.
func (h *handler) deliver(ctx context.Context, p *a2a.MessageSendParams) (*agent.Handle, eventlog.MessageID, error) {
	if p == nil || p.Message == nil {
		return nil, "", invalid("params.message is required")
	}
	m := p.Message
	if m.ID == "" || strings.ContainsRune(m.ID, ':') {
		return nil, "", invalid("message.messageId %q: want a non-empty ID without ':'", m.ID)
	}
	if m.Role != a2a.MessageRoleUser {
		return nil, "", invalid("message.role %q: a client's message is role \"user\"", m.Role)
	}
	text, err := content(m)
	if err != nil {
		return nil, "", err
	}
	if m.TaskID != "" {
		return h.reply(ctx, m, text)
	}
	id := m.ContextID
	if err := checkContextID(id); err != nil {
		return nil, "", err
	}
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = "a2a-" + string(signals.DrawnID(b))
	}
	hd, err := h.agents.Attach(ctx, id)
	if errors.Is(err, agent.ErrNotFound) {
		hd, err = h.agents.Create(ctx, agent.CreateOptions{ID: id, Options: h.profile.Options})
		if errors.Is(err, agent.ErrAlreadyExists) {
			hd, err = h.agents.Attach(ctx, id)
		}
	}
	if errors.Is(err, agent.ErrClosed) {
		return nil, "", invalid("context %s: the agent has ended; start a new context", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: context %s: %v", a2a.ErrInternalError, id, err)
	}
	msg := eventlog.MessageID(m.ID)
	if _, err := hd.Followup(ctx, text, agent.WithMessageID(msg)); err != nil && !errors.Is(err, signals.ErrDuplicateID) {
		return nil, "", sendErr(id, err)
	}
	return hd, msg, nil
}

// checkContextID holds a context ID to an agent ID's form (the starter's
// rule): letters, digits, '.', '_', '-' and ':', at most
// signals.MaxIDBytes.
func checkContextID(id string) error {
	if len(id) > signals.MaxIDBytes {
		return invalid("message.contextId is %d bytes: at most %d", len(id), signals.MaxIDBytes)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == ':') {
			return invalid("message.contextId %q holds %q: a context ID (a Tether agent ID) is letters, digits, '.', '_', '-' and ':' only", id, r)
		}
	}
	return nil
}

func sendErr(id string, err error) error {
	if errors.Is(err, agent.ErrClosed) || errors.Is(err, agent.ErrRejected) || errors.Is(err, signals.ErrDisposed) ||
		errors.Is(err, signals.ErrEmptyMessage) || errors.Is(err, signals.ErrMessageTooLarge) || errors.Is(err, signals.ErrInvalidID) || errors.Is(err, signals.ErrReusedID) {
		return invalid("context %s: %v", id, err)
	}
	return fmt.Errorf("%w: context %s: %v", a2a.ErrInternalError, id, err)
}

// reply is a message to an existing task: a person's decision when it
// waits for one, otherwise a steer into its running turn.
func (h *handler) reply(ctx context.Context, m *a2a.Message, text string) (*agent.Handle, eventlog.MessageID, error) {
	id, msg, err := parseTaskID(m.TaskID)
	if err != nil {
		return nil, "", err
	}
	if m.ContextID != "" && m.ContextID != id {
		return nil, "", invalid("taskId %s belongs to context %s, not %s", m.TaskID, id, m.ContextID)
	}
	hd, err := h.agents.Attach(ctx, id)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", a2a.ErrTaskNotFound, err)
	}
	snap, err := h.read(ctx, hd, msg)
	if err != nil {
		return nil, "", err
	}
	switch snap.task.Status.State {
	case a2a.TaskStateInputRequired:
		return hd, msg, h.decide(ctx, hd, msg, text)
	case a2a.TaskStateWorking, a2a.TaskStateSubmitted:
		if _, err := hd.Steer(ctx, text, agent.WithMessageID(eventlog.MessageID(m.ID))); err != nil && !errors.Is(err, signals.ErrDuplicateID) {
			return nil, "", sendErr(id, err)
		}
		return hd, msg, nil
	default:
		return nil, "", invalid("task %s is %s: send a new message without taskId to start another", m.TaskID, snap.task.Status.State)
	}
}

// decide answers the first decision task msg waits for with text.
func (h *handler) decide(ctx context.Context, hd *agent.Handle, msg eventlog.MessageID, text string) error {
	log, err := hd.LogFrom(ctx, 0)
	if err != nil {
		return err
	}
	v, err := foldTurn(log, msg)
	if err != nil || len(v.waiting) == 0 {
		return err // decided meanwhile (a resend of the reply): nothing to do
	}
	w := v.waiting[0]
	const decider = "a2a"
	if w.Kind == eventlog.NeedAnswer {
		_, err = hd.Answer(ctx, w.CallID, decider, text)
	} else {
		word, reason, _ := strings.Cut(text, ":")
		switch strings.ToLower(strings.TrimSpace(word)) {
		case "approve", "approved", "yes":
			_, err = hd.Approve(ctx, w.CallID, decider, strings.TrimSpace(reason))
		case "deny", "denied", "no":
			_, err = hd.Deny(ctx, w.CallID, decider, strings.TrimSpace(reason))
		default:
			return invalid("%s waits for approval: reply \"approve\" or \"deny: REASON\", not %q", w.Name, text)
		}
	}
	if errors.Is(err, signals.ErrNoSuchDecision) {
		return nil // decided meanwhile
	}
	return err
}

// recheck is how often a follower reads the log again when the agent's
// feed said nothing: a decision request, which makes a task
// input-required, is no notification of agent.Handle.Follow.
const recheck = time.Second

// follow yields the task's snapshots as they change, from snap on, until
// done says so (settled, for a send or a stream) or ctx ends. It reads the log again on each of the agent's
// notifications, and every recheck.
func (h *handler) follow(ctx context.Context, hd *agent.Handle, msg eventlog.MessageID, snap snapshot, done func(*a2a.Task) bool) iter.Seq2[snapshot, error] {
	return func(yield func(snapshot, error) bool) {
		if !yield(snap, nil) || done(snap.task) {
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		poke := make(chan struct{}, 1)
		failed := make(chan error, 1)
		go func() {
			for _, err := range hd.Follow(ctx, snap.next) {
				if err != nil {
					failed <- err
					return
				}
				select {
				case poke <- struct{}{}:
				default:
				}
			}
		}()
		tick := time.NewTicker(recheck)
		defer tick.Stop()
		last := snap.task.Status.State
		for {
			select {
			case <-ctx.Done():
				yield(snapshot{}, ctx.Err())
				return
			case err := <-failed:
				if ctx.Err() == nil {
					yield(snapshot{}, err)
				}
				return
			case <-poke:
			case <-tick.C:
			}
			s, err := h.read(ctx, hd, msg)
			if err != nil {
				yield(snapshot{}, err)
				return
			}
			if s.task.Status.State == last {
				continue
			}
			last = s.task.Status.State
			if !yield(s, nil) || done(s.task) {
				return
			}
		}
	}
}

func (h *handler) OnSendMessage(ctx context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	if err := h.checkSendPush(ctx, p); err != nil {
		return nil, err
	}
	hd, msg, err := h.deliver(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := h.setSendPush(ctx, p, hd.ID, msg); err != nil {
		return nil, err
	}
	snap, err := h.read(ctx, hd, msg)
	if err != nil {
		return nil, err
	}
	if p.Config != nil && p.Config.Blocking != nil && !*p.Config.Blocking {
		return snap.task, nil
	}
	var out *a2a.Task
	for s, err := range h.follow(ctx, hd, msg, snap, settled) {
		if err != nil {
			return nil, err
		}
		out = s.task
	}
	if out == nil {
		out = snap.task
	}
	return out, nil
}

func (h *handler) OnSendMessageStream(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if err := h.checkSendPush(ctx, p); err != nil {
			yield(nil, err)
			return
		}
		hd, msg, err := h.deliver(ctx, p)
		if err == nil {
			err = h.setSendPush(ctx, p, hd.ID, msg)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, hd, msg, yield)
	}
}

func (h *handler) OnResubscribeToTask(ctx context.Context, p *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		hd, msg, err := h.attach(ctx, p.ID)
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, hd, msg, yield)
	}
}

func (h *handler) attach(ctx context.Context, t a2a.TaskID) (*agent.Handle, eventlog.MessageID, error) {
	id, msg, err := parseTaskID(t)
	if err != nil {
		return nil, "", err
	}
	hd, err := h.agents.Attach(ctx, id)
	if errors.Is(err, agent.ErrNotFound) {
		return nil, "", fmt.Errorf("%w: no agent %s", a2a.ErrTaskNotFound, id)
	}
	if err != nil && hd == nil {
		return nil, "", fmt.Errorf("%w: agent %s: %v", a2a.ErrInternalError, id, err)
	}
	return hd, msg, nil // a closed agent's log still reads
}

func (h *handler) OnGetTask(ctx context.Context, q *a2a.TaskQueryParams) (*a2a.Task, error) {
	hd, msg, err := h.attach(ctx, q.ID)
	if err != nil {
		return nil, err
	}
	snap, err := h.read(ctx, hd, msg)
	return snap.task, err
}

// cancelWait bounds how long tasks/cancel waits for the turn to end.
const cancelWait = 30 * time.Second

func (h *handler) OnCancelTask(ctx context.Context, p *a2a.TaskIDParams) (*a2a.Task, error) {
	hd, msg, err := h.attach(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	snap, err := h.read(ctx, hd, msg)
	if err != nil {
		return nil, err
	}
	switch st := snap.task.Status.State; {
	case st.Terminal():
		return nil, fmt.Errorf("%w: task %s is already %s", a2a.ErrTaskNotCancelable, p.ID, st)
	case st == a2a.TaskStateSubmitted:
		return nil, fmt.Errorf("%w: task %s waits in the agent's inbox behind another turn; cancel that one first", a2a.ErrTaskNotCancelable, p.ID)
	}
	if err := hd.Cancel(ctx, "canceled over A2A (tasks/cancel "+string(p.ID)+")", true); err != nil {
		return nil, fmt.Errorf("%w: cancel %s: %v", a2a.ErrInternalError, p.ID, err)
	}
	wctx, stop := context.WithTimeout(ctx, cancelWait)
	defer stop()
	out := snap.task
	for s, err := range h.follow(wctx, hd, msg, snap, settled) {
		if err != nil {
			break // the cancel is recorded; answer what the log says now
		}
		out = s.task
	}
	if s, err := h.read(ctx, hd, msg); err == nil {
		out = s.task
	}
	return out, nil
}

func (h *handler) OnGetExtendedAgentCard(context.Context) (*a2a.AgentCard, error) {
	return nil, a2a.ErrAuthenticatedExtendedCardNotConfigured
}

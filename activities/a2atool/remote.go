package a2atool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// CardTimeout bounds the fetch of one agent card.
const CardTimeout = 10 * time.Second

// Remote is one configured remote agent: its card, once fetched, and the
// client that calls it. Safe for concurrent use.
type Remote struct {
	Agent Agent
	http  *http.Client
	log   *slog.Logger

	mu     sync.Mutex
	card   *a2a.AgentCard
	client *a2aclient.Client
	// cardErr is why the card could not be fetched at start, for the
	// tool's description.
	cardErr error
}

// NewRemote returns the remote agent a; it fetches nothing yet.
func NewRemote(a Agent, log *slog.Logger) *Remote {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Remote{Agent: a, http: &http.Client{Transport: statusTransport{http.DefaultTransport}}, log: log}
}

// Start fetches the agent's card (within CardTimeout). A card that cannot
// be fetched fails nothing: the worker starts, logs why, describes the
// tool as unreachable so far, and each call tries the card again (a fault
// while it fails; see Call).
func (r *Remote) Start(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, CardTimeout)
	defer cancel()
	if _, err := r.connect(ctx); err != nil {
		r.mu.Lock()
		r.cardErr = err
		r.mu.Unlock()
		r.log.Warn("A2A agent card not fetched", "agent", r.Agent.Name, "card", r.cardURL(), "error", err)
		return
	}
	r.log.Info("A2A agent card fetched", "agent", r.Agent.Name, "card", r.cardURL(), "remote_name", r.Card().Name)
}

// Card is the agent's card, or nil while it could not be fetched.
func (r *Remote) Card() *a2a.AgentCard {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.card
}

func (r *Remote) startErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cardErr
}

func (r *Remote) cardURL() string {
	if r.Agent.Card != "" {
		return r.Agent.Card
	}
	return strings.TrimRight(r.Agent.URL, "/") + "/.well-known/agent-card.json"
}

// connect returns the client, fetching the card first when it has none.
func (r *Remote) connect(ctx context.Context) (*a2aclient.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != nil {
		return r.client, nil
	}
	card, err := r.fetchCard(ctx)
	if err != nil {
		return nil, err
	}
	c, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithConfig(a2aclient.Config{Polling: true, PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}}),
		a2aclient.WithJSONRPCTransport(r.http),
		a2aclient.WithInterceptors(bearer(r.Agent.Token)))
	if err != nil {
		return nil, fmt.Errorf("A2A agent %q: its card %s offers no transport this worker speaks (JSON-RPC): %w", r.Agent.Name, r.cardURL(), err)
	}
	r.card, r.client, r.cardErr = card, c, nil
	return c, nil
}

func (r *Remote) fetchCard(ctx context.Context) (*a2a.AgentCard, error) {
	res := agentcard.NewResolver(r.http)
	base, path := strings.TrimRight(r.Agent.URL, "/"), "/.well-known/agent-card.json"
	if r.Agent.Card != "" {
		u, err := url.Parse(r.Agent.Card)
		if err != nil {
			return nil, err
		}
		path = u.Path
		u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
		base = u.String()
	}
	card, err := res.Resolve(ctx, base, agentcard.WithPath(path))
	if err != nil {
		return nil, fmt.Errorf("fetch the card of A2A agent %q at %s: %w", r.Agent.Name, r.cardURL(), err)
	}
	if card.URL == "" {
		return nil, fmt.Errorf("the card of A2A agent %q at %s names no url to call", r.Agent.Name, r.cardURL())
	}
	return card, nil
}

// bearer sends the token, when there is one, on every JSON-RPC call.
type bearer string

func (b bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	if b != "" {
		req.Meta["Authorization"] = []string{"Bearer " + string(b)}
	}
	return ctx, nil
}

func (bearer) After(context.Context, *a2aclient.Response) error { return nil }

// statusError is an HTTP answer that is not 200, which the SDK's
// transport reports only as text: the transport below it makes it an
// error the call can tell apart (a refusal from an outage).
type statusError struct {
	Code   int
	Status string
}

func (e *statusError) Error() string { return "HTTP " + e.Status }

type statusTransport struct{ base http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusOK {
		return resp, err
	}
	_ = resp.Body.Close()
	return nil, &statusError{Code: resp.StatusCode, Status: resp.Status}
}

// refused reports whether err is the server refusing the worker (HTTP
// 401 or 403), which no retry mends.
func refused(err error) (*statusError, bool) {
	var s *statusError
	if errors.As(err, &s) && (s.Code == http.StatusUnauthorized || s.Code == http.StatusForbidden) {
		return s, true
	}
	return nil, false
}

package openai_test

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/openai"
)

// divert sends every request to the server at target, recording the URL
// the client addressed: it proves where a call was meant to go without
// reaching the internet.
type divert struct {
	target *url.URL
	mu     sync.Mutex
	urls   []string
}

func (d *divert) RoundTrip(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.urls = append(d.urls, req.URL.String())
	d.mu.Unlock()
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host = d.target.Scheme, d.target.Host
	return http.DefaultTransport.RoundTrip(out)
}

func TestEmptyBaseURLCallsTheOfficialAPIWithTheKey(t *testing.T) {
	require.Equal(t, "https://api.openai.com/v1", openai.DefaultBaseURL)
	srv := serve(t, reply{status: 200, body: fixture(t, "chat_text.json")})
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	d := &divert{target: target}
	p := newProvider(t, openai.Config{APIKey: "sk-only-key", DefaultModel: "gpt-4o-mini", HTTPClient: &http.Client{Transport: d}})

	_, err = p.Complete(context.Background(), hello)
	require.NoError(t, err)

	require.Equal(t, []string{"https://api.openai.com/v1/chat/completions"}, d.urls)
	_, header, _ := srv.received()
	require.Equal(t, "Bearer sk-only-key", header.Get("Authorization"))
}

package streamfx

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx/fxtest"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/signals"
)

// serveStreams runs New with c until the test ends.
func serveStreams(t *testing.T, c configfx.StreamConfig) activities.LiveStreams {
	t.Helper()
	lc := fxtest.NewLifecycle(t)
	res, err := New(Params{Config: c, Lifecycle: lc, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	lc.RequireStart()
	t.Cleanup(lc.RequireStop)
	return res.Streams
}

func config(c configfx.StreamConfig) configfx.StreamConfig {
	c.Addr = "127.0.0.1:0"
	c.MaxSubscribers, c.MaxSubscribersPerStream = stream.DefaultMaxSubscribers, stream.DefaultMaxSubscribersPerStream
	return c
}

// openStream opens one model call's stream with two chunks and a done.
func openStream(streams activities.LiveStreams) signals.StreamLocator {
	w, loc := streams.Open("agent-1", "run-1", "model-1-1", 1)
	w.Emit(llm.Chunk{Text: "Hello "})
	w.Emit(llm.Chunk{Text: "TLS"})
	w.Close(nil)
	return loc
}

// readText reads a stream to its end with client and returns its text.
func readText(ctx context.Context, client *http.Client, loc signals.StreamLocator) (string, error) {
	var text strings.Builder
	for ev, err := range agent.ReadStream(ctx, client, loc.URL, loc.Token, 0) {
		if err != nil {
			return text.String(), err
		}
		if ev.Kind == stream.KindChunk {
			text.WriteString(ev.Chunk.Text)
		}
	}
	return text.String(), nil
}

func TestStreamsAreServedOverTLSToClientsTrustingTheCA(t *testing.T) {
	pki := newTestPKI(t)
	streams := serveStreams(t, config(configfx.StreamConfig{TLSCert: pki.CertFile, TLSKey: pki.KeyFile}))
	loc := openStream(streams)
	require.True(t, strings.HasPrefix(loc.URL, "https://127.0.0.1:"), loc.URL)
	require.NotEmpty(t, loc.Token)

	trusting, err := agent.NewStreamClient(agent.StreamClientOptions{CAFile: pki.CAFile})
	require.NoError(t, err)
	text, err := readText(t.Context(), trusting, loc)
	require.NoError(t, err)
	require.Equal(t, "Hello TLS", text)

	system, err := agent.NewStreamClient(agent.StreamClientOptions{})
	require.NoError(t, err)
	text, err = readText(t.Context(), system, loc)
	var unknownCA x509.UnknownAuthorityError
	require.ErrorAs(t, err, &unknownCA, "a client not trusting the CA refuses the worker")
	require.Empty(t, text)

	plain := loc
	plain.URL = strings.Replace(loc.URL, "https://", "http://", 1)
	text, err = readText(t.Context(), trusting, plain)
	require.Error(t, err, "plain HTTP gets nothing from a TLS endpoint")
	require.Empty(t, text)
}

func TestStreamsAreServedOverPlainHTTPWithoutTLS(t *testing.T) {
	streams := serveStreams(t, config(configfx.StreamConfig{}))
	loc := openStream(streams)
	require.True(t, strings.HasPrefix(loc.URL, "http://127.0.0.1:"), loc.URL)
	text, err := readText(t.Context(), nil, loc)
	require.NoError(t, err)
	require.Equal(t, "Hello TLS", text)
}

func TestBadTLSFilesStopTheWorkerAtConstruction(t *testing.T) {
	pki := newTestPKI(t)
	tests := map[string]configfx.StreamConfig{
		"missing key":         {TLSCert: pki.CertFile, TLSKey: pki.CertFile + ".nope"},
		"key of another cert": {TLSCert: pki.CAFile, TLSKey: pki.KeyFile},
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := New(Params{Config: config(c), Lifecycle: fxtest.NewLifecycle(t), Logger: slog.New(slog.DiscardHandler)})
			require.ErrorContains(t, err, "live stream TLS key pair")
		})
	}
}

func TestStreamsRefuseAForeignHostSoARebindingPageReadsNothing(t *testing.T) {
	loc := openStream(serveStreams(t, config(configfx.StreamConfig{})))
	for host, want := range map[string]int{"": http.StatusOK, "rebound.evil.example:80": http.StatusMisdirectedRequest} {
		req, err := http.NewRequest(http.MethodGet, loc.URL, nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Authorization", "Bearer "+loc.Token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, host)
	}
	require.Equal(t, []string{"streams.example.com"}, advertisedHost("https://streams.example.com:8443"),
		"the --stream-url name is served too")
}

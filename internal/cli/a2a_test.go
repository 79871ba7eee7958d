package cli

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// syncBuffer is a buffer a serving command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStarterA2AServesTheAgentsToTheSDKsClient(t *testing.T) {
	s := newServer(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errOut syncBuffer
	st := Starter{Out: &out, Err: &errOut, Dial: func(_ context.Context, o client.Options) (client.Client, error) {
		return s.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
	}, Env: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- st.Run(ctx, []string{"--namespace", s.ts.GetDefaultNamespace(), "a2a", "--addr", "127.0.0.1:0", "--name", "helper", "--tools", "calculate"})
	}()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)/`)
	var base string
	require.Eventually(t, func() bool {
		m := addr.FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 30*time.Second, 20*time.Millisecond, "stdout: %s\nstderr: %s", out.String(), errOut.String())

	card, err := agentcard.DefaultResolver.Resolve(ctxT(t, 10*time.Second), base)
	require.NoError(t, err)
	require.Equal(t, "helper", card.Name)
	require.Equal(t, "calculate", card.Skills[0].ID)
	require.Contains(t, card.Skills[0].Description, "rithmetic", "the skill says what the tool does")
	require.Empty(t, card.Security, "without a token the card asks for none")
	c, err := a2aclient.NewFromCard(ctxT(t, 10*time.Second), card)
	require.NoError(t, err)
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: `/tool calculate {"expression":"6*7"}`})
	m.ContextID = "over-a2a"
	res, err := c.SendMessage(ctxT(t, 60*time.Second), &a2a.MessageSendParams{Message: m})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Contains(t, task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "42")

	// The agent is Tether's: the starter reads it like any other.
	r := s.must(ctxT(t, 30*time.Second), "status", "over-a2a")
	require.Contains(t, r.out, "idle")

	stop()
	select {
	case code := <-done:
		require.Equal(t, 0, code, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("starter a2a did not stop on its context's end")
	}
}

func TestStarterA2ARefusesAnAddressBeyondLoopback(t *testing.T) {
	s := newServer(t)
	r := s.run(ctxT(t, 10*time.Second), nil, "a2a", "--addr", "0.0.0.0:8290")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, "beyond loopback: serve TLS")
	r = s.run(ctxT(t, 10*time.Second), nil, "a2a", "--tls-cert", "c.pem")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, "--tls-cert and --tls-key go together")
	r = s.run(ctxT(t, 10*time.Second), nil, "a2a", "--tools", "calculate", "stray")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, "flags only")
}

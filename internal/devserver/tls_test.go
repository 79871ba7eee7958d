package devserver

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// describe dials hostPort with tlsConf and asks for the namespace: what
// any local process could try.
func describe(ctx context.Context, hostPort, namespace string, tlsConf *tls.Config) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: hostPort, Namespace: namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)), ConnectionOptions: client.ConnectionOptions{TLS: tlsConf}})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	return err
}

// With MutualTLS only a client holding the data dir's certificate reaches
// the frontend: plaintext, TLS without a certificate, and a certificate of
// another data dir are all refused, and the certificates stay the same
// across restarts so a client that has them keeps working.
func TestMutualTLSAdmitsOnlyTheDataDirsClientCertificate(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, Options{DataDir: dir, MutualTLS: true})
	ctx := testContext(t)
	mine, err := ClientTLS(dir)
	require.NoError(t, err)
	require.NoError(t, describe(ctx, s.HostPort(), s.Namespace(), mine))
	require.NotNil(t, s.ClientTLS())
	runWaiterOver(t, s) // history, matching and the frontend reach each other

	quick := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		t.Cleanup(cancel)
		return c
	}
	require.Error(t, describe(quick(), s.HostPort(), s.Namespace(), nil), "plaintext")
	noCert := mine.Clone()
	noCert.Certificates = nil
	require.Error(t, describe(quick(), s.HostPort(), s.Namespace(), noCert), "TLS without a client certificate")
	other := t.TempDir()
	_, err = ensureCerts(other, "127.0.0.1", time.Now())
	require.NoError(t, err)
	theirs, err := ClientTLS(other)
	require.NoError(t, err)
	theirs.RootCAs = mine.RootCAs // trusts the server, presents a certificate of another CA
	require.Error(t, describe(quick(), s.HostPort(), s.Namespace(), theirs), "a certificate of another data dir")

	for _, name := range []string{"ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem"} {
		fi, err := os.Stat(filepath.Join(dir, tlsDirName, name))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(privateFileMode), fi.Mode().Perm(), name)
	}
	before, err := os.ReadFile(filepath.Join(dir, tlsDirName, "client.pem"))
	require.NoError(t, err)
	require.NoError(t, s.Stop())
	s2 := startServer(t, Options{DataDir: dir, MutualTLS: true})
	require.NoError(t, describe(ctx, s2.HostPort(), s2.Namespace(), mine), "the same certificate after a restart")
	after, err := os.ReadFile(filepath.Join(dir, tlsDirName, "client.pem"))
	require.NoError(t, err)
	require.Equal(t, before, after)
}

func TestMutualTLSNeedsADataDirAndWithTheUIAToken(t *testing.T) {
	for name, tc := range map[string]struct {
		o    Options
		want string
	}{
		"no data dir":             {Options{MutualTLS: true}, "MutualTLS needs a DataDir"},
		"the UI without a token":  {Options{DataDir: t.TempDir(), MutualTLS: true, UIPort: -1}, "MutualTLS with the Web UI needs a UIToken"},
		"the UI with a blank one": {Options{DataDir: t.TempDir(), MutualTLS: true, UIPort: -1, UIToken: "  "}, "MutualTLS with the Web UI needs a UIToken"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Start(testContext(t), tc.o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// runWaiterOver runs one workflow through s with its client TLS: a worker
// polls, a signal wakes the workflow and its result comes back.
func runWaiterOver(t *testing.T, s *Server) {
	t.Helper()
	ctx := testContext(t)
	c, err := client.DialContext(ctx, client.Options{HostPort: s.HostPort(), Namespace: s.Namespace(),
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)), ConnectionOptions: client.ConnectionOptions{TLS: s.ClientTLS()}})
	require.NoError(t, err)
	defer c.Close()
	w := startWorker(t, c)
	defer w.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "tls-waiter", TaskQueue: testTaskQueue}, waiterWorkflow)
	require.NoError(t, err)
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), wakeSignal, "over TLS"))
	var got string
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, "woke: over TLS", got)
}

// With MutualTLS the Web UI dials the frontend with the data dir's client
// certificate, and answers only a request that carries the token.
func TestMutualTLSWebUIReachesTheServerBehindItsLogin(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, Options{DataDir: dir, MutualTLS: true, UIPort: -1, UIToken: gateToken})
	runWaiterOver(t, s)
	list := s.UIAddress() + "/api/v1/namespaces/default/workflows"
	resp, body := get(t, list)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
	require.NotContains(t, body, "tls-waiter")

	// Visibility lags behind the workflow's close.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		req, err := http.NewRequest(http.MethodGet, list, nil)
		require.NoError(c, err)
		req.Header.Set("Authorization", "Bearer "+gateToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(c, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(c, err)
		require.Equal(c, http.StatusOK, resp.StatusCode, string(b))
		require.Contains(c, string(b), "tls-waiter", "the UI read the frontend over mutual TLS")
	}, time.Minute, 100*time.Millisecond)
}

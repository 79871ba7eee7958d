// Named to sort after cache_test.go: the SDK's sticky cache takes its size
// when the process's first worker is created, which must be the cache test's.

package tetherfx

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/a2afx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/devserver"
)

// a2aKeyPair writes a self-signed certificate for 127.0.0.1 and its key.
func a2aKeyPair(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a2a test"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certFile, keyFile, pool
}

// a2aToken adds the bearer token to every call.
type a2aToken struct {
	a2aclient.PassthroughInterceptor
}

func (a2aToken) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer the-console-operator-token"}
	return ctx, nil
}

// worker --dev --a2a-addr serves the profiles file over TLS beside the
// console, with the console's token when TETHER_A2A_TOKEN is unset: the
// card names the https URL and the bearer scheme, and a message sent with
// the SDK's client is answered by the worker's own agent.
func TestWorkerDevServesA2AOverTLSWithTheConsolesToken(t *testing.T) {
	port, err := devserver.FreePorts("127.0.0.1", 1)
	require.NoError(t, err)
	certFile, keyFile, pool := a2aKeyPair(t)
	profiles := filepath.Join(t.TempDir(), "profiles.json")
	require.NoError(t, os.WriteFile(profiles, []byte(`{"agents": [{"name": "maths", "description": "does sums", "tools": ["calculate"]}]}`), 0o600))
	env := map[string]string{configfx.EnvConsoleToken: "the-console-operator-token"}
	cfg, err := configfx.Load([]string{"--dev", "--data-dir", t.TempDir(), "--port", strconv.Itoa(port[0]), "--ui-port", "0",
		"--console-addr", "", "--a2a-addr", "127.0.0.1:0", "--a2a-profiles", profiles,
		"--a2a-tls-cert", certFile, "--a2a-tls-key", keyFile}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var endpoint a2afx.Endpoint
	app := fx.New(Worker(cfg, io.Discard), fx.Populate(&endpoint))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()
	require.Regexp(t, `^https://127\.0\.0\.1:\d+$`, endpoint.URL)

	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	card, err := agentcard.NewResolver(hc).Resolve(ctx, endpoint.URL)
	require.NoError(t, err)
	require.Equal(t, "maths", card.Name)
	require.Equal(t, endpoint.URL+"/", card.URL)
	require.Equal(t, "calculate", card.Skills[0].ID)
	require.NotEqual(t, "calculate", card.Skills[0].Description, "the worker's registry describes the skill")
	require.Equal(t, []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}}, card.Security)

	resp, err := hc.Post(endpoint.URL+"/", "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "without the token a call is refused")

	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithInterceptors(a2aToken{}))
	require.NoError(t, err)
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: `/tool calculate {"expression":"6*7"}`})
	m.ContextID = "over-dev-a2a"
	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: m})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Contains(t, task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "42")
}

package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// writeKeyPair writes a self-signed certificate for 127.0.0.1 and its key
// as PEM files, and returns them with a pool trusting the certificate.
func writeKeyPair(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
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

func TestStarterA2AServesAProfilesFileOverTLSAndTheCardsSayHTTPSAndBearer(t *testing.T) {
	s := newServer(t)
	certFile, keyFile, pool := writeKeyPair(t)
	profiles := filepath.Join(t.TempDir(), "profiles.json")
	require.NoError(t, os.WriteFile(profiles, []byte(`{"agents": [
		{"name": "maths", "description": "does sums", "tools": ["calculate"]},
		{"name": "clock", "tools": ["current_time"]}
	]}`), 0o600))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errOut syncBuffer
	env := map[string]string{"TETHER_A2A_TOKEN": "a-token-for-the-test"}
	st := Starter{Out: &out, Err: &errOut, Dial: func(_ context.Context, o client.Options) (client.Client, error) {
		return s.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
	}, Env: func(k string) string { return env[k] }}
	done := make(chan int, 1)
	go func() {
		done <- st.Run(ctx, []string{"--namespace", s.ts.GetDefaultNamespace(), "a2a", "--addr", "127.0.0.1:0",
			"--profiles", profiles, "--tls-cert", certFile, "--tls-key", keyFile})
	}()
	addr := regexp.MustCompile(`on (https://127\.0\.0\.1:\d+)/`)
	var base string
	require.Eventually(t, func() bool {
		m := addr.FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 30*time.Second, 20*time.Millisecond, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	require.Contains(t, out.String(), "profiles maths, clock")

	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	resolver := agentcard.NewResolver(hc)
	root, err := resolver.Resolve(ctxT(t, 10*time.Second), base)
	require.NoError(t, err)
	require.Equal(t, "maths", root.Name, "the first profile is also the root's card")
	require.Equal(t, base+"/", root.URL, "the card names the https URL")
	require.Equal(t, []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}}, root.Security)
	clock, err := resolver.Resolve(ctxT(t, 10*time.Second), base+"/agents/clock/")
	require.NoError(t, err)
	require.Equal(t, "clock", clock.Name)
	require.Equal(t, "current_time", clock.Skills[0].ID)
	require.Equal(t, base+"/agents/clock/", clock.URL)

	// Plain HTTP to the TLS port gets no card.
	resp, err := http.Get("http://" + base[len("https://"):] + "/.well-known/agent-card.json")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)

	stop()
	select {
	case code := <-done:
		require.Equal(t, 0, code, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("starter a2a did not stop on its context's end")
	}
}

func TestStarterA2ARefusesABadProfilesFileOrFlagsBesideIt(t *testing.T) {
	s := newServer(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"agents": [{"name": "a", "tool": ["calculate"]}]}`), 0o600))
	r := s.run(ctxT(t, 10*time.Second), nil, "a2a", "--profiles", bad)
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, `unknown field "tool"`)
	require.Contains(t, r.err, "bad.json")
	r = s.run(ctxT(t, 10*time.Second), nil, "a2a", "--profiles", bad, "--tools", "calculate")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, "--tools belong in the file")
}

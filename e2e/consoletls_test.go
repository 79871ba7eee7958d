package e2e

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
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/internal/cli"
)

// writeKeyPair writes a self-signed PEM certificate for 127.0.0.1 and its
// key, and returns their paths and a pool trusting the certificate.
func writeKeyPair(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console e2e"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// `starter console` serves HTTPS with the key pair TETHER_CONSOLE_TLS_CERT
// and TETHER_CONSOLE_TLS_KEY name, with Secure session cookies; without
// one it refuses to serve beyond loopback.
func TestStarterConsoleServesTLSAndRefusesPlainHTTPBeyondLoopback(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	certFile, keyFile, pool := writeKeyPair(t)
	token := "an-operator-token-of-some-length"
	vars := map[string]string{"TETHER_CONSOLE_TOKEN": token, "TETHER_CONSOLE_TLS_CERT": certFile, "TETHER_CONSOLE_TLS_KEY": keyFile}
	out := &lockedBuffer{}
	s := cli.Starter{Out: out, Err: out, Env: func(k string) string { return vars[k] },
		Dial: func(_ context.Context, o client.Options) (client.Client, error) {
			return e.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
		}}
	cctx, stop := context.WithCancel(ctx)
	code := make(chan int, 1)
	go func() {
		code <- s.Run(cctx, []string{"--namespace", e.ts.GetDefaultNamespace(), "console", "--addr", "127.0.0.1:0"})
	}()
	urlRE := regexp.MustCompile(`Tether console on (https://127\.0\.0\.1:\d+/)`)
	var base string
	require.Eventually(t, func() bool {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}, 30*time.Second, 10*time.Millisecond, out.String())

	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(base+"login", url.Values{"token": {token}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Set-Cookie"), "Secure")
	stop()
	require.Equal(t, 0, <-code, out.String())

	delete(vars, "TETHER_CONSOLE_TLS_CERT")
	delete(vars, "TETHER_CONSOLE_TLS_KEY")
	r := e.starterWithEnv(ctx, vars, "console", "--addr", "0.0.0.0:0")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "serving beyond loopback needs TLS")
}

// starterWithEnv runs the starter as e.starter does, with env.
func (e *env) starterWithEnv(ctx context.Context, vars map[string]string, args ...string) starterResult {
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	s := cli.Starter{Out: out, Err: errOut, Env: func(k string) string { return vars[k] },
		Dial: func(_ context.Context, o client.Options) (client.Client, error) {
			return e.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
		}}
	code := s.Run(ctx, append([]string{"--namespace", e.ts.GetDefaultNamespace()}, args...))
	return starterResult{code: code, out: out.String(), err: errOut.String()}
}

package console

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// selfSigned is a key pair for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console test"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}, pool
}

// serve runs Serve on ln until the test ends and returns its result channel.
func serve(t *testing.T, ln net.Listener, s *Server) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, ln, s) }()
	t.Cleanup(func() {
		cancel()
		<-errc
	})
	return errc
}

func TestServeRefusesPlainHTTPBeyondLoopback(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	s, err := New(Options{Client: e.c, Token: testToken, LoginToRead: true})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer ln.Close()
	err = Serve(context.Background(), ln, s)
	require.ErrorContains(t, err, "serving beyond loopback needs TLS")
	require.NoError(t, CheckTLS("0.0.0.0:8280", true))
	require.NoError(t, CheckTLS("127.0.0.1:8280", false))
}

func TestOverTLSTheSessionCookieIsSecureAndAForeignHostIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	cfg, pool := selfSigned(t)
	s, err := New(Options{Client: e.c, Token: testToken, TLS: cfg})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serve(t, ln, s)
	base := "https://" + ln.Addr().String()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := hc.PostForm(base+"/login", url.Values{"token": {testToken}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	cookie := resp.Header.Get("Set-Cookie")
	require.Contains(t, cookie, "Secure")
	require.Contains(t, cookie, "HttpOnly")

	req, err := http.NewRequest(http.MethodGet, base+"/agents", nil)
	require.NoError(t, err)
	req.Host = "rebound.evil.example"
	req.Header.Set("Cookie", strings.SplitN(cookie, ";", 2)[0])
	resp, err = hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "a rebound page does not reach the console, cookie or not")

	resp, err = (&http.Client{Timeout: 5 * time.Second}).Get("http://" + ln.Addr().String() + "/agents")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "no plain HTTP on a TLS console")
}

// Serve answers the names in Options.Hosts (a proxy's public name), as
// the worker's console answers TETHER_ALLOWED_HOSTS, and refuses others.
func TestServeAnswersTheHostsItIsGiven(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	s, err := New(Options{Client: e.c, Hosts: []string{"console.example.com"}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serve(t, ln, s)
	for host, refused := range map[string]bool{"console.example.com": false, "rebound.evil.example": true} {
		req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/agents", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, refused, resp.StatusCode == http.StatusMisdirectedRequest, "%s: %d", host, resp.StatusCode)
		if !refused {
			require.Equal(t, http.StatusOK, resp.StatusCode, host)
		}
	}
}

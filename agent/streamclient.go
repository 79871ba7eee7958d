package agent

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// StreamClientOptions configures the HTTP client that reads live streams.
type StreamClientOptions struct {
	// CAFile is a PEM file of the certificate authorities trusted for
	// https stream URLs, e.g. the one that signed a worker's
	// --stream-tls-cert. Empty trusts the system's roots.
	CAFile string
}

// NewStreamClient returns a client for ReadStream and WithStreamClient: no
// overall timeout (it would cut streams off), TLS 1.2 at least, trusting
// o.CAFile's authorities or the system's. Plain http URLs work with it too.
func NewStreamClient(o StreamClientOptions) (*http.Client, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pool, err := loadCAs(o.CAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	return &http.Client{Transport: t}, nil
}

// loadCAs reads a PEM bundle into a pool, refusing a file that holds none.
func loadCAs(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stream CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("stream CA file %s: %w", path, errNoCertificates)
	}
	return pool, nil
}

var errNoCertificates = errors.New("no PEM certificates in it")

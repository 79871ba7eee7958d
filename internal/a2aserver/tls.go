package a2aserver

import (
	"crypto/tls"
	"fmt"
)

// LoadTLS loads a PEM key pair to serve A2A over HTTPS.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("A2A TLS key pair (%s, %s): %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// BaseURL is the URL the cards name for a server listening on addr
// (HOST:PORT): https when it serves TLS.
func BaseURL(addr string, tls bool) string {
	if tls {
		return "https://" + addr
	}
	return "http://" + addr
}

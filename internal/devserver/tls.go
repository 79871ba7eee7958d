package devserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/server/common/config"
)

// tlsDirName is the data dir's directory of the mutual-TLS material: a CA
// made for this data dir alone, the server's certificate (also what the
// services present to each other) and the one client certificate. Whoever
// can read it can talk to the server, so it is as private as the database.
const tlsDirName = "tls"

// certLifetime is long for a local server; deleting the directory makes
// new ones at the next start.
const certLifetime = 5 * 365 * 24 * time.Hour

// certFiles are the paths of the mutual-TLS files in a data dir.
type certFiles struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

func certPaths(dataDir string) certFiles {
	d := filepath.Join(dataDir, tlsDirName)
	return certFiles{
		ca:         filepath.Join(d, "ca.pem"),
		serverCert: filepath.Join(d, "server.pem"), serverKey: filepath.Join(d, "server-key.pem"),
		clientCert: filepath.Join(d, "client.pem"), clientKey: filepath.Join(d, "client-key.pem"),
	}
}

// ClientTLS is the TLS configuration a client of the embedded server on
// dataDir dials with when the server runs with MutualTLS: the data dir's
// client certificate, trusting only the data dir's CA.
func ClientTLS(dataDir string) (*tls.Config, error) {
	f := certPaths(dataDir)
	cert, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
	if err != nil {
		return nil, fmt.Errorf("client certificate of data dir %s: %w", dataDir, err)
	}
	caPEM, err := os.ReadFile(f.ca)
	if err != nil {
		return nil, fmt.Errorf("CA of data dir %s: %w", dataDir, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("CA of data dir %s: no certificate in %s", dataDir, f.ca)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: roots, MinVersion: tls.VersionTLS12}, nil
}

// ensureCerts makes the data dir's CA and certificates for ip unless they
// are there, and returns their paths.
func ensureCerts(dataDir, ip string) (certFiles, error) {
	f := certPaths(dataDir)
	if _, err := os.Stat(f.clientKey); err == nil {
		return f, nil
	}
	if err := os.Mkdir(filepath.Dir(f.ca), privateDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return f, fmt.Errorf("create %s: %w", filepath.Dir(f.ca), err)
	}
	if err := writeCerts(f, net.ParseIP(ip)); err != nil {
		return f, fmt.Errorf("make the data dir's certificates: %w", err)
	}
	return f, nil
}

// writeCerts makes a CA, signs the server's and the client's certificates
// with it and writes them; the CA's key is never written, so nothing else
// can ever be signed for this data dir.
func writeCerts(f certFiles, ip net.IP) error {
	caKey, caCert, caDER, err := newCert(nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev server CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	})
	if err != nil {
		return err
	}
	srvKey, _, srvDER, err := newCert(caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev server"}, KeyUsage: x509.KeyUsageDigitalSignature,
		// The services present it to each other too.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{ip}, DNSNames: []string{"localhost"},
	})
	if err != nil {
		return err
	}
	cliKey, _, cliDER, err := newCert(caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev client"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return err
	}
	srvKeyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		return err
	}
	cliKeyDER, err := x509.MarshalPKCS8PrivateKey(cliKey)
	if err != nil {
		return err
	}
	// The client key last: ensureCerts takes its presence for a whole set.
	for _, w := range []struct {
		path, kind string
		der        []byte
	}{
		{f.ca, "CERTIFICATE", caDER}, {f.serverCert, "CERTIFICATE", srvDER}, {f.serverKey, "PRIVATE KEY", srvKeyDER},
		{f.clientCert, "CERTIFICATE", cliDER}, {f.clientKey, "PRIVATE KEY", cliKeyDER},
	} {
		data := pem.EncodeToMemory(&pem.Block{Type: w.kind, Bytes: w.der})
		if err := os.WriteFile(w.path, data, privateFileMode); err != nil {
			return err
		}
	}
	return nil
}

// newCert signs tmpl with parentKey (itself when parent is nil) and
// returns the new key, the certificate and its DER.
func newCert(parentKey *ecdsa.PrivateKey, parent, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126)); err != nil {
		return nil, nil, nil, err
	}
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = tmpl.NotBefore.Add(certLifetime)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, der, err
}

// applyTLS makes every service of c require a client certificate signed by
// the data dir's CA: the frontend, which clients dial, and the internode
// ports (history, matching, worker), which would otherwise serve any local
// user the histories directly. The services dial each other, and the
// system worker the frontend, with the server's certificate.
func (f certFiles) applyTLS(c *config.Config, ip string) {
	server := config.ServerTLS{CertFile: f.serverCert, KeyFile: f.serverKey,
		ClientCAFiles: []string{f.ca}, RequireClientAuth: true}
	client := config.ClientTLS{ServerName: ip, RootCAFiles: []string{f.ca}}
	c.Global.TLS.Internode = config.GroupTLS{Server: server, Client: client}
	c.Global.TLS.Frontend = config.GroupTLS{Server: server, Client: client}
	c.Global.TLS.SystemWorker = config.WorkerTLS{CertFile: f.serverCert, KeyFile: f.serverKey, Client: client}
}

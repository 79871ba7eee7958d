package devserver

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"time"

	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"go.temporal.io/server/common/config"
)

// tlsDirName is the data dir's directory of the mutual-TLS material: a CA
// made for this data dir alone, the server's certificate (also what the
// services present to each other) and the one client certificate. Whoever
// can read it can talk to the server, so it is as private as the database.
const tlsDirName = "tls"

// certLifetime is long for a local server; a set that nears its end, or
// names another address than the server's, is made anew at start
// (ensureCerts), and deleting the directory does so too.
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

// uiTLS is how the Web UI dials the frontend: with the data dir's client
// certificate, verifying the server's against the data dir's CA.
func (f certFiles) uiTLS(ip string) uiconfig.TLS {
	return uiconfig.TLS{CaFile: f.ca, CertFile: f.clientCert, KeyFile: f.clientKey, ServerName: ip, EnableHostVerification: true}
}

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
)

// certMargin: a set that ends within it is made anew at start, so a
// server started today does not see its certificates expire under it.
const certMargin = 30 * 24 * time.Hour

// ensureCerts returns the paths of the data dir's CA and certificates for
// ip, made anew unless the set there is whole, valid at now for at least
// certMargin more, and names ip: an expired set, or one made when the
// server served another address, would leave it unable to start, since its
// services verify each other's certificates.
func ensureCerts(dataDir, ip string, now time.Time) (certFiles, error) {
	f := certPaths(dataDir)
	addr := net.ParseIP(ip)
	if f.check(addr, now) == nil {
		return f, nil
	}
	dir := filepath.Dir(f.ca)
	if err := os.Mkdir(dir, privateDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return f, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, privateDirMode); err != nil {
		return f, fmt.Errorf("make %s private: %w", dir, err)
	}
	if err := writeCerts(f, addr, now); err != nil {
		return f, fmt.Errorf("make the data dir's certificates: %w", err)
	}
	return f, nil
}

// check returns why the set in f cannot serve ip from now until
// certMargin later, or nil: each key is its owner's alone (0600) and
// matches its certificate, the
// server's and the client's were signed by the CA for their use, and the
// server's names ip.
func (f certFiles) check(ip net.IP, now time.Time) error {
	for _, key := range []string{f.serverKey, f.clientKey} {
		// A key others could read may have been copied: only a new one
		// is the data directory's alone.
		fi, err := os.Stat(key)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("%s is readable by other users (mode %04o)", key, fi.Mode().Perm())
		}
	}
	caPEM, err := os.ReadFile(f.ca)
	if err != nil {
		return err
	}
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return fmt.Errorf("no certificate in %s", f.ca)
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("%s: %w", f.ca, err)
	}
	if err := lasts(ca, now); err != nil {
		return fmt.Errorf("%s: %w", f.ca, err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	srv, err := verifiedLeaf(f.serverCert, f.serverKey, roots, now, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return err
	}
	if err := srv.VerifyHostname(ip.String()); err != nil {
		return fmt.Errorf("%s: %w", f.serverCert, err)
	}
	_, err = verifiedLeaf(f.clientCert, f.clientKey, roots, now, x509.ExtKeyUsageClientAuth)
	return err
}

// verifiedLeaf loads a key pair and verifies its certificate against roots
// for usage, at now and certMargin later.
func verifiedLeaf(certFile, keyFile string, roots *x509.CertPool, now time.Time, usage x509.ExtKeyUsage) (*x509.Certificate, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	if err := lasts(pair.Leaf, now); err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return pair.Leaf, nil
}

// lasts says whether c is valid from now until certMargin later.
func lasts(c *x509.Certificate, now time.Time) error {
	if now.Before(c.NotBefore) || now.Add(certMargin).After(c.NotAfter) {
		return fmt.Errorf("valid from %s to %s, not from %s for %s", c.NotBefore.Format(time.RFC3339),
			c.NotAfter.Format(time.RFC3339), now.Format(time.RFC3339), certMargin)
	}
	return nil
}

// writeCerts makes a CA, signs the server's and the client's certificates
// with it and writes them; the CA's key is never written, so nothing else
// can ever be signed for this data dir.
func writeCerts(f certFiles, ip net.IP, now time.Time) error {
	caKey, caCert, caDER, err := newCert(nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev server CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}, now)
	if err != nil {
		return err
	}
	srvKey, _, srvDER, err := newCert(caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev server"}, KeyUsage: x509.KeyUsageDigitalSignature,
		// The services present it to each other too.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{ip}, DNSNames: []string{"localhost"},
	}, now)
	if err != nil {
		return err
	}
	cliKey, _, cliDER, err := newCert(caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "tether dev client"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, now)
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
	// Each file is replaced whole; a set cut short by a crash fails check
	// at the next start and is made anew.
	for _, w := range []struct {
		path, kind string
		der        []byte
	}{
		{f.ca, "CERTIFICATE", caDER}, {f.serverCert, "CERTIFICATE", srvDER}, {f.serverKey, "PRIVATE KEY", srvKeyDER},
		{f.clientCert, "CERTIFICATE", cliDER}, {f.clientKey, "PRIVATE KEY", cliKeyDER},
	} {
		if err := replaceFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.kind, Bytes: w.der})); err != nil {
			return err
		}
	}
	return nil
}

// replaceFile writes data to path through a new private file renamed over
// it, so a reader sees the old file or the new one, and never a key that
// was once more open.
func replaceFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.WriteFile(tmp, data, privateFileMode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// newCert signs tmpl with parentKey (itself when parent is nil), valid
// from an hour before now for certLifetime, and returns the new key, the
// certificate and its DER.
func newCert(parentKey *ecdsa.PrivateKey, parent, tmpl *x509.Certificate, now time.Time) (*ecdsa.PrivateKey, *x509.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126)); err != nil {
		return nil, nil, nil, err
	}
	tmpl.NotBefore = now.Add(-time.Hour)
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

package devserver

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// certSet reads the five files of dir's set, for comparing two sets.
func certSet(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem"} {
		path := filepath.Join(dir, tlsDirName, name)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(privateFileMode), fi.Mode().Perm(), name)
		out[name] = string(b)
	}
	return out
}

func serverLeaf(t *testing.T, dir string) *x509.Certificate {
	t.Helper()
	f := certPaths(dir)
	pair, err := tls.LoadX509KeyPair(f.serverCert, f.serverKey)
	require.NoError(t, err)
	return pair.Leaf
}

func TestCertsAreKeptWhileValidAndMadeAnewNearTheirEnd(t *testing.T) {
	dir, t0 := t.TempDir(), time.Now()
	_, err := ensureCerts(dir, "127.0.0.1", t0)
	require.NoError(t, err)
	first := certSet(t, dir)
	end := serverLeaf(t, dir).NotAfter

	_, err = ensureCerts(dir, "127.0.0.1", t0.Add(365*24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, first, certSet(t, dir), "a year on, the set is still good")

	nearEnd := end.Add(-certMargin).Add(time.Minute)
	f, err := ensureCerts(dir, "127.0.0.1", nearEnd)
	require.NoError(t, err)
	renewed := certSet(t, dir)
	for name := range first {
		require.NotEqual(t, first[name], renewed[name], "%s within the margin of its end", name)
	}
	require.NoError(t, f.check(net.ParseIP("127.0.0.1"), nearEnd))
	require.True(t, serverLeaf(t, dir).NotAfter.After(nearEnd.Add(certLifetime-2*time.Hour)))

	afterEnd := end.Add(time.Hour)
	_, err = ensureCerts(dir, "127.0.0.1", afterEnd)
	require.NoError(t, err)
	require.Equal(t, renewed, certSet(t, dir), "the renewed set outlives the old one's end")
}

func TestCertsAreMadeAnewWhenTheServerServesAnotherAddress(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	_, err := ensureCerts(dir, "127.0.0.1", now)
	require.NoError(t, err)
	first := certSet(t, dir)

	f, err := ensureCerts(dir, "127.0.0.2", now)
	require.NoError(t, err)
	require.NotEqual(t, first["server.pem"], certSet(t, dir)["server.pem"])
	require.Equal(t, "127.0.0.2", serverLeaf(t, dir).IPAddresses[0].String())
	require.NoError(t, f.check(net.ParseIP("127.0.0.2"), now))
	require.Error(t, f.check(net.ParseIP("127.0.0.1"), now))
}

// A set cut short (a crash between two files), or one whose files do not
// belong together, is made anew rather than served.
func TestCertsAreMadeAnewWhenTheSetIsBroken(t *testing.T) {
	now := time.Now()
	for name, breakIt := range map[string]func(t *testing.T, f certFiles){
		"a missing server key": func(t *testing.T, f certFiles) { require.NoError(t, os.Remove(f.serverKey)) },
		"a client key of another set": func(t *testing.T, f certFiles) {
			other := t.TempDir()
			_, err := ensureCerts(other, "127.0.0.1", now)
			require.NoError(t, err)
			b, err := os.ReadFile(certPaths(other).clientKey)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(f.clientKey, b, privateFileMode))
		},
		"a client key others can read": func(t *testing.T, f certFiles) {
			require.NoError(t, os.Chmod(f.clientKey, 0o644))
		},
		"a server key its group can read": func(t *testing.T, f certFiles) {
			require.NoError(t, os.Chmod(f.serverKey, 0o640))
		},
		"a CA that is not PEM": func(t *testing.T, f certFiles) {
			require.NoError(t, os.WriteFile(f.ca, []byte("garbage"), privateFileMode))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := ensureCerts(dir, "127.0.0.1", now)
			require.NoError(t, err)
			before := certSet(t, dir)
			breakIt(t, f)
			require.Error(t, f.check(net.ParseIP("127.0.0.1"), now))
			_, err = ensureCerts(dir, "127.0.0.1", now)
			require.NoError(t, err)
			require.NoError(t, f.check(net.ParseIP("127.0.0.1"), now))
			after := certSet(t, dir) // every file 0600 again
			for name := range after {
				require.NotEqual(t, before[name], after[name], "%s is made anew, not reused", name)
			}
		})
	}
}

// End to end: a data dir whose certificates have expired, and then one
// whose certificates name another address, still starts a server that
// the data dir's client certificate reaches. Served as they were, the
// services would refuse each other's certificates and never be ready.
func TestMutualTLSServerStartsOverExpiredOrMisaddressedCerts(t *testing.T) {
	dir := t.TempDir()
	_, err := ensureCerts(dir, "127.0.0.1", time.Now().Add(-certLifetime-24*time.Hour))
	require.NoError(t, err)
	for _, ip := range []string{"127.0.0.1", "127.0.0.2"} {
		s, err := Start(testContext(t), Options{DataDir: dir, IP: ip, MutualTLS: true})
		require.NoError(t, err, ip)
		mine, err := ClientTLS(dir)
		require.NoError(t, err)
		require.NoError(t, describe(testContext(t), s.HostPort(), s.Namespace(), mine), ip)
		require.NoError(t, s.Stop())
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// On a shared machine: `worker --dev --mutual-tls` admits only the client
// certificate it generated into its private data dir. A starter without it
// (any other local user) is refused; the starter given the data dir's files
// through Temporal's TEMPORAL_TLS_* variables starts an agent that the
// worker, dialing with the same certificate, runs.
func TestMutualTLSDevServerAdmitsOnlyTheDataDirsCertificate(t *testing.T) {
	dir := t.TempDir()
	starter, worker := filepath.Join(dir, "starter"), filepath.Join(dir, "worker")
	for bin, pkg := range map[string]string{starter: ".", worker: "../worker"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	data, port := filepath.Join(dir, "data"), strconv.Itoa(freePort(t))
	var wlog bytes.Buffer
	w := exec.Command(worker, "--dev", "--mutual-tls", "--ui-port", "0", "--console-addr", "", "--data-dir", data, "--port", port)
	w.Stdout, w.Stderr = &wlog, &wlog
	require.NoError(t, w.Start())
	t.Cleanup(func() { _ = w.Process.Signal(os.Interrupt); _ = w.Wait() })
	plain := append(os.Environ(), "TEMPORAL_ADDRESS=127.0.0.1:"+port)
	certs := append(plain,
		"TEMPORAL_TLS_CLIENT_CERT_PATH="+filepath.Join(data, "tls", "client.pem"),
		"TEMPORAL_TLS_CLIENT_KEY_PATH="+filepath.Join(data, "tls", "client-key.pem"),
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH="+filepath.Join(data, "tls", "ca.pem"))
	require.Eventually(t, func() bool {
		_, err := runStarter(starter, certs, 10*time.Second, "ls")
		return err == nil
	}, time.Minute, 200*time.Millisecond, "worker --dev --mutual-tls never answered:\n%s", &wlog)

	out, err := runStarter(starter, plain, 30*time.Second, "ls")
	require.Error(t, err, "a client without the certificate was let in: %s", out)

	out, err = runStarter(starter, certs, time.Minute, "start", "--id", "m1", "--provider", "scripted", "--wait", "/say Over mutual TLS.")
	require.NoError(t, err, "%s\nworker:\n%s", out, &wlog)
	require.Contains(t, out, "Over mutual TLS.")
}

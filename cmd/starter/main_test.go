package main

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The real binary: with no Temporal server it says so in one line on
// stderr and exits 2.
func TestStarterBinaryWithoutServerExitsTwoWithOneLine(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "starter")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--address", addr, "ls")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	require.Equal(t, 2, exit.ExitCode())
	require.Equal(t, "starter: no Temporal server at "+addr+" (connection refused): "+
		"start one (go run ./cmd/worker --dev), or pass --address\n", stderr.String())
	require.Empty(t, stdout.String())
}

package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// The real binary: with no Temporal server it says so in one line on
// stderr and exits 2.
func TestStarterBinaryWithoutServerExitsTwoWithOneLine(t *testing.T) {
	addr := closedAddress(t)
	code, stdout, stderr := runBin(t, starter(t), "", "--address", addr, "ls")
	require.Equal(t, 2, code)
	require.Equal(t, "starter: no Temporal server at "+addr+" (connection refused): "+
		"start one (go run ./cmd/worker --dev), or pass --address\n", stderr)
	require.Empty(t, stdout)
}

// closedAddress is a local address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

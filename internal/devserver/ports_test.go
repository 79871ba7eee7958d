package devserver

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFreePortsAreDistinctAndBindable(t *testing.T) {
	ps, err := freePorts(defaultIP, 6)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, p := range ps {
		require.False(t, seen[p], "port %d twice", p)
		seen[p] = true
		require.NoError(t, checkPortFree(defaultIP, p))
	}
}

// The server and UI would os.Exit on a port in use; Start must return an
// error first.
func TestPortInUseIsAnErrorNotAnExit(t *testing.T) {
	l, err := net.Listen("tcp", hostPort(defaultIP, 0))
	require.NoError(t, err)
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port

	for name, o := range map[string]Options{
		"gRPC":   {GRPCPort: busy},
		"web UI": {UIPort: busy},
	} {
		_, err := Start(context.Background(), o)
		require.ErrorContains(t, err, name+" port", name)
		require.ErrorContains(t, err, "not available", name)
	}
}

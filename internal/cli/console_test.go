package cli

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The console's address taken (by the console `worker --dev` serves, say)
// is one sentence that names the flag that moves it.
func TestConsoleOnABusyAddressNamesTheFlagThatMovesIt(t *testing.T) {
	s := newServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	addr := ln.Addr().String()
	r := s.run(ctxT(t, time.Minute), nil, "console", "--addr", addr)
	require.Equal(t, 2, r.code)
	require.Empty(t, r.out)
	require.Equal(t, "starter: cannot serve the console on "+addr+" (listen tcp "+addr+": bind: address already in use): "+
		"choose another address with --addr (127.0.0.1:0 picks a free port)\n", r.err)
}

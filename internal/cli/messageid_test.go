package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A message ID names one message: sent again it is already delivered
// (exit 0, delivered once); another message under it is refused (exit 1).
func TestResentMessageIDIsAlreadyDeliveredAndOtherContentIsRefused(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "m1", "--wait", "/say hi")
	r := s.must(ctx, "followup", "--message-id", "msg-1", "m1", "/say once")
	require.Equal(t, "msg-1\n", r.out)
	require.Empty(t, r.err)
	r = s.must(ctx, "followup", "--message-id", "msg-1", "m1", "/say once")
	require.Equal(t, "msg-1\n", r.out)
	require.Equal(t, "starter: message msg-1 already delivered; not delivered again\n", r.err)

	r = s.run(ctx, nil, "followup", "--message-id", "msg-1", "m1", "/say other")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	require.Empty(t, r.out)
	require.Equal(t, "starter: message ID msg-1 was used before for a different message, so this one is not delivered: "+
		"send it under a new --message-id (or none)\n", r.err)
}

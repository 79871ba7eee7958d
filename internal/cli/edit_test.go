package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

func TestApproveArgsRunsTheCallWithTheEditedArguments(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t, time.Minute)
	s.must(ctx, "start", "--id", "edit-cli", "--tools", "calculate", "--approve", "calculate", `/tool calculate {"expression":"1+1"}`)
	h, err := agent.New(s.ts.GetDefaultClient(), "").Attach(ctx, "edit-cli")
	require.NoError(t, err)
	var call string
	require.Eventually(t, func() bool {
		st, err := h.Status(ctx)
		if err == nil && len(st.Pending) == 1 {
			call = st.Pending[0].CallID
		}
		return call != ""
	}, 30*time.Second, 50*time.Millisecond)

	bad := s.run(ctx, nil, "deny", "edit-cli", call, "--reason", "no", "--args", `{"expression":"2+2"}`)
	require.NotZero(t, bad.code)
	require.Contains(t, bad.err, "only approve takes --args")
	bad = s.run(ctx, nil, "approve", "edit-cli", call, "--args", `{expression`)
	require.NotZero(t, bad.code)
	require.Contains(t, bad.err, "--args is not JSON")
	bad = s.run(ctx, nil, "approve", "edit-cli", call, "--args", `{"expression":""}`)
	require.NotZero(t, bad.code, "the calculate tool's schema refuses an empty expression")
	require.Contains(t, bad.err, "edited arguments refused")

	out := s.must(ctx, "approve", "edit-cli", call, "--by", "kim", "--args", `{"expression":"6*7"}`)
	require.Contains(t, out.out, call+" approved")
	var res eventlog.ToolResult
	require.Eventually(t, func() bool {
		log, err := h.Log(ctx)
		if err != nil {
			return false
		}
		evs, err := eventlog.DecodeAll(log)
		require.NoError(t, err)
		for _, e := range evs {
			if r, ok := e.(eventlog.ToolResult); ok {
				res = r
				return true
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond)
	require.True(t, strings.Contains(res.Content, "42"), "the call ran with the edit: %q", res.Content)
}

package agent

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestTranscriptSaysTheSessionStartedAndWhatEachFailingHookSaid(t *testing.T) {
	env, err := eventlog.Encode(0, time.Unix(0, 0), "", eventlog.SessionStarted{Hooks: []string{"greeter", "audit"},
		Errors: []string{"hook audit failed at session-start: store unreachable"}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteTranscript(&out, "a1", []eventlog.Envelope{env}))
	require.Equal(t, "session:     started (session-start hooks greeter, audit)\n"+
		"session:     hook audit failed at session-start: store unreachable\n", out.String())
}

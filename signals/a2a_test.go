package signals

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnA2AEntryNamesAnAgentTheWorkerConfigured(t *testing.T) {
	known := []string{"calculate", "a2a:helper"}
	require.NoError(t, ValidateOptions(AgentOptions{Tools: []string{"a2a:helper"}}, known, nil))
	require.NoError(t, ValidateOptions(AgentOptions{Tools: []string{"a2a:anyone"}}, nil, nil), "a client that knows no worker checks the form only")
	for entry, want := range map[string]string{
		"a2a:other":  `A2A agent "other" is not configured on this worker (--a2a-config)`,
		"a2a:":       `A2A tool entry "a2a:": a remote agent's name is 1 to 32`,
		"a2a:a__b":   `A2A tool entry "a2a:a__b"`,
		"a2a:a b":    `A2A tool entry "a2a:a b"`,
		"a2a:h/tool": `A2A tool entry "a2a:h/tool"`,
	} {
		require.ErrorContains(t, ValidateOptions(AgentOptions{Tools: []string{entry}}, known, nil), want, entry)
		require.ErrorIs(t, ValidateOptions(AgentOptions{Tools: []string{entry}}, known, nil), ErrInvalidOptions)
	}
	require.Equal(t, "a2a__helper", A2AToolName("helper"))
}

package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

// Remote A2A agents: an "a2a:<name>" entry offers the worker's tool
// a2a__<name> from RulesA2A on; earlier rules keep the entry as a name.

func TestAnA2AEntryOffersTheWorkersRemoteAgentToolAndItsCallRunsAsARegularActivity(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"clock", "a2a:helper", "a2a__helper"}}, func(c *Config) {
		c.Modes = map[string]signals.ToolMode{"a2a__helper": signals.ToolParallel}
	})
	d.followup("f1")
	d.resume()
	require.Equal(t, []string{"clock", "a2a__helper"}, inFlight[CallModel](d)[0].Call.Tools,
		"the entry and the tool's own name are one tool")
	d.answerModel(calls("a2a__helper"))
	st := inFlight[StartTool](d)[0]
	require.Equal(t, "a2a__helper", st.Input.Name)
	require.False(t, st.Local, "a remote call is never a local activity")
	require.Nil(t, st.Input.MCP)
	d.requireOK()
}

func TestUnderRulesBeforeA2AAnA2AEntryIsAToolNameAsBefore(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"a2a:helper"}}, func(c *Config) { c.Rules = Rules5 })
	d.followup("f1")
	d.resume()
	require.Equal(t, []string{"a2a:helper"}, inFlight[CallModel](d)[0].Call.Tools)
	d.requireOK()
}

package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Under RulesCallFromHeader a model call's input names no configuration:
// its turn and step are its activity ID's and the rest is the header the
// log recorded just before it, in the same run; CallModel.Call keeps the
// whole of it for the shell.
func TestAModelCallLeavesItsConfigurationToTheRequestHeaderItsRunRecorded(t *testing.T) {
	opts := signals.AgentOptions{Provider: "p", Model: "m", Tools: []string{"t"}}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	call := inFlight[CallModel](d)[0]
	require.Zero(t, call.Input.Call, "nothing but what the log and the ID hold")
	want := signals.CallConfig{Provider: "p", Model: "m", Tools: []string{"t"}, Turn: 1, Step: 1}
	require.Equal(t, want, call.Call)
	headers := only[eventlog.RequestHeader](d.events())
	require.Len(t, headers, 1)
	require.Equal(t, want, signals.CallConfig{Turn: 1, Step: 1}.FromHeader(headers[0]))
	require.Equal(t, signals.ModelActivityID(1, 1), call.ActivityID)

	d.answerModel(answer("one"))
	d.followup("f2")
	d.resume()
	require.Zero(t, inFlight[CallModel](d)[0].Input.Call)
	require.Len(t, only[eventlog.RequestHeader](d.events()), 1, "an unchanged header is recorded once a run")

	d.answerModel(answer("two"))
	d.step(Continue{})
	seed, err := d.l.Seed()
	require.NoError(t, err)
	next := &driver{t: t, l: Restore(Config{AgentID: "a1", Options: opts}, seed), now: d.now}
	next.followup("f3")
	next.resume()
	call = take[CallModel](next)
	require.Zero(t, call.Input.Call)
	require.Equal(t, 3, call.Call.Turn)
	headers = only[eventlog.RequestHeader](next.events())
	require.Len(t, headers, 1, "a continued run records the unchanged header again, for its own log")
	require.Equal(t, "m", headers[0].Model)
}

// A stream hook still travels in the input: the header does not record it.
func TestAModelCallKeepsItsStreamHooksInItsInput(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{}, func(c *Config) { c.StreamHooks = []string{"redact"} })
	d.followup("f1")
	d.resume()
	require.Equal(t, signals.CallConfig{Stream: []string{"redact"}}, take[CallModel](d).Input.Call)
}

// A rules-5 run names the whole configuration in every call, as recorded.
func TestAModelCallUnderRules5NamesItsWholeConfiguration(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Provider: "p", Tools: []string{"t"}}, func(c *Config) { c.Rules = Rules5 })
	d.followup("f1")
	d.resume()
	call := inFlight[CallModel](d)[0]
	require.Equal(t, call.Call, call.Input.Call)
	require.Equal(t, signals.CallConfig{Provider: "p", Tools: []string{"t"}, Turn: 1, Step: 1}, call.Input.Call)
	d.answerModel(answer("one"))
	d.followup("f2")
	d.resume()
	require.Equal(t, 2, take[CallModel](d).Input.Call.Turn)
}

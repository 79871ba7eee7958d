package workflows

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// wantsN is an ArgumentChecker for tools whose arguments must hold a
// number n: what a worker's schema would say of {"n": "x"}.
type wantsN struct{}

func (wantsN) CheckArguments(tool string, _, args json.RawMessage) error {
	var a struct{ N *int }
	if json.Unmarshal(args, &a) != nil || a.N == nil {
		return fmt.Errorf("invalid arguments for tool %q: n must be a number", tool)
	}
	return nil
}

func TestAnApproveUpdateWithEditedArgumentsRunsTheCallWithThem(t *testing.T) {
	h := newHarnessWith(t, Config{Arguments: wantsN{}}, byStep(map[string]signals.ModelOutput{"1.1": call("fast", `{"n":1}`)}))
	var ran []string
	h.env.OnActivity(signals.ToolActivity, mock.Anything, mock.Anything).Return(func(_ context.Context, in signals.ToolInput) (signals.ToolOutput, error) {
		ran = append(ran, string(in.Arguments))
		return signals.ToolOutput{CallID: in.CallID, Name: in.Name, Content: "ok"}, nil
	})
	var refused, decided error = errNoOutcome, errNoOutcome
	h.update(time.Minute, signals.ApproveUpdate.Name, "u0",
		signals.Decision{ID: "d0", CallID: "c0", Decider: "kim", Args: `{"n":"x"}`}, &refused)
	h.at(90*time.Second, func() {
		require.Len(t, h.status().Pending, 1, "a refused edit leaves the call waiting")
	})
	h.update(2*time.Minute, signals.ApproveUpdate.Name, "u1",
		signals.Decision{ID: "d1", CallID: "c0", Decider: "kim", Args: `{"n":2}`}, &decided)
	opts := tools
	opts.Approval = &signals.ApprovalPolicy{Tools: []string{"fast"}}
	evs := h.run(opts, "go", time.Hour)
	require.ErrorContains(t, refused, "n must be a number")
	require.NoError(t, decided)
	made := only[eventlog.DecisionMade](evs)
	require.Len(t, made, 1, "the refused edit recorded nothing")
	require.Equal(t, eventlog.DecisionMade{CallID: "c0", Approved: true, Decider: "kim",
		Args: `{"n":2}`, Original: `{"n":1}`}, made[0])
	require.Equal(t, []string{`{"n":2}`}, ran, "the tool ran once, with the edit in its input")
}

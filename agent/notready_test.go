package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
)

func TestQueriesAreAskedAgainOnlyWhileTheRunCannotAnswerYet(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"handlers not registered yet", live, serviceerror.NewWorkflowNotReady("not ready"), true},
		{"unknown query type of a run that has not run", live, serviceerror.NewQueryFailed("unknown queryType status. KnownQueryTypes=[]"), true},
		{"another query's unknown type", live, serviceerror.NewQueryFailed("unknown queryType statusx. KnownQueryTypes=[]"), false},
		{"server gave up on the sticky worker", live, fmt.Errorf("query: %w", serviceerror.NewDeadlineExceeded("context deadline exceeded")), true},
		{"the caller's own deadline", ended, serviceerror.NewDeadlineExceeded("context deadline exceeded"), false},
		{"a handler's failure", live, serviceerror.NewQueryFailed("index out of range"), false},
		{"anything else", live, errors.New("boom"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, notReady(c.ctx, c.err, "status"))
		})
	}
}

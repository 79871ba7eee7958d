package devserverfx

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/startup"
)

func TestExplainSaysHowToFreeTheEmbeddedServer(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	_, bindErr := net.Listen("tcp", busy.Addr().String())
	require.Error(t, bindErr)

	cases := map[string]struct {
		err  error
		want string
	}{
		"locked data dir": {fmt.Errorf("%w: /d (stop ...)", devserver.ErrDataDirInUse),
			"data directory /d is in use by another worker: stop the other worker --dev or --demo, or pass another --data-dir"},
		"old data dir": {fmt.Errorf("%w: /d was created by ...", devserver.ErrIncompatibleDataDir),
			"data directory /d was written by another Temporal server release: move it away (nothing was deleted), or pass another --data-dir"},
		"port taken": {fmt.Errorf("gRPC port 7233 on 127.0.0.1 is not available: %w", bindErr),
			"the embedded Temporal server cannot listen (gRPC port 7233 on 127.0.0.1 is not available: " + bindErr.Error() + "): " +
				"stop what listens there (another worker --dev?), or choose other ports with --port and --ui-port"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var e *startup.Error
			require.True(t, errors.As(explain("/d", tc.err), &e))
			require.Equal(t, tc.want, e.Sentence())
		})
	}
	other := errors.New("boom")
	require.Same(t, other, explain("/d", other), "an unknown failure passes through")
}

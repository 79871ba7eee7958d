package startup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.uber.org/fx"
)

// failingApp is an fx app whose constructor fails with err, as the worker's
// do: the error reaches the caller wrapped in fx's dependency path.
func failingApp(err error) error {
	type dep struct{}
	app := fx.New(fx.NopLogger, fx.Provide(func() (dep, error) { return dep{}, err }), fx.Invoke(func(dep) {}))
	return app.Err()
}

func TestExplainFindsTheSentenceInsideFxsErrorChain(t *testing.T) {
	err := failingApp(&Error{Problem: "no Temporal server at 127.0.0.1:7233 (connection refused)", Fix: "start one, or run with --dev",
		Err: errors.New("dial")})
	require.Contains(t, err.Error(), "could not build arguments", "fx wraps the constructor's error")
	require.Equal(t, "no Temporal server at 127.0.0.1:7233 (connection refused): start one, or run with --dev", Explain(err))
}

func TestExplainMapsKnownCausesAndOtherwiseDropsFxsPath(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"missing namespace": {fmt.Errorf("start worker: %w", serviceerror.NewNamespaceNotFound("prod")),
			"namespace prod does not exist: create it (temporal operator namespace create prod) or pass --namespace"},
		"unknown cause": {errors.New("disk on fire"), "disk on fire (run with -v for details)"},
		"joined errors": {errors.Join(errors.New("a"), errors.New("b")), "a; b (run with -v for details)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, Explain(failingApp(tc.err)))
		})
	}
}

func TestReportPrintsOneLineOrTheWholeChainWhenVerbose(t *testing.T) {
	err := failingApp(&Error{Problem: "p", Fix: "f", Err: errors.New("root")})
	var w bytes.Buffer
	require.Equal(t, 2, Report(&w, "worker", err, false))
	require.Equal(t, "worker: p: f\n", w.String())

	w.Reset()
	require.Equal(t, 2, Report(&w, "worker", err, true))
	require.Contains(t, w.String(), "could not build arguments")
	require.Contains(t, w.String(), "(cause: root)")
	require.Contains(t, w.String(), "\nworker: p: f\n")
}

func TestDialSaysWhetherNothingAnsweredOrTheServerRefused(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"refused connection": {fmt.Errorf("failed reaching server: %w", serviceerror.NewUnavailable(
			`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:7233: connect: connection refused"`)),
			"no Temporal server at h:1 (connection refused): start one"},
		"dial timeout": {fmt.Errorf("failed reaching server: %w", context.DeadlineExceeded),
			"no Temporal server at h:1 (context deadline exceeded): start one"},
		"bad credentials": {serviceerror.NewPermissionDenied("request unauthorized", ""),
			"Temporal at h:1 refused this client (request unauthorized): check TEMPORAL_API_KEY, the TLS settings or the temporal.toml profile"},
		"anything else": {errors.New("failed reaching server: malformed header: missing HTTP content-type"),
			"cannot connect to Temporal at h:1 (missing HTTP content-type): check --address (or TEMPORAL_ADDRESS) and the TLS settings"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, Dial("h:1", tc.err, "start one").Sentence())
		})
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
)

// syncBuffer is written by the demo goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The README's first command: the demo starts an embedded server, a worker
// and an agent that answers with tool calls, prints the transcript and
// exits 0. Its data directory then holds the agent for --dev to show.
func TestDemoRunsAnAgentEndToEndAndExitsZero(t *testing.T) {
	cfg, err := configfx.Load([]string{"--demo", "--data-dir", t.TempDir(), "--workspace", "../.."}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	out := &syncBuffer{}
	app := fx.New(tetherfx.Worker(cfg), fx.NopLogger,
		fx.Supply(fx.Annotate(out, fx.As(new(io.Writer)), fx.ResultTags(`name:"demo.out"`))))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, app.Start(ctx))
	var sig fx.ShutdownSignal
	select {
	case sig = <-app.Wait():
	case <-ctx.Done():
		t.Fatal("demo did not finish")
	}
	require.NoError(t, app.Stop(ctx))
	require.Equal(t, 0, sig.ExitCode, out.String())
	for _, want := range []string{"scripted demo model", "user:", "tool call:   current_time", "tool result: calculate → 391",
		"tool call:   read_file", "# Tether", "assistant:", "turn 1 completed", "--dev --data-dir " + cfg.DataDir + " --workspace ../.."} {
		require.Contains(t, out.String(), want)
	}
}

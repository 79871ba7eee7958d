package main

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"
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

func noEnv(string) string { return "" }

// The README's first command: the demo starts an embedded server, a worker
// and an agent that answers with tool calls, prints the transcript and
// exits 0. Its data directory then holds the agent for --dev to show.
func TestDemoRunsAnAgentEndToEndAndExitsZero(t *testing.T) {
	out, stderr := &syncBuffer{}, &syncBuffer{}
	dir := t.TempDir()
	code := run([]string{"--demo", "--data-dir", dir, "--workspace", "../.."}, noEnv, stderr,
		fx.Supply(fx.Annotate(out, fx.As(new(io.Writer)), fx.ResultTags(`name:"demo.out"`))))
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	for _, want := range []string{"scripted demo model", "user:", "tool call:   current_time", "tool result: calculate → 391",
		"tool call:   read_file", "# Tether", "assistant:", "turn 1 completed", "--dev --data-dir " + dir + " --workspace ../.."} {
		require.Contains(t, out.String(), want)
	}
	require.Regexp(t, `tool result: read_file → .*# Tether\n(.*\n){4} *… \(\d+ more lines, \d+ bytes in all; full text: starter log --json demo-\d{8}-\d{6}\)\n`,
		out.String(), "the README is previewed, not printed whole")
	require.NotContains(t, out.String(), "## Tests", "the end of the README is not in the transcript")
}

// --demo with an empty prompt would run a plain worker: it is refused.
func TestDemoWithAnEmptyPromptIsRefused(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"--demo", "--prompt", ""}, noEnv, &stderr))
	require.Equal(t, "worker: --prompt must not be empty with --demo: leave it out for the default prompt\n", stderr.String())
}

// worker -h is grouped, with the variables beside the flags.
func TestWorkerHelpGroupsFlagsAndListsVariables(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"--help"}, noEnv, &stderr))
	for _, want := range []string{"\nserver: ", "\nworker:\n", "\nproviders:\n", "\nconsole:\n", "\ncodec: ", "\ntelemetry:\n",
		"$OPENAI_API_KEY", "[$TEMPORAL_ADDRESS]",
		"--workspace-hard-links", "[$TETHER_WORKSPACE_HARD_LINKS]", "$TETHER_CODEC_REQUIRE_BINDING", "$TETHER_TRUSTED_PROXIES"} {
		require.Contains(t, stderr.String(), want)
	}
}

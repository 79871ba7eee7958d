package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// runDemoBinary builds the worker and runs the README's first command with
// extra args, returning its standard output (the transcript) and error.
func runDemoBinary(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "worker")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"--demo", "--data-dir", t.TempDir()}, extra...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Contains(t, stdout.String(), "turn 1 completed")
	return stdout.String(), stderr.String()
}

// The demo's output is its transcript: the worker's, the SDK's and the
// embedded server's logs (such as the SDK's WARN about a heartbeat whose
// activity had ended) stay off the terminal unless asked for.
func TestDemoBinaryPrintsTheTranscriptAndNothingElse(t *testing.T) {
	_, stderr := runDemoBinary(t)
	require.Empty(t, stderr, "the demo wrote a log beside its transcript")
}

func TestDemoBinaryWithVerboseKeepsTheWorkersLog(t *testing.T) {
	stdout, stderr := runDemoBinary(t, "--verbose")
	require.Contains(t, stderr, "level=INFO msg=\"Embedded Temporal server started\"")
	require.NotContains(t, stdout, "level=", "the log goes to standard error, the transcript to standard output")
}

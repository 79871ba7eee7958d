package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// starter builds the real binary once per test.
func starter(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "starter")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// runBin runs bin with args and stdin, and returns its exit code and
// output.
func runBin(t *testing.T, bin, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String(), stderr.String()
}

// Help never needs a server: the binary's `start --help` exits 0 with the
// usage of start, and a flag typo is a usage error, with no server at the
// address. A message on standard input over the limit is refused before
// dialing too.
func TestStarterBinaryHelpAndUsageNeedNoServer(t *testing.T) {
	bin := starter(t)
	addr := closedAddress(t)
	code, out, errOut := runBin(t, bin, "", "--address", addr, "start", "--help")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Contains(t, out, "  start [--id ID]")
	require.NotContains(t, out, "flag: help requested")

	code, out, errOut = runBin(t, bin, "", "--address", addr, "status", "--jsn", "a1")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, "starter: status: flag provided but not defined: -jsn (run starter without arguments for usage)\n", errOut)

	code, _, errOut = runBin(t, bin, strings.Repeat("x", 256<<10+1), "--address", addr, "followup", "--stdin", "a1")
	require.Equal(t, 2, code)
	require.Equal(t, "starter: followup: the message in standard input is over the limit of 262144 bytes (256 KiB) "+
		"(run starter without arguments for usage)\n", errOut)
}

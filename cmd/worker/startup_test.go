package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tetherdev/tether/internal/testserver"
)

// closedAddress is a local address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// requireOneLine runs the worker with args and checks it exits 2 with
// exactly want (one line) on stderr.
func requireOneLine(t *testing.T, want string, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, noEnv, &stderr)
	require.Equal(t, 2, code, stderr.String())
	require.Equal(t, want+"\n", stderr.String())
}

func TestWorkerWithoutTemporalServerSaysHowToGetOne(t *testing.T) {
	addr := closedAddress(t)
	requireOneLine(t, "worker: no Temporal server at "+addr+" (connection refused): start one, or run with --dev",
		"--address", addr)
}

func TestWorkerRejectsBadFlagsInOneSentence(t *testing.T) {
	requireOneLine(t, "worker: --dev and --demo cannot be used together: run the demo, then --dev to inspect it", "--dev", "--demo")
	requireOneLine(t, "worker: flag provided but not defined: -nope: worker -h lists the flags", "--nope")
	requireOneLine(t, "worker: --provider openai needs OPENAI_API_KEY (the official API) or --openai-base-url (a compatible server)",
		"--provider", "openai")
	requireOneLine(t, "worker: --task-queue must not be empty; --provider \"gemini\" is unknown: use scripted, openai or anthropic",
		"--task-queue", "", "--provider", "gemini")
}

func TestWorkerHelpListsFlagsAndExitsZero(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-h"}, noEnv, &stderr))
	require.Contains(t, stderr.String(), "-verbose")
}

// Verbose keeps what the sentence hides: fx's dependency path to the cause.
func TestWorkerVerbosePrintsTheWholeErrorChain(t *testing.T) {
	addr := closedAddress(t)
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"-v", "--address", addr}, noEnv, &stderr))
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	require.Greater(t, len(lines), 1)
	require.Contains(t, stderr.String(), "could not build arguments for function")
	require.Equal(t, "worker: no Temporal server at "+addr+" (connection refused): start one, or run with --dev", lines[len(lines)-1])
}

func TestWorkerOnAMissingNamespaceSaysHowToCreateIt(t *testing.T) {
	ts := testserver.New(t)
	requireOneLine(t, "worker: namespace nosuch does not exist: create it (temporal operator namespace create nosuch) or pass --namespace",
		"--address", ts.GetFrontendHostPort(), "--namespace", "nosuch")
}

// SQLite visibility holds at most 10 custom Keyword attributes: a namespace
// that has them all cannot take Tether's, and the worker says what to run.
func TestWorkerThatCannotRegisterSearchAttributesSaysHow(t *testing.T) {
	ts := testserver.New(t)
	ns := fullNamespace(t, ts)
	var stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ns}, noEnv, &stderr))
	require.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	require.Regexp(t, "^worker: namespace full lacks Tether's search attributes and this worker could not add them \\(.+\\): "+
		"register them with `temporal operator search-attribute create --namespace full --name TetherForkOf --type Keyword --name TetherModel --type Keyword "+
		"--name TetherParent --type Keyword --name TetherStatus --type Keyword --name TetherTurn --type Int "+
		"--name TetherWaitUntil --type Datetime --name TetherWaiting --type Keyword`, "+
		"or run with --no-search-attributes\n$", stderr.String())
}

// fullNamespace registers namespace "full" with ten Keyword attributes.
func fullNamespace(t *testing.T, ts *temporaltest.TestServer) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := ts.GetDefaultClient()
	_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "full", WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	require.NoError(t, err)
	attrs := map[string]enumspb.IndexedValueType{}
	for i := range 10 {
		attrs[fmt.Sprintf("Other%d", i)] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	require.Eventually(t, func() bool { // the new namespace reaches the frontend's cache
		_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "full", SearchAttributes: attrs})
		return err == nil
	}, 20*time.Second, 100*time.Millisecond, "add attributes: %v", err)
	return "full"
}

func TestWorkerWithABadWorkspaceSaysHowToFixIt(t *testing.T) {
	ts := testserver.New(t)
	missing := filepath.Join(t.TempDir(), "nope")
	requireOneLine(t, "worker: --workspace "+missing+" cannot be used (lstat "+missing+": no such file or directory): "+
		"point it at a directory, or pass --workspace '' to run without read_file and list_files",
		"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(), "--workspace", missing)
}

func TestWorkerWithABadMCPConfigSaysWhatToChange(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
		return path
	}
	missing := filepath.Join(dir, "none.json")
	cases := map[string]struct{ path, want string }{
		"missing file": {missing, "open " + missing + ": no such file or directory"},
		"bad JSON": {write("bad.json", `{"servers":`),
			`not a config file (unexpected EOF): want {"servers": {"name": {"command": ...} or {"url": ...}}}`},
		"unknown field": {write("field.json", `{"servers":{"files":{"comand":"x"}}}`),
			`not a config file (json: unknown field "comand"): want {"servers": {"name": {"command": ...} or {"url": ...}}}`},
		"bad server name": {write("name.json", `{"servers":{"my files":{"url":"https://f.example/mcp"}}}`),
			`server "my files": a server name is 1 to 32 of [a-zA-Z0-9_-] without "__"`},
		"command and url": {write("both.json", `{"servers":{"files":{"command":"ls","url":"https://f.example/mcp"}}}`),
			`server "files": give exactly one of command (a stdio server) and url (a streamable-HTTP server)`},
		"two bad servers": {write("two.json", `{"servers":{"files":{"url":"/mcp"},"search":{"url":"https://s.example/mcp","headers_env":{"Authorization":"SEARCH_AUTH"}}}}`),
			`server "files": url is not an absolute http(s) URL; ` +
				`server "search": headers_env "Authorization" takes its value from SEARCH_AUTH, which is not set: export it before starting the worker`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			requireOneLine(t, "worker: --mcp-config "+tc.path+": "+tc.want, "--mcp-config", tc.path)
		})
	}
}

// The real binary: main wires run to the process's stderr and exit status.
func TestWorkerBinaryFailsToStartWithOneLineAndStatusTwo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "worker")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	addr := closedAddress(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--address", addr)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	require.Equal(t, 2, exit.ExitCode())
	require.Equal(t, "worker: no Temporal server at "+addr+" (connection refused): start one, or run with --dev\n", stderr.String())
	require.Empty(t, stdout.String())
}

func TestWorkerWithABadMetricsAddressSaysHowToFixIt(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	requireOneLine(t, "worker: cannot serve metrics on "+addr+" (listen tcp "+addr+": bind: address already in use): "+
		"choose another address with --metrics-addr (127.0.0.1:0 picks a free port)",
		"--address", closedAddress(t), "--metrics-addr", addr)
	requireOneLine(t, "worker: --metrics-addr must be host:port, e.g. 127.0.0.1:9464", "--metrics-addr", "9464")
	requireOneLine(t, `worker: --otlp-endpoint "localhost:4318" is not an http(s) URL such as http://localhost:4318`,
		"--otlp-endpoint", "localhost:4318")
}

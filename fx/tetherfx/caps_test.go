package tetherfx

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
)

// Each cap flag reaches the part it caps in the worker's app, as flags are
// parsed in cmd/worker: the registry cuts a tool's result at
// --tool-result-max-bytes, read_file returns up to --read-file-max-bytes,
// the MCP caller and the model activity carry theirs. Caps over 2 MiB need
// the blob store given here.
func TestCapFlagsReachTheirCapsInTheWorkersApp(t *testing.T) {
	ts := testserver.New(t)
	ws := t.TempDir()
	line := strings.Repeat("r", 99) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat(line, 2000)), 0o644))
	mcpFile := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(mcpFile, []byte(`{"servers":{"echo":{"command":"true"}}}`), 0o600))
	const toolCap, readCap, mcpCap, replyCap = 3 << 20, 150 << 10, 5 << 20, 4 << 20
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--workspace", ws, "--mcp-config", mcpFile, "--blob-dir", filepath.Join(t.TempDir(), "blobs"),
		"--tool-result-max-bytes", strconv.Itoa(toolCap), "--read-file-max-bytes", strconv.Itoa(readCap),
		"--mcp-result-max-bytes", strconv.Itoa(mcpCap)},
		func(k string) string {
			return map[string]string{configfx.EnvModelReplyMaxBytes: strconv.Itoa(replyCap)}[k]
		}, io.Discard)
	require.NoError(t, err)

	big := strings.Repeat("b", 4<<20)
	var (
		reg    *tools.Registry
		caller activities.MCPCaller
		acts   workerfx.Activities
	)
	app := fx.New(Worker(cfg, io.Discard), fx.NopLogger, toolfx.Tools(tools.Tool{Name: "big", Description: "Four MiB.",
		Run: func(context.Context, tools.Call) (tools.Result, error) { return tools.Result{Content: big}, nil }}),
		fx.Populate(&reg, &caller, &acts))
	require.NoError(t, app.Err())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	got, err := reg.Execute(ctx, tools.Call{Name: "big", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got.Content, big[:toolCap]), "the first --tool-result-max-bytes bytes are kept")
	require.Contains(t, got.Content, "[truncated: 3145728 of 4194304 bytes shown]")

	got, err = reg.Execute(ctx, tools.Call{Name: "read_file", Arguments: json.RawMessage(`{"path":"big.txt","limit":2000}`)})
	require.NoError(t, err)
	require.Greater(t, len(got.Content), tools.DefaultReadMaxBytes*2, "more than the default read")
	require.LessOrEqual(t, len(got.Content), readCap+100)

	c, ok := caller.(*mcp.Caller)
	require.True(t, ok)
	require.Equal(t, mcpCap, c.MaxResultBytes)
	require.Equal(t, replyCap, acts.Model.MaxReplyBytes, "the variable reaches the model activity")
}

// A cap over 2 MiB without a blob store cannot be kept in history: the
// worker refuses to start, saying what to configure.
func TestCapsOverTwoMiBWithoutABlobStoreAreRefused(t *testing.T) {
	for _, flag := range []string{"--tool-result-max-bytes", "--mcp-result-max-bytes", "--model-reply-max-bytes"} {
		_, err := configfx.Load([]string{flag, strconv.Itoa(3 << 20)}, func(string) string { return "" }, io.Discard)
		require.ErrorContains(t, err, flag+" 3145728 is over 2 MiB")
		require.ErrorContains(t, err, "configure a blob store (--blob-dir or --blob-store)")
	}
	_, err := configfx.Load([]string{"--read-file-max-bytes", strconv.Itoa(3 << 20), "--tool-result-max-bytes", strconv.Itoa(3 << 20)},
		func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "--read-file-max-bytes 3145728 is over 2 MiB")
	_, err = configfx.Load([]string{"--read-file-max-bytes", strconv.Itoa(100 << 10)}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "over --tool-result-max-bytes")
	_, err = configfx.Load(nil, func(k string) string { return map[string]string{configfx.EnvToolResultMaxBytes: "lots"}[k] }, io.Discard)
	require.ErrorContains(t, err, configfx.EnvToolResultMaxBytes)
	_, err = configfx.Load([]string{"--model-reply-max-bytes", "10"}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "--model-reply-max-bytes must be from 1024")
}

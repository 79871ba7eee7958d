package configfx

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
)

// allParts are the parts Module supplies, as a module asking for one gets
// it.
type allParts struct {
	q  Queue
	d  DevConfig
	dm DemoConfig
	w  WorkerTuning
	cc ConsoleConfig
	co CodecConfig
	cl ClientConfig
	b  BlobConfig
}

func partsOf(t *testing.T, args ...string) (Config, allParts) {
	t.Helper()
	env := map[string]string{EnvConsoleToken: "an-operator-token-of-some-length"}
	c, err := Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	var p allParts
	fxtest.New(t, Module(c), fx.NopLogger, fx.Populate(&p.q, &p.d, &p.dm, &p.w, &p.cc, &p.co, &p.cl, &p.b)).RequireStart().RequireStop()
	return c, p
}

// Each module's part carries the flags it reads, and Module supplies
// every part: a module that asks for its part gets what the flags said.
func TestModuleSuppliesEachModulesPartFromTheFlags(t *testing.T) {
	c, p := partsOf(t, "--dev", "--task-queue", "tq", "--no-search-attributes", "--data-dir", "/tmp/tether-parts",
		"--port", "7999", "--ui-port", "8999", "--mutual-tls", "--workspace", "/tmp/ws",
		"--heartbeat-interval", "2500ms", "--sticky-timeout", "4s", "--deadlock-timeout", "5s", "--address", "temporal.example:7233", "--namespace", "ns1",
		"--blob-dir", "/tmp/tether-blobs")
	require.Equal(t, Queue{TaskQueue: "tq", NoSearchAttributes: true}, p.q)
	require.Equal(t, DevConfig{Dev: true, DataDir: "/tmp/tether-parts", GRPCPort: 7999, UIPort: 8999, MutualTLS: true,
		UIToken: "an-operator-token-of-some-length"}, p.d)
	require.Equal(t, DemoConfig{DataDir: "/tmp/tether-parts", Workspace: "/tmp/ws"}, p.dm)
	require.Equal(t, WorkerTuning{HeartbeatInterval: 2500 * time.Millisecond, StickyTimeout: 4 * time.Second, DeadlockTimeout: 5 * time.Second}, p.w)
	require.Equal(t, c.Console, p.cc)
	require.Equal(t, c.Codec, p.co)
	require.Equal(t, ClientConfig{Address: "temporal.example:7233", Namespace: "ns1", NoSearchAttributes: true}, p.cl)
	require.Equal(t, "/tmp/tether-blobs", p.b.Dir)
	require.Equal(t, c.Blob, p.b)
	require.True(t, p.d.Embedded(), "--dev embeds the server")
	path, err := p.d.DataPath()
	require.NoError(t, err)
	require.Equal(t, "/tmp/tether-parts", path)

	_, p = partsOf(t, "--demo", "--prompt", "hi there")
	require.True(t, p.d.Demo, "the demo's server takes free ports")
	require.Equal(t, "hi there", p.dm.Prompt)
	require.True(t, p.d.Embedded(), "so does --demo")

	_, p = partsOf(t, "--address", "temporal.example:7233")
	require.False(t, p.d.Embedded(), "a worker given a server embeds none")
	require.Equal(t, ClientConfig{Address: "temporal.example:7233"}, p.cl)
}

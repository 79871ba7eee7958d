package configfx

import (
	"path/filepath"
	"time"
)

// The parts of Config that the fx modules take, each only what its
// constructor reads (Module supplies them beside Config's own sub-structs:
// Provider, Tools, Workflow, Stream, MCP, Telemetry, Console, Codec,
// Blob), so a module is built and tested from its part and no module reads
// another's fields.

// Queue is where agents run and whether they carry Tether's search
// attributes: what a part that starts or lists agents needs.
type Queue struct {
	TaskQueue          string
	NoSearchAttributes bool
}

// ClientConfig is the Temporal client's part: the server and namespace to
// dial when none is embedded (over what envconfig's profile says), and
// whether to register Tether's search attributes there.
type ClientConfig struct {
	Address, Namespace string
	NoSearchAttributes bool
}

// DevConfig is the embedded server's part (--dev, --demo).
type DevConfig struct {
	// Dev is --dev: the embedded server with the Web UI.
	Dev              bool
	DataDir          string
	GRPCPort, UIPort int
	MutualTLS        bool
	// Demo says the demo runs on it: free ports and no UI.
	Demo bool
	// UIToken is the console's token, which the Web UI asks for when
	// MutualTLS hands it the client certificate.
	UIToken string
}

// Embedded reports whether the worker runs the embedded server.
func (d DevConfig) Embedded() bool { return d.Dev || d.Demo }

// DataPath is the data directory as an absolute path.
func (d DevConfig) DataPath() (string, error) { return filepath.Abs(d.DataDir) }

// DemoConfig is the demo's part: its prompt, and what it tells the user
// to run next (the data dir and workspace it ran with).
type DemoConfig struct {
	Prompt, DataDir, Workspace string
}

// WorkerTuning is how the worker heartbeats running calls, how long a
// task waits for the worker that has its agent cached, and how long
// workflow code may run without yielding (0: the SDK's default).
type WorkerTuning struct {
	HeartbeatInterval, StickyTimeout, DeadlockTimeout time.Duration
}

// Queue is c's Queue part.
func (c Config) Queue() Queue {
	return Queue{TaskQueue: c.TaskQueue, NoSearchAttributes: c.NoSearchAttributes}
}

// ClientPart is c's ClientConfig part.
func (c Config) ClientPart() ClientConfig {
	return ClientConfig{Address: c.Address, Namespace: c.Namespace, NoSearchAttributes: c.NoSearchAttributes}
}

// DevPart is c's DevConfig part.
func (c Config) DevPart() DevConfig {
	return DevConfig{Dev: c.Dev, DataDir: c.DataDir, GRPCPort: c.GRPCPort, UIPort: c.UIPort, MutualTLS: c.MutualTLS,
		Demo: c.Demo != "", UIToken: c.Console.Token}
}

// DemoPart is c's DemoConfig part.
func (c Config) DemoPart() DemoConfig {
	return DemoConfig{Prompt: c.Demo, DataDir: c.DataDir, Workspace: c.Tools.Workspace}
}

// Tuning is c's WorkerTuning part.
func (c Config) Tuning() WorkerTuning {
	return WorkerTuning{HeartbeatInterval: c.HeartbeatInterval, StickyTimeout: c.StickyTimeout, DeadlockTimeout: c.DeadlockTimeout}
}

package configfx

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
)

// CapsConfig is how much of a tool's result, a file read, an MCP result
// and a model reply the model's context takes, in bytes: settings about
// the model, not Temporal's limits. A cap over MaxCapWithoutBlobs needs a
// blob store (--blob-dir, --blob-store), since one payload in history may
// not exceed Temporal's 2 MiB.
type CapsConfig struct {
	ToolResultBytes int // the tool registry's (tools.WithMaxResultBytes)
	ReadFileBytes   int // read_file's (tools.WorkspaceOptions.MaxReadBytes)
	MCPResultBytes  int // an MCP tool's (mcp.Caller.MaxResultBytes)
	ModelReplyBytes int // a model reply's, as JSON (llm.BoundTo)
}

// Limits of the caps.
const (
	// MaxCapWithoutBlobs is Temporal's payload limit: without a blob
	// store every result and reply is a payload in history.
	MaxCapWithoutBlobs = 2 << 20
	// MaxCap bounds a cap even with a blob store: the worker holds each
	// result in memory, and so does every reader of the agent's log.
	MaxCap = 64 << 20
)

// Environment of the caps, read when their flags are not given.
const (
	EnvToolResultMaxBytes = "TETHER_TOOL_RESULT_MAX_BYTES"
	EnvReadFileMaxBytes   = "TETHER_READ_FILE_MAX_BYTES"
	EnvMCPResultMaxBytes  = "TETHER_MCP_RESULT_MAX_BYTES"
	EnvModelReplyMaxBytes = "TETHER_MODEL_REPLY_MAX_BYTES"
)

// capFlags are the caps' flags, variables and fields.
func capFlags(c *CapsConfig) []struct {
	name, env, usage string
	value            *int
	def              int
} {
	return []struct {
		name, env, usage string
		value            *int
		def              int
	}{
		{"tool-result-max-bytes", EnvToolResultMaxBytes, "most of a tool's result the model sees; the rest is cut with a notice", &c.ToolResultBytes, tools.MaxResultBytes},
		{"read-file-max-bytes", EnvReadFileMaxBytes, "most one read_file call returns (then it says the offset to go on at); at most --tool-result-max-bytes", &c.ReadFileBytes, tools.DefaultReadMaxBytes},
		{"mcp-result-max-bytes", EnvMCPResultMaxBytes, "most of an MCP tool's result the model sees", &c.MCPResultBytes, tools.MaxResultBytes},
		{"model-reply-max-bytes", EnvModelReplyMaxBytes, "most of a model reply kept, as JSON (tool arguments dropped first, then the text cut)", &c.ModelReplyBytes, llm.MaxReplyBytes},
	}
}

func capsFlags(fs *flag.FlagSet, c *CapsConfig) {
	for _, f := range capFlags(c) {
		fs.IntVar(f.value, f.name, f.def, f.usage+" (over 2 MiB needs --blob-dir or --blob-store)")
	}
}

// resolveCaps reads the variable of each cap whose flag is not given.
func (c *Config) resolveCaps(fs *flag.FlagSet, env func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range capFlags(&c.Caps) {
		v := env(f.env)
		if v == "" || given[f.name] {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want a number of bytes", f.env, v)
		}
		*f.value = n
	}
	return nil
}

func (c Config) validateCaps() []error {
	var errs []error
	for _, f := range capFlags(&c.Caps) {
		switch n := *f.value; {
		case n < 1<<10 || n > MaxCap:
			errs = append(errs, fmt.Errorf("--%s must be from 1024 to %d bytes, not %d", f.name, MaxCap, n))
		case n > MaxCapWithoutBlobs && !c.Blob.Configured():
			errs = append(errs, fmt.Errorf("--%s %d is over 2 MiB, more than one payload in history may hold: configure a blob store (--blob-dir or --blob-store) for larger results", f.name, n))
		}
	}
	if c.Caps.ReadFileBytes > c.Caps.ToolResultBytes {
		errs = append(errs, fmt.Errorf("--read-file-max-bytes %d is over --tool-result-max-bytes %d, which would cut every long read", c.Caps.ReadFileBytes, c.Caps.ToolResultBytes))
	}
	return errs
}

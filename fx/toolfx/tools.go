// Package toolfx provides the worker's tool registry: the built-in tools
// (current_time, calculate, the loop's own spawn_agent, ask_human and wait,
// and, only when a workspace is configured,
// read_file/list_files confined to it and its deny list) plus any
// tools.Tool contributed to the "tether.tools" value group by the embedding
// application. The registry cuts results at --tool-result-max-bytes and
// read_file returns up to --read-file-max-bytes (configfx.CapsConfig).
package toolfx

import (
	"errors"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Group is the value group user tools join: fx.Provide(fx.Annotate(f, fx.ResultTags(`group:"tether.tools"`))),
// or Tools.
const Group = "tether.tools"

// Tools contributes ts to the worker's registry (they join Group), typed
// tools made with tools.New as any other: fx.New(..., toolfx.Tools(a, b)).
// NewRegistry checks them when the worker starts.
func Tools(ts ...tools.Tool) fx.Option {
	values := make([]any, len(ts))
	for i, t := range ts {
		values[i] = fx.Annotated{Group: Group, Target: t}
	}
	return fx.Supply(values...)
}

// Module provides *tools.Registry.
var Module = fx.Module("tools", fx.Provide(New))

// Params are New's dependencies.
type Params struct {
	fx.In
	Config configfx.ToolsConfig
	// Caps are the result and read caps (--tool-result-max-bytes,
	// --read-file-max-bytes); zero keeps the tools package's defaults.
	Caps  configfx.CapsConfig `optional:"true"`
	Extra []tools.Tool        `group:"tether.tools"`
}

// New validates every tool into one registry.
func New(p Params) (*tools.Registry, error) {
	all := append([]tools.Tool{tools.CurrentTime(time.Now), tools.Calculator()}, tools.LoopTools()...)
	if p.Config.Workspace != "" {
		ws, err := tools.Workspace(tools.WorkspaceOptions{
			Root: p.Config.Workspace, Deny: p.Config.Deny, AllowHardLinks: p.Config.AllowHardLinks,
			MaxReadBytes: p.Caps.ReadFileBytes,
		})
		if err != nil {
			return nil, badWorkspace(p.Config.Workspace, err)
		}
		all = append(all, ws...)
	}
	reg, err := tools.NewRegistry(append(all, p.Extra...)...)
	if err != nil || p.Caps.ToolResultBytes <= 0 {
		return reg, err
	}
	return reg.With(tools.WithMaxResultBytes(p.Caps.ToolResultBytes))
}

// badWorkspace explains a --workspace the file tools cannot be confined to.
func badWorkspace(dir string, err error) error {
	why := err
	if inner := errors.Unwrap(err); inner != nil {
		why = inner // drop the `workspace "dir":` prefix the sentence already has
	}
	return &startup.Error{Problem: "--workspace " + dir + " cannot be used (" + why.Error() + ")",
		Fix: "point it at a directory, or pass --workspace '' to run without read_file and list_files", Err: err}
}

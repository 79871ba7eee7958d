package cli

import (
	"context"
	"flag"
	"strconv"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/internal/text"
)

// command parses a command's arguments, before anything is dialed, into
// the action that runs it: a usage error or a request for help needs no
// server.
type command func(s Starter, args []string) (action, error)

// action is a parsed command, run over a connection.
type action func(ctx context.Context, e env) error

var commands = map[string]command{
	"start":    start,
	"followup": message((*agent.Handle).Followup, "followup"),
	"steer":    message((*agent.Handle).Steer, "steer"),
	"inject":   message((*agent.Handle).Inject, "inject"),
	"cancel":   cancel,
	"status":   reader("status", showStatus),
	"wait":     wait,
	"log":      reader("log", showLog),
	"dispose":  dispose,
	"compact":  compact,
	"console":  serveConsole,
	"a2a":      serveA2A,
	"ls":       list,
	"approve":  decision("approve", (*agent.Handle).Approve),
	"deny":     decision("deny", (*agent.Handle).Deny),
	"answer":   decision("answer", (*agent.Handle).Answer),
	"tree":     tree,
	"spawn":    spawn,
	"fork":     fork,
	"diff":     diff,
	"rewind":   rewind,
}

// idCommand is a command of one agent ID and no flags of its own.
func idCommand(name string, run func(ctx context.Context, e env, id string) error) command {
	return func(_ Starter, args []string) (action, error) {
		pos, err := parse(flag.NewFlagSet(name, flag.ContinueOnError), args, "ID")
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, e env) error { return run(ctx, e, pos[0]) }, nil
	}
}

// attachAny attaches for reading: a closed agent's status and log can still
// be read.
func attachAny(ctx context.Context, e env, id string) (*agent.Handle, error) {
	h, err := e.agents.Attach(ctx, id)
	if err != nil && h != nil {
		return h, nil // closed: queries still answer
	}
	return h, err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.Cut(s, n) + "…"
}

func itoa(i int) string { return strconv.Itoa(i) }

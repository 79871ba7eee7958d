package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console"
	"github.com/tetherdev/tether/eventlog"
)

// list prints the agents Temporal's visibility store finds, filtered by
// Tether's search attributes, as a table, newest first.
func list(_ Starter, args []string) (action, error) {
	o, counts, err := parseList(args)
	if err != nil {
		return nil, err
	}
	if counts {
		return countBuilds(o), nil
	}
	return func(ctx context.Context, e env) error {
		agents, more, err := e.agents.List(ctx, o)
		switch {
		case errors.Is(err, agent.ErrBadFilter):
			return fmt.Errorf("%w: ls: %v", ErrUsage, err)
		case err != nil:
			return err
		}
		// The store returns open agents before closed ones (--all).
		slices.SortStableFunc(agents, func(a, b agent.Summary) int { return b.Started.Compare(a.Started) })
		if err := printAgents(e.s.Out, agents, o.WithBuild); err != nil {
			return err
		}
		noteStarting(e, agents)
		if more {
			fmt.Fprintf(e.s.Err, "starter: more than %d agents: narrow the filters or raise --limit\n", len(agents))
		}
		return nil
	}, nil
}

// RootParent is ls --parent's value for agents without a parent, as the
// console's parent filter reads it.
const RootParent = "-"

// BuildAny is ls --build's value that shows every agent's build.
const BuildAny = "any"

// parseList reads ls's flags; --turn -1 (the default) matches any turn.
// counts is --builds: the agents counted by build instead of listed.
func parseList(args []string) (o agent.ListOptions, counts bool, err error) {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	status := fs.String("status", "", "")
	fs.StringVar(&o.Model, "model", "", "")
	fs.StringVar(&o.Parent, "parent", "", "")
	fs.StringVar(&o.Waiting, "waiting", "", "")
	turn := fs.Int("turn", -1, "")
	fs.IntVar(&o.Limit, "limit", agent.DefaultListLimit, "")
	fs.BoolVar(&o.Closed, "all", false, "")
	fs.StringVar(&o.Build, "build", "", "")
	fs.BoolVar(&counts, "builds", false, "")
	if err := parseFlags(fs, args); err != nil {
		return o, false, err
	}
	if o.Build != "" {
		o.WithBuild = true
	}
	if o.Build == BuildAny {
		o.Build = ""
	}
	o.Status = eventlog.Status(*status)
	switch {
	case fs.NArg() > 0:
		return o, false, fmt.Errorf("%w: ls takes flags only, not %q", ErrUsage, fs.Args())
	case o.Limit < 1:
		return o, false, fmt.Errorf("%w: ls: --limit must be at least 1", ErrUsage)
	case o.Status != "" && o.Status != eventlog.StatusIdle && o.Status != eventlog.StatusRunning:
		return o, false, fmt.Errorf("%w: ls: --status %q: want idle or running", ErrUsage, o.Status)
	case o.Waiting != "" && !slices.Contains(console.WaitingChoices, o.Waiting):
		return o, false, fmt.Errorf("%w: ls: --waiting %q: want %s", ErrUsage, o.Waiting, strings.Join(console.WaitingChoices, ", "))
	}
	if _, err := o.Query(); err != nil { // a build ID no build can have
		return o, false, fmt.Errorf("%w: ls: --build: %v", ErrUsage, errors.Unwrap(err))
	}
	if o.Parent == RootParent {
		o.Parent, o.Roots = "", true
	}
	if *turn >= 0 {
		o.Turn = turn
	}
	return o, counts, nil
}

// printAgents writes the table: ID, status, model, turn, parent, what it
// waits for, start time, and with builds the build that drives it.
func printAgents(w io.Writer, agents []agent.Summary, builds bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ID\tSTATUS\tMODEL\tTURN\tPARENT\tWAITING\tSTARTED"
	if builds {
		head += "\tBUILD"
	}
	fmt.Fprintln(tw, head)
	for _, a := range agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s", a.ID, dash(a.Status), dash(agent.ModelShown(a.Model)), strconv.Itoa(a.Turn), dash(a.Parent),
			dash(a.Waiting), a.Started.UTC().Format(time.RFC3339))
		if builds {
			fmt.Fprintf(tw, "\t%s", dash(buildShown(a.Deployment, a.Build, a.Versioning)))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// noteStarting says, on Err, which listed agents wait for a worker, by
// task queue: what status says of each of them.
func noteStarting(e env, agents []agent.Summary) {
	byQueue := map[string][]string{}
	for _, a := range agents {
		if a.Status == agent.StatusStarting {
			byQueue[a.TaskQueue] = append(byQueue[a.TaskQueue], a.ID)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(byQueue)) {
		fmt.Fprintf(e.s.Err, "starter: no worker polls task queue %q, so none has run these agents yet (starting): %s; "+
			"they run once one polls it (worker --task-queue %s)\n", q, strings.Join(byQueue[q], ", "), q)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent"
)

// countBuilds is ls --builds: one line counting the agents the filters
// match by the build that drives each, the most first, e.g.
// "3 agents on 1a2b3c4d5e6f (current), 2 on 9f8e7d6c5b4a": what a deploy
// has left on an old build.
func countBuilds(o agent.ListOptions) action {
	return func(ctx context.Context, e env) error {
		counts, err := e.agents.Builds(ctx, o)
		switch {
		case errors.Is(err, agent.ErrBadFilter):
			return fmt.Errorf("%w: ls: %v", ErrUsage, err)
		case err != nil:
			return err
		}
		fmt.Fprintln(e.s.Out, buildCounts(counts))
		return nil
	}
}

// buildCounts words the counts: "no agents" for none.
func buildCounts(counts []agent.BuildCount) string {
	if len(counts) == 0 {
		return "no agents"
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		on := "on " + buildShown(c.Deployment, c.Build, "")
		if c.Build == "" {
			on = "that no worker has run yet"
		}
		if c.Current {
			on += " (current)"
		}
		n := fmt.Sprint(c.Agents)
		if i == 0 {
			n += map[bool]string{true: " agent", false: " agents"}[c.Agents == 1]
		}
		parts[i] = n + " " + on
	}
	return strings.Join(parts, ", ")
}

// buildShown is a build as ls shows it: the build ID, under its
// deployment (deployment:build, as Temporal writes a version) and with how
// it is versioned when the run is versioned.
func buildShown(deployment, build, versioning string) string {
	s := build
	if deployment != "" && build != "" {
		s = deployment + ":" + build
	}
	if versioning != "" && s != "" {
		s += " (" + versioning + ")"
	}
	return s
}

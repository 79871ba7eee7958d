package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

// fork is `starter fork ID --at N [--id NEW] [--replace-last T] [--append T]`:
// a new agent seeded with ID's log up to position N (agent.Handle.Fork);
// it prints the new agent's ID.
func fork(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("fork", flag.ContinueOnError)
	at := fs.Int64("at", -1, "")
	id := fs.String("id", "", "")
	replace := fs.String("replace-last", "", "")
	appended := fs.String("append", "", "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return nil, err
	}
	if *at < 0 {
		return nil, fmt.Errorf("%w: fork needs --at N, a log position (starter log ID --json shows them)", ErrUsage)
	}
	opts := []agent.ForkOption{agent.WithForkID(*id), agent.ReplaceLast(*replace), agent.AppendMessage(*appended)}
	return func(ctx context.Context, e env) error {
		h, err := attachAny(ctx, e, pos[0])
		if err != nil {
			return err
		}
		f, err := h.Fork(ctx, *at, opts...)
		if err != nil {
			return err
		}
		e.printf("%s\n", f.ID)
		return nil
	}, nil
}

// diff is `starter diff A B`: the two agents' conversations side by side
// from the first message where they differ.
func diff(_ Starter, args []string) (action, error) {
	pos, err := parse(flag.NewFlagSet("diff", flag.ContinueOnError), args, "A", "B")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, e env) error {
		var sides [2]agent.Lineage
		for i, id := range pos {
			h, err := attachAny(ctx, e, id)
			if err != nil {
				return err
			}
			if sides[i], err = h.Lineage(ctx); err != nil {
				return err
			}
		}
		printDiff(e, pos[0], pos[1], sides[0], sides[1])
		return nil
	}, nil
}

// diffColumn is the width of one side of diff's output.
const diffColumn = 48

func printDiff(e env, a, b string, la, lb agent.Lineage) {
	for _, s := range []struct {
		id string
		l  agent.Lineage
	}{{a, la}, {b, lb}} {
		if f := s.l.Fork; f != nil {
			e.printf("%s is a fork of %s at position %d\n", s.id, f.Source, f.At)
		}
	}
	d := agent.Diverge(la.Conversation, lb.Conversation)
	if d.Same() {
		e.printf("the conversations are the same (%d messages)\n", d.Common)
		return
	}
	e.printf("the conversations are the same up to message %d of %d | %d; from there:\n",
		d.Common, d.Common+len(d.A), d.Common+len(d.B))
	e.printf("%-*s | %s\n", diffColumn, clip(a, diffColumn), b)
	for i := range max(len(d.A), len(d.B)) {
		e.printf("%3d %-*s | %s\n", d.Common+i, diffColumn-4, side(d.A, i), side(d.B, i))
	}
}

// side is message i of conv on one line, clipped ("" past its end).
func side(conv []eventlog.Message, i int) string {
	if i >= len(conv) {
		return ""
	}
	m := conv[i]
	text := m.Content
	for _, c := range m.ToolCalls {
		text += " [" + c.Name + "(" + string(c.Arguments) + ")]"
	}
	line := string(m.Role) + ": " + strings.Join(strings.Fields(text), " ")
	return clip(line, diffColumn-5)
}

package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// decision is approve, deny or answer: a person decides a call that waits.
// A denial needs its reason: the model reads it.
func decision(name string, op func(h *agent.Handle, ctx context.Context, callID, decider, text string) (signals.Decided, error)) command {
	return func(_ Starter, args []string) (action, error) {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		reason := fs.String("reason", "", "")
		decider := fs.String("by", defaultDecider(), "")
		edit := fs.String("args", "", "")
		want := []string{"ID", "CALL"}
		if name == "answer" {
			want = append(want, "ANSWER")
		}
		pos, err := parse(fs, args, want...)
		if err != nil {
			return nil, err
		}
		text := *reason
		switch {
		case name == "answer":
			text = pos[2]
		case name == "deny" && strings.TrimSpace(text) == "":
			return nil, fmt.Errorf("%w: deny needs --reason R: the model reads why its call was refused", ErrUsage)
		case *edit != "" && name != "approve":
			return nil, fmt.Errorf("%w: only approve takes --args", ErrUsage)
		case *edit != "" && !json.Valid([]byte(*edit)):
			return nil, fmt.Errorf("%w: --args is not JSON: %.80q", ErrUsage, *edit)
		}
		if *edit != "" {
			op = func(h *agent.Handle, ctx context.Context, callID, decider, text string) (signals.Decided, error) {
				return h.ApproveWith(ctx, callID, decider, text, agent.WithArgs(json.RawMessage(*edit)))
			}
		}
		return func(ctx context.Context, e env) error {
			h, err := e.agents.Attach(ctx, pos[0])
			if err != nil {
				return err
			}
			d, err := op(h, ctx, pos[1], *decider, text)
			if err != nil {
				return err
			}
			if d.Seq < 0 {
				e.printf("%s %s (its log position was lost with an attempt's answer)\n", pos[1], decided[name])
				return nil
			}
			e.printf("%s %s (log position %d)\n", pos[1], decided[name], d.Seq)
			return nil
		}, nil
	}
}

// decided is what each decision command did, as its line says.
var decided = map[string]string{"approve": "approved", "deny": "denied", "answer": "answered"}

// defaultDecider names the person at the terminal.
func defaultDecider() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "starter"
}

// tree prints an agent and every agent under it.
var tree = idCommand("tree", func(ctx context.Context, e env, id string) error {
	root, err := e.agents.Tree(ctx, id)
	if root == nil {
		return err
	}
	printNode(e, root, "")
	return err
})

func printNode(e env, n *agent.Node, indent string) {
	line := indent + n.ID + "  " + n.Status
	if n.Turn > 0 {
		line += "  turn " + itoa(n.Turn)
	}
	if n.Model != "" {
		line += "  " + agent.ModelShown(n.Model)
	}
	if u := n.Usage; u.InputTokens+u.OutputTokens > 0 {
		line += "  " + itoa(int(u.InputTokens)) + " in / " + itoa(int(u.OutputTokens)) + " out tokens"
	}
	if n.Waiting != "" {
		line += "  waiting: " + n.Waiting
		if !n.WaitUntil.IsZero() {
			line += " until " + n.WaitUntil.UTC().Format(time.RFC3339)
		}
	}
	e.printf("%s\n", line)
	for _, c := range n.Children {
		printNode(e, c, indent+"  ")
	}
}

// spawn asks an agent to start a detached child.
func spawn(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("spawn", flag.ContinueOnError)
	var a signals.SpawnArgs
	fs.StringVar(&a.SystemPrompt, "system", "", "")
	fs.StringVar(&a.Profile, "profile", "", "")
	fs.StringVar(&a.Model, "model", "", "")
	fs.Float64Var(&a.Budget, "budget", 0, "")
	toolList := fs.String("tools", "", "")
	pos, err := parse(fs, args, "ID", "TASK")
	if err != nil {
		return nil, err
	}
	a.Task = pos[1]
	a.Tools = signals.ToolList(*toolList)
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		id, err := h.Spawn(ctx, a)
		if err != nil {
			return err
		}
		e.printf("%s\n", id)
		return nil
	}, nil
}

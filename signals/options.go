package signals

import (
	"fmt"
	"slices"
	"strings"
)

// Bounds of AgentOptions: far above what a sensible agent uses, far below
// what would strain one history.
const (
	MaxTools            = 128
	MaxParallelTools    = 128 // a step runs at most this many calls anyway
	MaxStepsLimit       = 10_000
	MaxNameBytes        = 128
	MaxSystemPromptSize = MaxMessageBytes
)

// ValidateOptions checks options before an agent starts with them. known,
// when not nil, lists the tools a worker offers; providers the providers.
func ValidateOptions(o AgentOptions, known, providers []string) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidOptions}, a...)...)
	}
	switch {
	case len(o.Tools) > MaxTools:
		return fail("%d tools, at most %d", len(o.Tools), MaxTools)
	case o.MaxParallelTools < 0 || o.MaxParallelTools > MaxParallelTools:
		return fail("max_parallel_tools %d is not in [0, %d]", o.MaxParallelTools, MaxParallelTools)
	case o.MaxSteps < 0 || o.MaxSteps > MaxStepsLimit:
		return fail("max_steps %d is not in [0, %d]", o.MaxSteps, MaxStepsLimit)
	case o.MaxTokens < 0:
		return fail("max_tokens %d is negative", o.MaxTokens)
	case len(o.SystemPrompt) > MaxSystemPromptSize || promptSize(o.Prompt) > MaxSystemPromptSize:
		return fail("the system prompt is over %d bytes", MaxSystemPromptSize)
	case o.Prompt != nil && len(o.Prompt.Variables) > MaxTools:
		return fail("%d prompt variables, at most %d", len(o.Prompt.Variables), MaxTools)
	case len(o.Parent) > MaxIDBytes:
		return fail("parent ID of %d bytes", len(o.Parent))
	}
	if err := ValidateSelection(Selection{Provider: o.Provider, Model: o.Model, Effort: o.Effort}, providers); err != nil {
		return err
	}
	for i, t := range o.Tools {
		switch {
		case t == "" || len(t) > 64:
			return fail("tool name %q", t)
		case slices.Contains(o.Tools[:i], t):
			return fail("tool %q listed twice", t)
		case strings.HasPrefix(t, MCPPrefix):
			if err := validMCPGrant(t, known); err != nil {
				return fail("%w", err)
			}
		case strings.HasPrefix(t, A2APrefix):
			if err := validA2AEntry(t, known); err != nil {
				return fail("%w", err)
			}
		case known != nil && !slices.Contains(known, t):
			return fail("tool %q is not offered by this worker", t)
		}
	}
	for _, h := range o.Hooks {
		if h == "" || len(h) > MaxNameBytes {
			return fail("hook name %q", h)
		}
	}
	if b := o.Budget; b != nil && (b.MaxTokens < 0 || b.MaxCost < 0 || b.MaxTurns < 0 || b.MaxSteps < 0) {
		return fail("a budget is negative")
	}
	if a := o.Approval; a != nil && (a.Timeout < 0 || a.AnswerTimeout < 0 || a.OnTimeout != "" && a.OnTimeout != "deny" && a.OnTimeout != "approve") {
		return fail("approval policy: timeouts must not be negative, on_timeout is deny or approve")
	}
	if w := o.Wait; w != nil && w.Max < 0 {
		return fail("wait policy: max is negative")
	}
	return nil
}

func promptSize(p *Prompt) int {
	if p == nil {
		return 0
	}
	n := 0
	for _, s := range p.Sections {
		n += len(s.Text)
	}
	return n
}

// ValidateSelection checks a model selection; providers, when not nil,
// lists the providers a worker offers ("" means its default).
func ValidateSelection(s Selection, providers []string) error {
	switch {
	case len(s.Provider) > MaxNameBytes || len(s.Model) > MaxNameBytes || len(s.Effort) > MaxNameBytes:
		return fmt.Errorf("%w: provider, model or effort over %d bytes", ErrInvalidOptions, MaxNameBytes)
	case s.Provider != "" && providers != nil && !slices.Contains(providers, s.Provider):
		return fmt.Errorf("%w: provider %q is not offered by this worker (%v)", ErrInvalidOptions, s.Provider, providers)
	}
	return nil
}

// ToolList reads a comma-separated list of tool names as people type it
// (flags, forms): each name trimmed of spaces, empty entries dropped, so
// "echo, calculate," is [echo calculate]. What remains is validated with
// the options like any tool list.
func ToolList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

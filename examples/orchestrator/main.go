// Command orchestrator is a Tether worker with two child profiles: an
// agent with the spawn_agent tool hands work to a "researcher" child, which
// may look facts up (lookup_fact), and to a "reviewer" child, which has no
// tools at all (Tools: []string{}), whatever its parent may call. A
// profile gives a child its system prompt and cuts its tools to the
// profile's (never more than the parent's; a profile that leaves Tools
// out gives the child its parent's); spawn_agent waits for the
// child's answer by default, and the parent's model reads it as the call's
// result.
//
//	go run ./examples/orchestrator --dev
//	go run ./cmd/starter start --tools spawn_agent,lookup_fact --wait \
//	    '/tool spawn_agent {"profile":"researcher","task":"/tool lookup_fact {\"topic\":\"mars\"}"}'
//	go run ./cmd/starter tree ID
//
// Every worker of a task queue must offer the same profiles: a run records
// those it started with.
package main

import (
	"os"

	"github.com/tetherdev/tether"
	"github.com/tetherdev/tether/signals"
)

func main() {
	os.Exit(tether.Main("orchestrator", tether.FromFlags(os.Args[1:]), tether.WithTools(LookupFact()),
		tether.WithProfile("researcher", signals.Profile{Options: signals.AgentOptions{
			SystemPrompt: "You research one question with lookup_fact and answer with what you found.",
			Tools:        []string{"lookup_fact"}}}),
		tether.WithProfile("reviewer", signals.Profile{Options: signals.AgentOptions{
			SystemPrompt: "You review a draft and answer with what is wrong with it, or that nothing is.",
			Tools:        []string{}}}), // none: empty, not left out
	))
}

// Command policy is a Tether worker whose hook enforces a policy: the
// email-policy hook lets send_email write only to the domains the agent's
// hook configuration allows (example.com when it names none), and the
// model reads a refusal as the call's error result. The worker enables it
// for every agent that names no hooks (tether.WithDefaultHooks), after
// the built-in compaction and retry hooks and before the turn budget.
//
//	EMAIL_OUTBOX=/tmp/outbox go run ./examples/policy --dev
//	go run ./cmd/starter start --tools send_email --wait \
//	    '/tool send_email {"to":"bob@example.com","subject":"hi"}
//	/tool send_email {"to":"eve@elsewhere.test","subject":"hi"}'
//
// sends the first and refuses the second. A hook runs inside the agent's
// workflow, so it decides from the call and the agent's options alone: no
// I/O, no clock. send_email writes one file per call into EMAIL_OUTBOX
// (default ./outbox), named after the call's idempotency key, so a call
// that runs again writes the same file rather than a second email.
package main

import (
	"os"

	"github.com/tetherdev/tether"
	"github.com/tetherdev/tether/hook"
)

func main() {
	outbox := Outbox{Dir: envOr("EMAIL_OUTBOX", "outbox")}
	os.Exit(tether.Main("policy", tether.FromFlags(os.Args[1:]),
		tether.WithTools(outbox.SendEmail()), tether.WithHooks(EmailPolicy()),
		tether.WithDefaultHooks(hook.CompactionName, hook.RetryName, EmailPolicyName, hook.TurnBudgetName)))
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

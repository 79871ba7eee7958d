package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/hook"
)

// EmailPolicyName is the hook's durable name: agents enable it by it.
const EmailPolicyName = "email-policy"

// PolicyConfig is the hook's configuration in an agent's options
// (signals.AgentOptions.HookConfig["email-policy"]).
type PolicyConfig struct {
	Domains []string `json:"domains"`
}

// EmailPolicy refuses send_email calls to a domain the agent may not
// write to.
func EmailPolicy() hook.Hook {
	return hook.Hook{Name: EmailPolicyName, ToolPre: func(_ workflow.Context, a hook.Agent, call hook.Call) error {
		if call.Name != "send_email" {
			return nil
		}
		allowed := []string{"example.com"}
		if raw := a.Config(EmailPolicyName); raw != nil {
			var c PolicyConfig
			if err := json.Unmarshal(raw, &c); err != nil {
				return hook.Deny("the email policy's configuration is not {\"domains\": [...]}")
			}
			allowed = c.Domains
		}
		var args email
		_ = json.Unmarshal(call.Arguments, &args) // the registry validates them before the tool runs
		_, domain, _ := strings.Cut(args.To, "@")
		if !slices.Contains(allowed, strings.ToLower(domain)) {
			return hook.Deny(fmt.Sprintf("email to %q is not allowed: this agent may write to %s only", domain, strings.Join(allowed, ", ")))
		}
		return nil
	}}
}

// email is send_email's arguments.
type email struct {
	To      string `json:"to" jsonschema:"the recipient's address" tool:"pattern=^[^@\\s]+@[^@\\s]+$"`
	Subject string `json:"subject" tool:"maxLength=200"`
}

// Outbox is a directory of emails, one file per call.
type Outbox struct{ Dir string }

// SendEmail is the send_email tool. It is idempotent: a call writes the
// file named after its idempotency key, the same file every time it runs.
func (o Outbox) SendEmail() tools.Tool {
	return tools.New("send_email", "Send an email with a subject to an address.",
		func(ctx context.Context, e email) (string, error) {
			call, ok := tools.CallOf(ctx)
			if !ok || call.IdempotencyKey == "" {
				return "", errors.New("send_email runs only as a tool call, which has an idempotency key")
			}
			if err := os.MkdirAll(o.Dir, 0o700); err != nil {
				return "", err
			}
			name := filepath.Join(o.Dir, strings.NewReplacer("/", "_", ":", "_").Replace(call.IdempotencyKey)+".eml")
			if err := os.WriteFile(name, []byte("To: "+e.To+"\nSubject: "+e.Subject+"\n"), 0o600); err != nil {
				return "", err
			}
			return "sent to " + e.To, nil
		}, tools.AsIdempotent())
}

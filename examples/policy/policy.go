package main

import (
	"context"
	"encoding/json"
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

type email struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// Outbox is a directory of emails, one file per call.
type Outbox struct{ Dir string }

// SendEmail is the send_email tool.
func (o Outbox) SendEmail() tools.Tool {
	return tools.Tool{
		Name:        "send_email",
		Description: "Send an email with a subject to an address.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"to":{"type":"string","pattern":"^[^@\\s]+@[^@\\s]+$"},
			"subject":{"type":"string","maxLength":200}},
			"required":["to","subject"],"additionalProperties":false}`),
		Idempotent: true, // one file per idempotency key
		Run: func(_ context.Context, call tools.Call) (tools.Result, error) {
			var e email
			if err := json.Unmarshal(call.Arguments, &e); err != nil {
				return tools.Result{}, tools.ErrorResult(err)
			}
			if err := os.MkdirAll(o.Dir, 0o700); err != nil {
				return tools.Result{}, err
			}
			name := filepath.Join(o.Dir, strings.NewReplacer("/", "_", ":", "_").Replace(call.IdempotencyKey)+".eml")
			body := "To: " + e.To + "\nSubject: " + e.Subject + "\n"
			if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Content: "sent to " + e.To}, nil
		},
	}
}

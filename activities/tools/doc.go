// Package tools is the worker-side registry of the tools an LLM agent may
// call, plus a few safe built-in tools: the current time, read-only access to
// a workspace directory, and arithmetic.
//
// The tool activity resolves each model tool call with Registry.Execute. The
// registry validates the arguments against the tool's JSON schema (with
// github.com/google/jsonschema-go) before the tool runs, and turns every
// outcome the model should see (unknown tool, bad arguments naming the
// field, a ModelVisibleError, a panic) into a Result with IsError set.
// Only failures worth retrying come back as Go errors.
//
// # Typed tools
//
// New makes a tool of a plain Go function; the schema the model sees is
// inferred from its argument type, and the function runs only on arguments
// that schema accepts:
//
//	type forecastArgs struct {
//		City  string `json:"city" jsonschema:"the city, e.g. Berlin"`
//		Units string `json:"units,omitempty" tool:"enum=celsius|fahrenheit"`
//		Days  int    `json:"days,omitempty" tool:"minimum=1,maximum=7"`
//	}
//
//	forecast := tools.New("forecast", "Tell the weather in a city.",
//		func(ctx context.Context, a forecastArgs) (Forecast, error) { ... })
//
// A field is required unless its json tag says omitempty or omitzero; its
// jsonschema tag is its description; its tool tag (ToolTag) adds enums and
// bounds. The result is marshalled to JSON, a string sent as it is. The
// function reads its call from ctx: CallOf(ctx) has the idempotency key,
// the agent and call IDs, and Call.TurnStep the turn and step;
// ReportProgress(ctx, ...) reports its progress (below); ctx is done when
// the call is canceled or runs past its time limit, and the function
// should then return.
//
// A long tool, typed or not, may say how far it is with ReportProgress; the
// tool activity listens (WithProgress), sends it in the call's heartbeats,
// and the agent's status shows the latest report.
//
// # Side effects
//
// Tools run at least once per call: a call whose worker dies mid-run, or a
// local tool whose workflow task is lost, runs again, always with the same
// Call.IdempotencyKey, on which a tool with side effects dedupes them. It
// hands the key to whatever makes the effect, so that the second run finds
// the first one's effect instead of making another: a payment API's
// idempotency key, a unique column written in the same transaction as the
// effect, an outbox keyed by it.
//
//	refund := tools.New("refund", "Refund an order.",
//		func(ctx context.Context, a refundArgs) (string, error) {
//			call, _ := tools.CallOf(ctx)
//			// The provider makes one refund per key and answers a repeat
//			// with the first refund.
//			r, err := payments.Refund(ctx, a.Order, a.Cents, call.IdempotencyKey)
//			if err != nil {
//				return "", err // retried: the key makes the retry safe
//			}
//			return "refunded as " + r.ID, nil
//		}, tools.AsIdempotent())
//
// A tool that dedupes so declares itself Idempotent. A Local tool must;
// NewRegistry refuses it otherwise.
//
// It must never crash the worker (panics inside tools are recovered), hand
// the model an unbounded result (content is cut to the registry's byte
// limit), let a built-in tool read outside its workspace root, or list or
// read a name its deny list withholds (dotfiles and keys by default). The
// file tools have no default root: whoever registers them names one. It
// does no scheduling: Mode is advice that the caller's step planner
// enforces.
//
// Invariants: a Registry is immutable after construction and safe for
// concurrent use; tool names are unique and match ^[a-zA-Z0-9_-]{1,64}$;
// every tool's Parameters is an object schema that jsonschema-go resolved,
// naming only JSON Schema's types and no empty enum; a tool runs only on
// arguments that schema accepts; every Result that Execute returns is
// within the byte limit plus the truncation notice.
package tools

// Package tools is the worker-side registry of the tools an LLM agent may
// call, plus a few safe built-in tools: the current time, read-only access to
// a workspace directory, and arithmetic.
//
// The tool activity resolves each model tool call with Registry.Execute. The
// registry validates the arguments against the tool's JSON schema before the
// tool runs, and turns every outcome the model should see (unknown tool, bad
// arguments, a ModelVisibleError, a panic) into a Result with IsError set.
// Only failures worth retrying come back as Go errors.
//
// A long tool may say how far it is with ReportProgress; the tool activity
// listens (WithProgress) and the agent's status shows the latest report.
//
// Tools run at least once per call: a call whose worker dies mid-run, or a
// local tool whose workflow task is lost, runs again, always with the same
// Call.IdempotencyKey, on which a tool with side effects dedupes them. A
// Local tool must declare itself Idempotent; NewRegistry refuses it
// otherwise.
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
// every tool's Parameters is an object schema the built-in validator
// compiled; every Result that Execute returns is within the byte limit plus
// the truncation notice.
package tools

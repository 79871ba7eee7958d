// Package llm holds the data a model provider adapter exchanges with the model
// activity: the request, tool specs and the normalised failure error, and
// the one classification of failures (HTTP status, transport, cut stream)
// every adapter uses, so the same trouble is the same FailureKind and gets
// the same retries whichever provider met it. Adapters keep only what is
// truly theirs: the shape of their error bodies and in-stream error events.
//
// It also normalises what a model sends back before anything records it:
// every tool call gets a unique, usable ID (NormalizeToolCalls) and a reply
// stays within MaxReplyBytes of JSON (Bound).
//
// It never does I/O and never holds a credential. Adapters live in sibling
// packages (scripted, openai); the model activity declares the Provider
// interface it needs.
package llm

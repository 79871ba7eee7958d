// Package scripted is a deterministic model provider: the demo default when
// no API key is configured, and the model of Tether's own tests. It is not an
// LLM and says so; its replies follow rules on the conversation.
//
// Directives in the latest user message drive it exactly (one per line):
//
//	/tool NAME {json args}      call NAME in the first step (several lines: parallel calls)
//	/repeat N NAME {json args}  call NAME once per step for N steps, then answer
//	/say TEXT                   answer TEXT without calling tools
//	/fail KIND                  fail the call with that eventlog.FailureKind
//
// Without directives it picks tools from keywords (time, files, arithmetic)
// among the tools the request offers, then answers from their results. A
// date in the prompt (2026-12-01) is a date, never arithmetic: it asks for
// the clock, and the answer says each ISO date's weekday and the days
// between them. A file name (README.md, go.mod, Makefile) asks for read_file.
package scripted

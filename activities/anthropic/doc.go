// Package anthropic is the model provider adapter for the Anthropic Messages
// API. It turns an llm.Request into one POST {BaseURL}/v1/messages, either
// plain (Complete) or as a server-sent event stream (Stream), and the reply
// into an eventlog.AssistantMessage. Both calls assemble the same message
// from the same reply.
//
// It must never retry (the SDK's retries are off; Temporal owns retry policy),
// never read the environment (it builds the SDK's message service directly,
// not anthropic.NewClient, which reads ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// ANTHROPIC_CUSTOM_HEADERS, profiles and federation settings; and it turns
// the SDK's OpenTelemetry spans off, whose options otherwise fall back to
// ANTHROPIC_OPEN_TELEMETRY* variables and can copy prompts into spans) and
// never put the API key into an error, a failure message or a log.
//
// Invariants:
//   - Every error Complete and Stream return is an *llm.Error whose
//     Failure.Kind is a normalised eventlog.FailureKind (HTTP statuses via
//     llm.HTTPFailure and transport errors via llm.TransportFailure, as for
//     every provider; an error event inside a stream by its error type).
//   - The request alternates user and assistant turns as the API requires:
//     tool results travel as tool_result blocks in a user turn, consecutive
//     results and any user text that follows them share that turn, and the
//     results come first in it.
//   - Tool call inputs sent are always JSON objects, since the API accepts
//     nothing else: missing arguments become {}, and arguments another
//     provider's model wrote as non-objects are sent as {"arguments": value}.
//   - Thinking is never part of the assistant message: the log has no place
//     for its signed blocks. Because the API rejects a thinking request whose
//     open tool loop lacks them, a request continuing a tool loop (its last
//     turn carries tool results) is sent without thinking.
//   - Stream calls emit on the calling goroutine in wire order. A stream
//     that ends before message_stop is a network failure, never a message.
//   - Every request asks for prompt caching with at most the API's 4
//     cache_control breakpoints (cache.go): the last tool, the last system
//     block, the end of what the previous call sent (the turn before the
//     last assistant turn) and the request's own end, so each call reads
//     the prefix the one before wrote and writes its end for the next. The
//     prefix is byte-stable: tools in the order the call names them, the
//     system prompt as the log holds it, runtime context where it was
//     recorded in the conversation, the same after Continue-As-New.
//     Invalidations are known and accepted: compaction and pruning rewrite
//     the conversation, so the next call reads only tools and system and
//     writes the rest again; a system prompt that changes between steps (a
//     Prompt whose variables do) keeps only the tools; a model switch starts
//     the new model's own cache; a turn with Effort set thinks on its first
//     call but not in its tool loop, and a change of thinking settings drops
//     the message part of the cache (tools and system stay). A prefix
//     shorter than the model's minimum (1,024 tokens for most) is not
//     cached, and its markers cost nothing.
//   - Complete is bounded by the SDK's 10-minute default unless
//     Config.Timeout is set, and the SDK refuses (as invalid_request, before
//     sending) a non-streaming max_tokens it expects to take longer.
package anthropic

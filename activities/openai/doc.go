// Package openai is the model provider adapter for OpenAI-compatible chat
// completions servers: OpenAI itself, Ollama and vLLM. It turns an
// llm.Request into one POST {BaseURL}/chat/completions and the reply into an
// eventlog.AssistantMessage: Complete waits for the whole reply, Stream reads
// it as server-sent events, reporting deltas as llm.Chunks on the way.
//
// It must never retry (the SDK's retries are off; Temporal owns retry policy),
// never read the environment (it builds the SDK's chat service directly, not
// openai.NewClient, which would pick up OPENAI_* variables such as
// OPENAI_ORG_ID or OPENAI_CUSTOM_HEADERS) and never put the API key into an
// error, a failure message or a log.
//
// Invariants:
//   - Every error Complete or Stream returns is an *llm.Error whose
//     Failure.Kind is a normalised eventlog.FailureKind (HTTP statuses via
//     llm.HTTPFailure, transport errors via llm.TransportFailure, as for
//     every provider; only the error body's shape is read here). A stream that stops before [DONE] or a finish reason
//     is a network failure, never a short answer.
//   - Stream settles on exactly the message Complete would return for the
//     same content: both go through toAssistant.
//   - Tool call arguments in the result are always valid JSON: arguments the
//     model produced that are not JSON are kept as a JSON string value, and
//     such a string is sent back unquoted, exactly as the model wrote it.
//   - The output cap goes out as max_completion_tokens, the field OpenAI's
//     reasoning models require and vLLM accepts. Ollama's compatibility layer
//     only reads the deprecated max_tokens and ignores this cap.
//   - Every call of an agent sends one prompt_cache_key, a hash of its
//     agent ID (llm.Request.CacheKey; cache.go), the same in every run of
//     its chain, so OpenAI keeps its calls on the cache its earlier calls
//     filled; Config.CacheRetention is sent as prompt_cache_retention.
//     OpenAI caches prefixes of 1,024 tokens and more by itself; the
//     prefix stays byte-stable from call to call (tools in the order the
//     call names them, the system prompt as the log holds it, runtime
//     context where it was recorded), also after Continue-As-New.
//     Compaction, pruning and a system prompt that changes between steps
//     rewrite the prefix from there on; a model switch uses the new model's
//     cache. vLLM and Ollama ignore both fields.
//   - A tool result flagged IsError says so in its words: the chat
//     completions wire format has no error flag, so its content starts with
//     ErrorPrefix ("Error: ") unless it starts with "error" in any case
//     already; an empty one is "Error".
package openai

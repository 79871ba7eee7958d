// Package mcp gives agents the tools of MCP servers, through the official
// Go SDK (github.com/modelcontextprotocol/go-sdk): servers a worker starts
// as commands speaking stdio, and streamable-HTTP servers, named in the
// worker's config file (Load).
//
// A Manager holds one session per server for the whole worker, opened by
// its first use, opened again after it breaks, and closed, stdio processes
// stopped, when the worker stops. Lister is the ListTools activity: it
// lists servers concurrently, each within a timeout, applies the listing
// bounds of package signals, and digests the result so an unchanged
// server records no tools again. Caller runs the tool activity's calls; a
// call whose context asks for progress (tools.WithProgress) sends a progress
// token and hears the server's progress notifications while it runs.
//
// It must never fail a listing for one server (that server's entry says
// why, and the worker logs it; only many servers together can be over
// the listing's bound), never show the model a fault of a
// server's process or connection (the attempt fails and is retried; only
// what the server answered reaches the model, an HTTP server's 401 or 403
// included, since no retry mends refused credentials, and the tool
// activity's error result once a call has faulted
// activities.MaxMCPFaults times), never give a stdio
// server the worker's environment beyond InheritedEnv and what the config
// file names, and never take a header's value from the config file.
//
// Invariants: on Linux a stdio server leads a process group of its own,
// killed once its session ends, and gets SIGKILL when the worker dies,
// however it dies: every server is started from one OS thread that lives
// as long as the worker, since the parent-death signal follows the thread
// that forked. Every tools/call carries the call's idempotency key in its
// _meta (IdempotencyKeyMeta); a server's listing holds at most
// signals.MaxMCPToolsPerServer tools, none with a schema over
// signals.MaxMCPInputSchema or a description over signals.MaxMCPDescription,
// whose JSON takes at most MaxServerListingBytes; a listing's JSON takes
// at most MaxListingBytes, or the activity fails at once with
// ErrListingTooLarge, not retryable; equal bounded listings have equal
// digests.
package mcp

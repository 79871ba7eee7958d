// Package chaos is Tether's crash-and-abuse suite (issue 10): TestChaos
// runs a fleet of agents through multi-turn tool conversations on the
// embedded Temporal server in file mode while the harness kills the worker
// process with SIGKILL at seeded random moments, kills and restarts the
// server on its database, and a second client floods the agents with bad
// and oversized input. When the fleet is quiescent it checks, and fails on
// any violation:
//
//   - every message whose send was accepted (an acknowledged update, a
//     duplicate of one, or a signal the server took) was inserted once,
//     claimed once and its turn ended completed;
//   - no tool ran again after its result was recorded (journal timestamps
//     against the activity's completion in history and the result's time
//     in the log), a denied call never ran, and every call that ran has
//     a result from an execution with its idempotency key;
//   - every log is gap-free, folds (eventlog.State), equals its projection
//     from the chain's histories, and every run replays with the current
//     workflow code;
//   - no agent workflow was terminated, failed, canceled or timed out (the
//     flood's own starts with absurd input fail, with the reason);
//   - no fault reached the model: no failed model call, no tool result
//     saying timeout, heartbeat or worker (but the crashing MCP tool's
//     below, whose error is meant for the model), a journaled tool's
//     result is its own answer;
//   - the conversation stays valid for a provider: every tool call of an
//     assistant message has exactly one result before the next one;
//   - every stream a client read to its end says what the log says.
//
// A third client plays the client faults of issue 19 on agents of their
// own, round after round while the schedule runs (-chaos.client-faults
// rounds at least), each checked by every check above and by its own:
//
//   - a burst: eight senders at once, three acknowledged messages of
//     200 KiB each, to one agent: each send ends delivered, or refused
//     busy or with its outcome unknown and is then sent again under its
//     ID until delivered, never refused otherwise (the agent closed); the
//     agent is never terminated nor failed;
//   - a long queue: a message X, then more than loop.MaxRecentIDs
//     others (injects sent as signals, so all wait in the inbox), then X
//     again as a signal and as an acknowledged update, which must be
//     answered duplicate, never delivered again;
//   - a child disposed mid-turn: a parent with a token budget spawns a
//     detached child, which is given a long turn and disposed in the
//     middle of it (that turn and its model or tool call in flight may
//     end canceled, and a call whose activity task was already on its way
//     to the worker may start once after its cancel is recorded): the
//     parent's usage is its own calls plus all each child spent (the
//     closed child's result), each child's end is in its log, and the
//     tree spent no more than the root's budget;
//   - an MCP server that crashes on every call (the test server of
//     activities/mcp, which the worker runs over stdio): the call ends as
//     an error result the model reads, from the attempt that made
//     activities.MaxMCPFaults faults (no retries after it), the turn
//     closes, and the server's next call is answered.
//
// The server and the worker are the test binary re-executed (TestMain
// dispatches on TETHER_CHAOS_ROLE): the server is internal/devserver over
// SQLite on a fixed port, the worker is the real worker process
// (tetherfx.Run with the worker's flags) plus two journaled tools that
// append each execution's start and end, with its idempotency key, process
// and time, to a file.
//
// Attacks that trigger a known bug are left out of the flood until it is
// fixed (-chaos.known-bugs puts them back); each bug has a focused test in
// bugs_test.go, skipped the same way.
//
// The seed fixes the schedule (when to kill, how long to stay down, the
// fleet's mix, what the flood sends); timing on a busy machine does not
// repeat, so a seed reproduces the run's shape, not its interleaving.
//
// It must never assert on timing: figures are reported, never checked, and
// every wait is bounded by progress or a generous deadline.
package chaos

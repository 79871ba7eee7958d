// Package console is Tether's web console: agents in agent language, in the
// browser. It lists agents with server-side filters over Tether's search
// attributes, shows an agent's conversation from its session log (turns,
// steps, tool calls and results, retries, compaction, errors, usage, cost
// and latency) with the tokens of the model call in flight, the progress
// its running tool calls report (from their heartbeats), the calls that
// wait for a person, its durable waits and its tree of agents, and acts on
// it (messages, cancel, model, dispose, approve, deny, answer) through the
// same validated operations the Go client uses. A replay scrubber shows an
// agent as of any earlier position of its log, read-only; from there an
// operator may fork it (agent.Handle.Fork, the source left untouched, a
// refused position answered with the nearest that can be forked). A fork's
// page names its source (its log's session/forked) and the source's lists
// its forks (TetherForkOf); /diff?a=A&b=B shows two agents' conversations
// side by side from where they part (agent.Diverge, as `starter diff`).
// An operator rewinds an open agent to the end of a turn (each ended turn's
// "Rewind to here", or the panel's form; agent.Handle.Rewind, recorded by
// "console"): the page shows the rewind where it happened, and the turns it
// went back past stay readable, set apart as no longer in the conversation
// (a block's HTML still depends only on the log: the page's script gives an
// operator's live page the turn's form, with its session's token).
// A fork's log begins after its fork point: its page scrubs its own
// positions, folded from its first run's seed.
//
// It talks to Temporal only through the Go client: package agent for an
// agent's actions, status, log and token streams, for lists and counts
// (List, ListPage, Count, which quote every filter value) and for an
// agent's tree (TreeWith, seeded with the children its log names and
// bounded); projection to read a log from history when no worker answers;
// and the SDK client itself where package agent has no call for what it
// reads: DescribeWorkflowExecution for whether a feed's agent still runs
// and a run's first history event for its options. Logins are package
// login's (shared with the dev server's Web UI gate). Live pages are fed
// by Server-Sent Events derived from the session log (an event's ID is its
// log seq, so a page that reconnects resumes where it stopped) and from
// the worker's token streams; there is no second event stream.
//
// It must never:
//   - act without an operator: with no token configured it is read-only,
//     and an action needs the token (a login cookie, HttpOnly and
//     SameSite=Strict, or a bearer header); cookie-borne actions also pass
//     a cross-origin check and a CSRF token;
//   - serve beyond loopback without a token, nor show anything there to a
//     reader who has not logged in;
//   - render model output as HTML: Markdown is rendered with raw HTML
//     escaped, and pages forbid inline scripts and foreign resources
//     (Content-Security-Policy);
//   - write to an agent's history by reading it: lists, pages and live
//     feeds use visibility, queries, history reads and the worker's
//     streams only.
//
// Invariants: one feed follows an agent for all of its viewers while any
// watch it, and reads the agent's tree itself (bounded in depth and size,
// again every few seconds while an agent in it may change) rather than
// following its descendants, and its status every few seconds while a
// turn runs, since a tool call's progress moves without the log; a page and its live updates are rendered from the same fold
// (package transcript), so a block's HTML depends only on the log; a page
// as of position N renders from the fold of the log's first N+1 events
// (the transcript's, and eventlog.State's through signals.StatusOf, which
// the loop answers its status query from), so it shows the transcript and
// status the live page showed when the log had N+1 events, less what the
// log does not hold (whether work was due, the run count, the tree as it
// was); the
// status panel is the same for every viewer, so it holds no session's
// token (the page's script supplies its own to the decision forms).
package console

// Package agent is the Go client of Tether agents: the Agent handle of seed
// 003 over a Temporal client. cmd/starter is built on it and users import it.
//
// A Handle sends followup, steer, inject, send, cancel and dispose, reads
// status and the session log, and waits until the agent is idle. Messages
// are validated here first, so bad input fails with a typed error before
// anything is sent; what the workflow rejects comes back typed as well
// (errors.Is against this package's and signals' sentinel errors).
// Messages are acknowledged updates unless sent Unacknowledged (a signal).
// An acknowledged message is sent again under its message ID through transient
// server failures, within the caller's deadline, and never delivered twice;
// when the deadline ends first the error says delivery is unknown
// (DeliveryUnknownError); decisions, spawns and maintenance runs are
// retried the same way under one request ID. A message the caller sends
// again under an ID the agent accepted is answered AlreadyDeliveredError
// with the first Ack, and the same ID with other content is refused
// (signals.ErrReusedID). A call that needs a worker (a query, an update,
// the end of a dispose) fails within seconds with a NoWorkerError when no
// worker polls the agent's task queue, never while one is starting; Log
// and Status then read the agent's history instead. Log also reads from
// history an agent whose workflow task is failing (TaskFailingError: a
// build that refuses its run) and an earlier run no worker serves any
// more (pinned to a drained deployment version). A closed agent's
// calls fail with a ClosedError saying how and why it ended, and its
// close status wins over its last status query answer. Handle.Retrying lists the agent's calls that
// Temporal is retrying, and why; Handle.Calls adds the progress that running
// tool calls report, only that of the attempt running; Client.Tree reads a
// closed agent as closed, and Client.TreeWith reads a tree bounded in
// depth and size, seeded with the children the root's log names (which
// visibility may not list yet), each agent's children in the order they
// started.
// Client.List finds agents by Tether's search attributes through Temporal's
// visibility store, which is eventually consistent.
//
// Handle.Fork starts a new agent from this one's session log up to a
// position, read from history across its chain of runs (so a closed agent
// with no worker can be forked), and leaves this one untouched. The rules
// are the seed's (loop.ForkSeed): only a turn boundary or a step boundary
// inside a turn can be forked, where every call made has its result, so no
// call runs again and the conversation is whole; anywhere else (a call
// running, an approval pending, a wait sleeping) fails with a
// *ForkPositionError naming the nearest positions that can. What was
// pending or scheduled at the position, queued maintenance and a dispose
// stay behind (session/forked lists the messages); children are not
// forked: the fork has none, the source's go on reporting to the source,
// and a forked child is a root. The fork keeps the options, usage so far,
// model selection and request header, so its next request is the
// source's; it may replace the last user message (ReplaceLast) and take
// a first followup (AppendMessage). Its log begins at the position after
// the fork point with session/forked; what precedes it is the source's.
// Handle.Forks finds the agents forked from this one (TetherForkOf), and
// Handle.Lineage reads what an agent was forked from and its
// conversation, from history; Diverge finds where two conversations part
// (starter diff and the console's diff view show it).
//
// Handle.Rewind brings an idle agent back to the end of an earlier turn in
// place (session/rewound): the model sees that turn's conversation from
// the next turn on, and the turns after it stay in the log, rewound past;
// a turn the agent can no longer rebuild is refused naming Fork.
//
// Forks and rewinds compose (tested end to end): a fork of a rewound agent
// sees the rewound conversation; a fork at a position before a rewind sees
// the turns the rewind later went past, as they were; a fork rewinds its
// own turns like any agent, but not to a turn before its fork point, which
// its runs never held (ErrRewindLost: fork the source there instead). A
// fork is an agent of its own to providers too: its OpenAI calls send its
// own prompt_cache_key, so its first request may miss the cache its
// source's calls filled for the prefix they share.
//
// The package never imports workflow internals beyond the search attribute
// keys, and never holds provider credentials.
package agent

// Package stream carries the live chunks of a model call from the worker that
// runs it to the clients that watch it, without a broker and without
// Temporal.
//
// The worker running a model activity opens a stream in its Hub, emits the
// provider's chunks into it and serves it over HTTP as Server-Sent Events
// (Hub.Handler). The activity publishes the stream's URL (Key.Path under the
// worker's address) and its token in its heartbeat details; a client finds
// them with DescribeWorkflowExecution and reads the stream with
// agent.ReadStream (the wire types are signals's).
// Because the locator names the worker, this works with any number of
// workers.
//
// Every call's events also go to its agent's feed (feed.go): one stream of
// all the calls the hub runs for the agent, each call framed and named, so
// a client that subscribes before a turn (or names the turn soon enough)
// sees every call in full, however short. A client learns the feed's URL
// and token from the agent's feed query, which the worker holding the
// agent answers (with eager dispatch, the worker that runs its calls).
//
// Access: each stream has a capability token of 256 random bits, minted by
// Open and known only to the activity's heartbeat details, so only those
// who may read the workflow may follow its model calls. Each feed has its
// own tokens, known only to the answers of the agent's feed query: queries
// are read access and are never recorded, so a feed token never enters
// history. A feed token expires FeedTokenTTL (10 minutes) after it was
// minted, and so does every subscription it opened; the feed query mints a
// new one once the newest is past half its life. So a reader who once held
// a token (a log, a leaked locator) stops receiving the agent's later
// turns within the TTL unless it may still query the agent, and a client
// that may (agent.Tokens) reconnects with the new token. The hub serves a
// stream only to a request bearing its token, compared in constant time,
// and answers an unknown stream and a wrong token alike (404, at once).
// Subscriptions are bounded for the whole hub and for each stream.
//
// It must never write a chunk anywhere durable: chunks live only in the
// hub's memory and are gone after Linger. The settled assistant message in
// the session log is the durable fact; a stream is a preview of it. It must
// never put a token in a URL, an error or a log. The package imports no
// Temporal or provider code.
//
// Invariants:
//   - A stream's events have Seq 0, 1, 2, ... with no gaps, and exactly one
//     terminal event ("done" or "error") comes last.
//   - Emit never waits for a subscriber. A subscriber that falls so far
//     behind that the events it needs left the stream's window is cut off
//     with an error event "lagged"; nothing else is ever dropped.
//   - Every subscription ends by closing its channel: after its terminal
//     event, when its context ends, or when the hub closes. Hub.Close leaves
//     no goroutine behind.
package stream

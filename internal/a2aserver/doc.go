// Package a2aserver serves Tether agents over the Agent2Agent protocol
// (A2A, JSON-RPC over HTTP, with the a2a-go SDK's transport): an agent card
// per profile, message/send and message/stream opening or continuing an
// agent, tasks/get, tasks/cancel and tasks/resubscribe.
//
// The mapping: an A2A context is a Tether agent (its ID is the agent's ID;
// a message without one starts a new agent, a context ID not yet used
// starts an agent under that ID with the profile's options). An A2A
// message ID is Tether's message ID, so a resend of one message is
// delivered once (signals.ErrDuplicateID is taken as delivered). A task is
// one message and the turn that takes it, named CONTEXT:MESSAGE_ID; its
// state is folded from the agent's durable log, so the server keeps no
// state of its own and answers the same after a restart: submitted (in the
// inbox), working, input-required (the turn waits for a person: an
// approval or an ask_human question), completed (its answer as the
// "answer" artifact), canceled, failed. A message naming an input-required
// task is the person's reply: the answer to a question, or "approve" /
// "deny: REASON"; naming a working task it steers the running turn.
// tasks/cancel is Tether's cancel of the running turn (the inbox is kept).
// Streams follow the agent's log (agent.Handle.Follow) and send a status
// update per state change, final once the task settles or waits for input;
// from the task's turn on they also follow the agent's live token feed
// (agent.Handle.Tokens, never history) and send the model's text as
// updates of the "answer" artifact (metadata tether.live), the settled
// answer last (lastChunk) replacing it. Each stream's first artifact
// update replaces rather than appends, so tasks/resubscribe after a
// dropped connection ends with the same artifact and final status, once;
// a settled task resubscribed is the task alone. SSE Last-Event-ID is not
// served: the SDK's transport draws every event ID at random.
//
// Push notifications (tasks/pushNotificationConfig/set, get, list, delete,
// and message/send's pushNotificationConfig) POST the task, as tasks/get
// reads it, to each config's URL at each change of its state, in order,
// with the config's token in X-A2A-Notification-Token and its Bearer or
// Basic credentials in Authorization: the state when the config is set,
// then every change until a terminal one, after which the task's configs
// are dropped. Configs live in memory only: a restart of the server
// forgets them (the tasks go on; set them again). A config is checked when
// set: an http(s) URL whose host resolves only to public addresses, never
// loopback, private, link-local (the 169.254.169.254 metadata service
// included), multicast or reserved, unless PushOptions.Allow names the
// host, the address or its prefix; every connection is checked again
// when dialed (no proxy, no redirects followed), so a name that resolves
// elsewhere later reaches nothing. One watcher per task follows its log
// (reading only) and one sender per config posts from its own bounded
// queue with bounded timeouts and retries (DefaultPushTimeout,
// DefaultPushAttempts), so a slow or dead receiver delays only itself,
// never the agent, a stream or another receiver.
//
// Profiles come from Options or a JSON file (LoadProfiles), each checked
// as signals.ValidateOptions checks an agent's options; `starter a2a` and
// `worker --dev --a2a-addr` (fx/a2afx) serve them, over TLS with a key
// pair, and the cards name the https URL.
//
// When a token is set, every JSON-RPC call needs it as a bearer token and
// the cards say so; the cards themselves are public. The package is
// internal while its task naming and profile configuration settle.
package a2aserver

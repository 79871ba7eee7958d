// Tether's A2A server, driven by the JavaScript SDK (@a2a-js/sdk) as a
// third-party client would: card discovery, send, stream, get, cancel,
// input-required then resume, a resend of one message ID, and a malformed
// request of each kind. js_test.go runs it against a live embedded Tether
// (A2A_URL, A2A_TOKEN) whose model is the scripted one.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

const base = process.env.A2A_URL;
const token = process.env.A2A_TOKEN;
assert.ok(base && token, "A2A_URL and A2A_TOKEN name the server under test");

// authed is fetch with the bearer token the card asks for.
const authed = (url, init = {}) =>
  fetch(url, { ...init, headers: { ...(init.headers || {}), Authorization: `Bearer ${token}` } });

async function clientFor(path = "/") {
  const card = await new DefaultAgentCardResolver().resolve(base + path);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
    }),
  );
  return { card, client: await factory.createFromAgentCard(card) };
}

let n = 0;
const message = (contextId, text, extra = {}) => ({
  message: {
    kind: "message", role: "user", messageId: `js-${process.pid}-${++n}`, contextId,
    parts: [{ kind: "text", text }], ...extra,
  },
});
const answerOf = (task) => task.artifacts?.[0]?.parts?.[0]?.text;

test("the cards name each profile, its skills and the bearer scheme", async () => {
  const { card } = await clientFor("/");
  assert.equal(card.name, "assistant");
  assert.equal(card.url, base + "/");
  assert.equal(card.capabilities.streaming, true);
  assert.deepEqual(card.skills.map((s) => s.id), ["calculate", "ask_human"]);
  assert.ok(card.securitySchemes.bearer, "the card declares the bearer scheme");
  assert.equal(card.securitySchemes.bearer.scheme, "bearer");
  const careful = await new DefaultAgentCardResolver().resolve(base + "/agents/careful/");
  assert.equal(careful.name, "careful");
  assert.equal(careful.url, base + "/agents/careful/");
  const refused = await fetch(base + "/", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(refused.status, 401, "a call without the token is refused");
});

test("send opens an agent, get reads the task, a resend of one message ID is the same task", async () => {
  const { client } = await clientFor();
  const params = message("js-send", "/say hello from js");
  const task = await client.sendMessage(params);
  assert.equal(task.kind, "task");
  assert.equal(task.status.state, "completed");
  assert.equal(task.contextId, "js-send");
  assert.equal(answerOf(task), "hello from js");
  const got = await client.getTask({ id: task.id });
  assert.equal(got.status.state, "completed");
  assert.equal(answerOf(got), "hello from js");
  const again = await client.sendMessage(params);
  assert.equal(again.id, task.id, "the resend is the same task");
  assert.equal(again.status.state, "completed");
  const next = await client.sendMessage(message("js-send", "/say second"));
  assert.notEqual(next.id, task.id);
  assert.equal(next.status.state, "completed");
  assert.equal(next.metadata["tether.turn"], 2, "the resend opened no turn: the next message is turn 2");
});

test("stream yields the task, live text, the settled answer once, and a final completed status", async () => {
  const { client } = await clientFor();
  const words = Array.from({ length: 20 }, (_, i) => `w${i + 1}`).join(" ");
  const events = [];
  for await (const ev of client.sendMessageStream(message("js-stream", "/say " + words))) events.push(ev);
  assert.equal(events[0].kind, "task");
  let text = "";
  let live = 0;
  let last = 0;
  for (const ev of events.filter((e) => e.kind === "artifact-update")) {
    text = ev.append ? text + ev.artifact.parts[0].text : ev.artifact.parts[0].text;
    if (ev.metadata?.["tether.live"]) live++;
    if (ev.lastChunk) last++;
  }
  assert.ok(live > 1, `the answer arrived as live tokens (${live} updates)`);
  assert.equal(last, 1, "the settled answer comes once");
  assert.equal(text, words);
  const end = events.at(-1);
  assert.equal(end.kind, "status-update");
  assert.equal(end.final, true);
  assert.equal(end.status.state, "completed");
});

test("a stream dropped mid-answer resumes by resubscribe without losing or doubling the answer", async () => {
  const { client } = await clientFor();
  const words = Array.from({ length: 80 }, (_, i) => `w${i + 1}`).join(" ");
  const ac = new AbortController();
  let id;
  let seen = 0;
  try {
    for await (const ev of client.sendMessageStream(message("js-resume", "/say " + words), { signal: ac.signal })) {
      if (ev.kind === "task") id = ev.id;
      if (ev.kind === "artifact-update" && ++seen >= 3) {
        ac.abort();
        break;
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") throw e;
  }
  assert.ok(id, "the stream named its task");
  const events = [];
  for await (const ev of client.resubscribeTask({ id })) events.push(ev);
  assert.equal(events[0].kind, "task");
  let text = events[0].status.state === "completed" ? answerOf(events[0]) : "";
  let last = 0;
  for (const ev of events.filter((e) => e.kind === "artifact-update")) {
    text = ev.append ? text + ev.artifact.parts[0].text : ev.artifact.parts[0].text;
    if (ev.lastChunk) last++;
  }
  assert.equal(text, words, "the resumed artifact is the whole answer");
  assert.ok(last <= 1, "the settled answer is sent at most once");
  const got = await client.getTask({ id });
  assert.equal(got.status.state, "completed");
  assert.equal(got.metadata["tether.turn"], 1, "no second turn");
});

test("a question is input-required and the next message on the task resumes it", async () => {
  const { client } = await clientFor();
  const task = await client.sendMessage(message("js-ask", '/tool ask_human {"question":"which colour?"}'));
  assert.equal(task.status.state, "input-required");
  assert.match(task.status.message.parts[0].text, /which colour\?/);
  const done = await client.sendMessage(message("js-ask", "green", { taskId: task.id }));
  assert.equal(done.id, task.id);
  assert.equal(done.status.state, "completed");
  assert.match(answerOf(done), /green/);
});

test("an approval is input-required, approve resumes it, and a streamed reply ends completed", async () => {
  const { client } = await clientFor("/agents/careful/");
  const task = await client.sendMessage(message("js-careful", '/tool calculate {"expression":"6*7"}'));
  assert.equal(task.status.state, "input-required");
  const events = [];
  for await (const ev of client.sendMessageStream(message("js-careful", "approve", { taskId: task.id }))) events.push(ev);
  const end = events.at(-1);
  assert.equal(end.kind, "status-update");
  assert.equal(end.status.state, "completed");
  const got = await client.getTask({ id: task.id });
  assert.match(answerOf(got), /42/);
});

test("cancel ends the turn as Tether cancels, and a second cancel is refused", async () => {
  const { client } = await clientFor();
  const task = await client.sendMessage(message("js-cancel", '/tool ask_human {"question":"go on?"}'));
  assert.equal(task.status.state, "input-required");
  const canceled = await client.cancelTask({ id: task.id });
  assert.equal(canceled.status.state, "canceled");
  await assert.rejects(client.cancelTask({ id: task.id }), (e) => e.errorResponse?.error?.code === -32002);
  const after = await client.sendMessage(message("js-cancel", "/say still here"));
  assert.equal(answerOf(after), "still here", "the agent is unharmed");
});

// rpc posts a raw body and returns the JSON-RPC error.
async function rpc(body) {
  const res = await authed(base + "/", { method: "POST", headers: { "Content-Type": "application/json" }, body });
  const out = await res.json();
  assert.ok(out.error, `want a JSON-RPC error, got ${JSON.stringify(out)}`);
  assert.ok(out.error.message.length > 0);
  return out.error.code;
}

test("a malformed request of each kind gets its JSON-RPC error and the agent is unharmed", async () => {
  const { client } = await clientFor();
  const first = await client.sendMessage(message("js-unharmed", "/say before"));
  assert.equal(first.status.state, "completed");
  assert.equal(await rpc('{"jsonrpc":'), -32700, "not JSON");
  assert.equal(await rpc('{"jsonrpc":"1.0","id":1,"method":"tasks/get","params":{"id":"x"}}'), -32600, "not JSON-RPC 2.0");
  assert.equal(await rpc('{"jsonrpc":"2.0","id":1,"method":"tasks/explode","params":{}}'), -32601, "no such method");
  const bad = (m) => JSON.stringify({ jsonrpc: "2.0", id: 2, method: "message/send", params: { message: m } });
  const base_ = { kind: "message", role: "user", contextId: "js-unharmed", parts: [{ kind: "text", text: "x" }] };
  assert.equal(await rpc(bad({ ...base_ })), -32602, "no message ID");
  assert.equal(await rpc(bad({ ...base_, messageId: "m1", role: "agent" })), -32602, "the agent's role");
  assert.equal(await rpc(bad({ ...base_, messageId: "m2", parts: [{ kind: "text", text: " " }] })), -32602, "no text");
  assert.equal(await rpc(bad({ ...base_, messageId: "m3", contextId: "two words" })), -32602, "a context ID no agent ID can be");
  // Through the SDK's client, each error comes back typed.
  await assert.rejects(client.getTask({ id: "js-unharmed:nope" }), (e) => e.errorResponse?.error?.code === -32001);
  await assert.rejects(
    client.sendMessage({ message: { ...base_, messageId: "m4", parts: [{ kind: "file", file: { uri: "file:///etc/passwd" } }] } }),
    (e) => e.errorResponse?.error?.code === -32005,
  );
  await assert.rejects(client.getTaskPushNotificationConfig({ id: first.id }), (e) => e.errorResponse?.error?.code === -32602, "a task without a push config");
  assert.equal(await rpc('{"jsonrpc":"2.0","id":3,"method":"tasks/pushNotificationConfig/get","params":{"id":"x"}}'), -32001, "push config of no task");
  const after = await client.sendMessage(message("js-unharmed", "/say after"));
  assert.equal(answerOf(after), "after");
  assert.equal(after.metadata["tether.turn"], 2, "no malformed request reached the agent");
});

test("a push config set through the SDK is sent the task at each change; a private URL is refused", async () => {
  const { card, client } = await clientFor();
  assert.equal(card.capabilities.pushNotifications, true);
  const got = [];
  let wake = () => {};
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push({ token: req.headers["x-a2a-notification-token"], task: JSON.parse(body) });
      res.end();
      wake();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const task = await client.sendMessage(message("js-push", '/tool ask_human {"question":"pushed?"}'));
    assert.equal(task.status.state, "input-required");
    const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: "js", url, token: "js-token" } });
    assert.equal(set.pushNotificationConfig.id, "js");
    const read = await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "js" });
    assert.equal(read.pushNotificationConfig.url, url);
    assert.equal((await client.listTaskPushNotificationConfig({ id: task.id })).length, 1);
    await assert.rejects(
      client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: "http://169.254.169.254/latest" } }),
      (e) => e.errorResponse?.error?.code === -32602 && /metadata/.test(e.errorResponse.error.data.error),
    );
    const done = await client.sendMessage(message("js-push", "yes", { taskId: task.id }));
    assert.equal(done.status.state, "completed");
    const deadline = Date.now() + 60_000;
    while (!got.some((n) => n.task.status.state === "completed")) {
      assert.ok(Date.now() < deadline, "the completed task is pushed within 60s");
      await new Promise((r) => { wake = r; setTimeout(r, 1000); });
    }
    const states = got.map((n) => n.task.status.state);
    assert.equal(states[0], "input-required", "the state when the config was set first");
    assert.equal(states.at(-1), "completed");
    assert.ok(got.every((n) => n.token === "js-token" && n.task.id === task.id));
  } finally {
    receiver.close();
  }
});

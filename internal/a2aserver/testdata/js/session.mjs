// The README's JavaScript session: stream one message to Tether's A2A
// server with @a2a-js/sdk, printing the live text, then the task's state.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

const base = process.env.A2A ?? "http://127.0.0.1:8290";
const withToken = (url, init = {}) =>
  fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${process.env.TETHER_A2A_TOKEN}` } });
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
}));
const client = await factory.createFromUrl(base);
const message = {
  kind: "message", role: "user", messageId: crypto.randomUUID(), contextId: "js-demo",
  parts: [{ kind: "text", text: "what is 6*7?" }],
};
let answer = "";
for await (const ev of client.sendMessageStream({ message })) {
  if (ev.kind === "artifact-update") {
    const text = ev.artifact.parts[0].text;
    answer = ev.append ? answer + text : text;
  }
  if (ev.kind === "status-update" && ev.final) console.log(`${ev.taskId} ${ev.status.state}: ${answer}`);
}

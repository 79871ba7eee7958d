// The codec against Go's (codec/codec.go): ts_test.go writes what the Go
// codec encoded (TETHER_CODEC_FIXTURE), this test decodes it, and writes
// what the TypeScript codec encodes (TETHER_OUT/ts-encoded.json) for the
// Go codec to decode. Without the fixture, the round trip within
// TypeScript still runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Payload } from '@temporalio/common';
import { CodecError, TetherCodec, parseCodecKeys } from '../src';

interface JsonPayload { metadata: Record<string, string>; data: string }
interface Fixture { namespace: string; workflow_id: string; plain: JsonPayload[]; unbound: JsonPayload[]; bound: JsonPayload[] }

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});
const same = (a: Payload, b: Payload): void => assert.deepEqual(toJson(a), toJson(b));
const text = (p: Payload, k: string): string => Buffer.from(p.metadata![k]).toString();

const fixturePath = process.env.TETHER_CODEC_FIXTURE;
const keys = process.env.TETHER_CODEC_KEYS;

test('what the Go codec encoded decodes here, bound and unbound, and what this codec encodes goes back', { skip: fixturePath && keys ? false : 'TETHER_CODEC_FIXTURE is not set: run `go test ./clients/typescript/`' }, async () => {
  const f = JSON.parse(readFileSync(fixturePath!, 'utf8')) as Fixture;
  const plain = f.plain.map(fromJson);
  const codec = new TetherCodec({ keys: parseCodecKeys(keys!) });
  const own = codec.withBinding({ namespace: f.namespace, workflowId: f.workflow_id });
  const other = codec.withBinding({ namespace: f.namespace, workflowId: 'another-agent' });
  const unbound = f.unbound.map(fromJson);
  const bound = f.bound.map(fromJson);
  (await codec.decode(unbound)).forEach((p, i) => same(p, plain[i]));
  (await codec.decode(bound)).forEach((p, i) => same(p, plain[i]));
  (await own.decode(bound)).forEach((p, i) => same(p, plain[i]));
  (await own.decode(unbound)).forEach((p, i) => same(p, plain[i]));
  await assert.rejects(other.decode([bound[0]]), CodecError, 'a payload bound to another workflow is refused in this one');
  const strict = new TetherCodec({ keys: parseCodecKeys(keys!), bind: { namespace: f.namespace, workflowId: f.workflow_id }, requireBinding: true });
  await assert.rejects(strict.decode([unbound[0]]), CodecError, 'requireBinding refuses an unbound payload');

  const ours = { ...f, workflow_id: 'ts-bound-agent', unbound: [] as JsonPayload[], bound: [] as JsonPayload[] };
  const tsBound = codec.withBinding({ namespace: f.namespace, workflowId: ours.workflow_id });
  ours.unbound = (await codec.encode(plain)).map(toJson);
  ours.bound = (await tsBound.encode(plain)).map(toJson);
  writeFileSync(path.join(process.env.TETHER_OUT!, 'ts-encoded.json'), JSON.stringify(ours));
});

test('encode then decode gives the payload back; tampering, a wrong key or binding is a CodecError', async () => {
  const k1 = { id: 'k1', secret: randomBytes(32) };
  const k2 = { id: 'k2', secret: randomBytes(32) };
  const codec = new TetherCodec({ keys: [k1, k2], activeKeyId: 'k2' });
  const p: Payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"id":"m","content":"hello"}') };
  const [enc] = await codec.encode([p]);
  assert.equal(text(enc, 'encoding'), 'binary/encrypted');
  assert.equal(text(enc, 'encryption-key-id'), 'k2');
  assert.equal(enc.metadata!['encryption-version'], undefined, 'unbound: no version');
  assert.ok(!Buffer.from(enc.data!).includes(Buffer.from('hello')), 'no plaintext');
  assert.deepEqual((await codec.encode([enc]))[0], enc, 'never encrypted twice');
  const [again] = await codec.encode([p]);
  assert.notDeepEqual(Buffer.from(again.data!), Buffer.from(enc.data!), 'a fresh nonce each time');
  same((await codec.decode([enc]))[0], p);
  same((await new TetherCodec({ keys: [k2] }).decode([enc]))[0], p);
  same((await codec.decode([p]))[0], p); // not encrypted: as it is
  await assert.rejects(new TetherCodec({ keys: [k1] }).decode([enc]), (e: unknown) => e instanceof CodecError && e.keyId === 'k2');
  const tampered = { ...enc, data: Buffer.from(enc.data!) };
  tampered.data[20] ^= 1;
  await assert.rejects(codec.decode([tampered]), CodecError);
  const bound = codec.withBinding({ namespace: 'ns', workflowId: 'wf' });
  const [b] = await bound.encode([p]);
  assert.equal(text(b, 'encryption-version'), '2');
  assert.equal(text(b, 'encryption-workflow-id'), 'wf');
  same((await bound.decode([b]))[0], p);
  same((await codec.decode([b]))[0], p);
  const moved = { ...b, metadata: { ...b.metadata, 'encryption-workflow-id': Buffer.from('other') } };
  await assert.rejects(codec.decode([moved]), CodecError, 'the binding is authenticated');
  assert.throws(() => new TetherCodec({ keys: [k1, k2] }), /name the active one/);
  assert.throws(() => new TetherCodec({ keys: [{ id: 'k', secret: randomBytes(16) }] }), /16 bytes, want 32/);
  assert.throws(() => parseCodecKeys('k1:not base64!'), /not standard base64/);
  assert.deepEqual(parseCodecKeys(`# a comment\nk1:${k1.secret.toString('base64')}`).map((k) => k.id), ['k1']);
});

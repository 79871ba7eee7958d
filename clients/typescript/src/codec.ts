// The codec of a worker with codec keys (docs/clients.md, "The codec";
// Go's package codec is the reference): AES-256-GCM over the whole
// original payload, authenticated with its key ID and, in a bound payload,
// its namespace and workflow ID.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** Payload metadata of an encrypted payload (codec.Metadata*). */
export const CodecMetadata = {
  encoding: 'encoding',
  keyId: 'encryption-key-id',
  version: 'encryption-version',
  namespace: 'encryption-namespace',
  workflowId: 'encryption-workflow-id',
} as const;

/** The encoding of an encrypted payload. */
export const ENCODING_ENCRYPTED = 'binary/encrypted';
/** encryption-version of a payload bound to its workflow. */
export const VERSION_BOUND = '2';
/** The size of a codec key: AES-256. */
export const CODEC_KEY_SIZE = 32;

const NONCE_SIZE = 12;
const TAG_SIZE = 16;
const BOUND_PREFIX = Buffer.from('tether-codec/bound\x00', 'latin1');
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A codec key: its ID, written into every payload it encrypts, and its 32 bytes. */
export interface CodecKey {
  id: string;
  secret: Uint8Array;
}

/** The workflow a bound payload belongs to. */
export interface CodecBinding {
  namespace: string;
  workflowId: string;
}

export interface CodecOptions {
  /** Every key decrypts. */
  keys: CodecKey[];
  /** The key that encrypts; may be left out when there is one key. */
  activeKeyId?: string;
  /**
   * Bind what encode encrypts to this workflow, as the Go SDK's codec does
   * in a workflow's serialization context; decode then refuses a payload
   * bound to another workflow. Without it, encode writes unbound payloads
   * (what the worker's codec server writes) and decode reads any.
   */
  bind?: CodecBinding;
  /** With bind: refuse unbound payloads too (TETHER_CODEC_REQUIRE_BINDING). */
  requireBinding?: boolean;
}

/** A payload the codec cannot decrypt: a key it lacks, a binding it refuses, bytes that do not authenticate. */
export class CodecError extends Error {
  readonly keyId: string;
  constructor(keyId: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CodecError';
    this.keyId = keyId;
  }
}

/**
 * parseCodecKeys parses "id:base64key" entries separated by commas or
 * newlines, the format of TETHER_CODEC_KEYS (codec.ParseKeys): blank
 * entries and lines starting with # are ignored, and errors name the
 * entry's ID or position, never its key.
 */
export function parseCodecKeys(spec: string): CodecKey[] {
  const keys: CodecKey[] = [];
  spec.split(/[,\n]/).filter((s) => s !== '').forEach((raw, n) => {
    const entry = raw.trim();
    if (entry === '' || entry.startsWith('#')) return;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`codec: key entry ${n + 1}: want id:base64key`);
    const id = entry.slice(0, colon).trim();
    const b64 = entry.slice(colon + 1).trim();
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) {
      throw new Error(`codec: key ${JSON.stringify(id)} is not standard base64`);
    }
    keys.push({ id, secret: Buffer.from(b64, 'base64') });
  });
  return keys;
}

function uvarint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** associatedData is codec.binding.associatedData: the key ID alone, or the prefix and three length-prefixed fields. */
function associatedData(keyId: string, b?: CodecBinding): Buffer {
  if (b === undefined) return Buffer.from(keyId, 'utf8');
  const parts: Buffer[] = [BOUND_PREFIX];
  for (const f of [keyId, b.namespace, b.workflowId]) {
    const bytes = Buffer.from(f, 'utf8');
    parts.push(uvarint(bytes.length), bytes);
  }
  return Buffer.concat(parts);
}

function meta(p: Payload, name: string): string | undefined {
  const v = p.metadata?.[name];
  return v == null ? undefined : Buffer.from(v).toString('utf8');
}

/**
 * TetherCodec is a @temporalio/client PayloadCodec in the format of Go's
 * codec.Codec. Give it to Client's dataConverter.payloadCodecs.
 */
export class TetherCodec implements PayloadCodec {
  readonly activeKeyId: string;
  private readonly keys: Map<string, Buffer>;
  private readonly bind?: CodecBinding;
  private readonly requireBinding: boolean;

  constructor(o: CodecOptions) {
    if (o.keys.length === 0) throw new Error('codec: no keys configured');
    this.keys = new Map();
    for (const k of o.keys) {
      if (!KEY_ID.test(k.id)) throw new Error(`codec: key ID ${JSON.stringify(k.id)} is not 1 to 64 of A-Z a-z 0-9 . _ -`);
      if (k.secret.length !== CODEC_KEY_SIZE) throw new Error(`codec: key "${k.id}" is ${k.secret.length} bytes, want ${CODEC_KEY_SIZE}`);
      if (this.keys.has(k.id)) throw new Error(`codec: key "${k.id}" is configured twice`);
      this.keys.set(k.id, Buffer.from(k.secret));
    }
    if (o.activeKeyId === undefined && o.keys.length > 1) throw new Error(`codec: ${o.keys.length} keys configured: name the active one`);
    this.activeKeyId = o.activeKeyId ?? o.keys[0].id;
    if (!this.keys.has(this.activeKeyId)) throw new Error(`codec: active key "${this.activeKeyId}" is not configured`);
    if (o.bind !== undefined && o.bind.workflowId === '') throw new Error('codec: bind names no workflow');
    this.bind = o.bind;
    this.requireBinding = o.requireBinding ?? false;
  }

  /** withBinding is this codec bound to one workflow (Go's WithSerializationContext). */
  withBinding(bind: CodecBinding): TetherCodec {
    const keys = [...this.keys].map(([id, secret]) => ({ id, secret }));
    return new TetherCodec({ keys, activeKeyId: this.activeKeyId, bind, requireBinding: this.requireBinding });
  }

  /** encode encrypts each payload under the active key; an encrypted one is left as it is. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (meta(p, CodecMetadata.encoding) === ENCODING_ENCRYPTED) return p;
      const plain = temporal.api.common.v1.Payload.encode({ metadata: p.metadata, data: p.data }).finish();
      const nonce = randomBytes(NONCE_SIZE);
      const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, nonce);
      cipher.setAAD(associatedData(this.activeKeyId, this.bind));
      const sealed = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      const metadata: Record<string, Uint8Array> = {
        [CodecMetadata.encoding]: Buffer.from(ENCODING_ENCRYPTED),
        [CodecMetadata.keyId]: Buffer.from(this.activeKeyId),
      };
      if (this.bind !== undefined) {
        metadata[CodecMetadata.version] = Buffer.from(VERSION_BOUND);
        metadata[CodecMetadata.namespace] = Buffer.from(this.bind.namespace);
        metadata[CodecMetadata.workflowId] = Buffer.from(this.bind.workflowId);
      }
      return { metadata, data: sealed };
    });
  }

  /** decode decrypts each encrypted payload with the key it names; others are left as they are. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (meta(p, CodecMetadata.encoding) === ENCODING_ENCRYPTED ? this.decrypt(p) : p));
  }

  private decrypt(p: Payload): Payload {
    const id = meta(p, CodecMetadata.keyId) ?? '';
    const key = this.keys.get(id);
    if (key === undefined) {
      throw new CodecError(id, `codec: payload encrypted under key "${id}", which is not configured (have ${[...this.keys.keys()].join(', ')})`);
    }
    const b = bindingOf(p, id);
    const want = this.bind;
    if (want !== undefined && ((b !== undefined && (b.namespace !== want.namespace || b.workflowId !== want.workflowId)) ||
      (b === undefined && this.requireBinding))) {
      const of = b === undefined ? 'unbound' : `bound to ${b.namespace}/${b.workflowId}`;
      throw new CodecError(id, `codec: payload is ${of}, not to ${want.namespace}/${want.workflowId}`);
    }
    const data = Buffer.from(p.data ?? new Uint8Array());
    if (data.length < NONCE_SIZE + TAG_SIZE) throw new CodecError(id, `codec: payload under key "${id}" is too short to decrypt`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_SIZE));
      decipher.setAAD(associatedData(id, b));
      decipher.setAuthTag(data.subarray(data.length - TAG_SIZE));
      const plain = Buffer.concat([decipher.update(data.subarray(NONCE_SIZE, data.length - TAG_SIZE)), decipher.final()]);
      const dec = temporal.api.common.v1.Payload.decode(plain);
      return { metadata: dec.metadata ?? {}, data: dec.data ?? new Uint8Array() };
    } catch (err) {
      throw new CodecError(id, `codec: payload under key "${id}" does not decrypt: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** bindingOf reads an encrypted payload's binding from its metadata (codec.bindingOf). */
function bindingOf(p: Payload, id: string): CodecBinding | undefined {
  const v = meta(p, CodecMetadata.version);
  if (v === undefined) {
    if (meta(p, CodecMetadata.namespace) !== undefined) throw new CodecError(id, 'codec: payload names a namespace but no encryption version');
    if (meta(p, CodecMetadata.workflowId) !== undefined) throw new CodecError(id, 'codec: payload names a workflow but no encryption version');
    return undefined;
  }
  if (v !== VERSION_BOUND) throw new CodecError(id, `codec: unsupported encryption version ${JSON.stringify(v)}`);
  return { namespace: meta(p, CodecMetadata.namespace) ?? '', workflowId: meta(p, CodecMetadata.workflowId) ?? '' };
}

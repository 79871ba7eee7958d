// Message IDs: the sender chooses them, and they are each message's dedupe
// key (docs/clients.md, "Messages, IDs and dedupe").
import { createHash, randomBytes } from 'node:crypto';
import { InvalidMessageError } from './errors';

/** The longest message ID Tether takes. */
export const MAX_MESSAGE_ID = 128;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * newMessageId returns a fresh random 64-bit ID as the Go client draws it
 * (signals.DrawnID): the bits in base 62, 11 letters or digits.
 */
export function newMessageId(): string {
  let n = randomBytes(8).readBigUInt64BE();
  let out = '';
  for (let i = 0; i < 11; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/**
 * messageUpdateId is the update ID of a message (signals.MessageUpdateID):
 * the message ID, '#', then the first 8 bytes of the content's SHA-256 in
 * hex. A resend of the same message is answered with the first delivery's
 * outcome; other content under a used ID becomes a new update, refused.
 */
export function messageUpdateId(id: string, content: string): string {
  return `${id}#${createHash('sha256').update(content, 'utf8').digest('hex').slice(0, 16)}`;
}

/**
 * validateMessageId throws InvalidMessageError unless id is 1 to 128
 * printable ASCII characters without spaces, not starting with "made:".
 */
export function validateMessageId(id: string): void {
  let why = '';
  if (id.length === 0) why = 'empty (every message needs an ID: it is the message\'s dedupe key)';
  else if (id.length > MAX_MESSAGE_ID) why = `longer than ${MAX_MESSAGE_ID} characters`;
  else if (!/^[\x21-\x7e]+$/.test(id)) why = 'not printable ASCII without spaces';
  else if (id.startsWith('made:')) why = 'starts with "made:", which Tether keeps for the IDs it makes';
  if (why !== '') {
    throw new InvalidMessageError('tether.InvalidMessage', `message id is invalid: ${why}`, false);
  }
}

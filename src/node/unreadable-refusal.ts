/**
 * The refusal of a message that could not be read at all: another key, another label, plaintext to a
 * member that encrypts, or sealed bytes to one that does not. The seed cannot decode the joiner's
 * message, so it knows neither its name nor its address; it answers on the connection the message came
 * on (the transport's reply frame), unsealed, since a reply it sealed could not be opened either. It
 * carries no member data. The joiner accepts such a refusal only as the reply on a connection it opened
 * itself.
 *
 * The label is authenticated but never sent, so a seed that cannot open sealed bytes cannot tell another
 * label from another key. Its refusal carries its own label; the joiner compares it with its own, and
 * tells "cluster label differs" from "no installed key could open the message". memberlist sends labels
 * in plaintext with every message; here one is sent only to a member that already reached the seed.
 */
import type { Refuse } from '../swim/messages.js';
import { decodeStream } from '../wire/decode.js';
import type { DropReason } from '../wire/drop-reason.js';

/** The refusal a seed named `from` answers a message it dropped for `reason` with, if any. */
export function refusalOfUnreadable(reason: DropReason, from: string, label: string): Refuse | undefined {
  switch (reason) {
    case 'decrypt-failed':
      return {
        type: 'refuse',
        from,
        code: 'FDKIT_JOIN_KEY_MISMATCH',
        reason: 'no installed key could open the message',
        label,
      };
    case 'not-encrypted':
      return {
        type: 'refuse',
        from,
        code: 'FDKIT_JOIN_NOT_ENCRYPTED',
        reason:
          'the seed requires encryption, and the message was not encrypted (this member has no keyring)',
      };
    case 'unexpected-encryption':
      return {
        type: 'refuse',
        from,
        code: 'FDKIT_JOIN_UNEXPECTED_ENCRYPTION',
        reason: 'the message was encrypted, and the seed has no keyring',
      };
    default:
      return undefined;
  }
}

/**
 * The refusal a reply frame carries, as the joiner reads it: a seed's key mismatch under another label
 * than `ownLabel` (undefined without a keyring) is a label mismatch. Undefined for anything else.
 */
export function readUnreadableRefusal(reply: Uint8Array, ownLabel: string | undefined): Refuse | undefined {
  const result = decodeStream(reply);
  if (!result.ok || result.message.type !== 'refuse') return undefined;
  const { from, code, reason, label } = result.message;
  if (
    code === 'FDKIT_JOIN_KEY_MISMATCH' &&
    label !== undefined &&
    ownLabel !== undefined &&
    label !== ownLabel
  ) {
    return {
      type: 'refuse',
      from,
      code: 'FDKIT_JOIN_LABEL_MISMATCH',
      reason: `cluster label differs (seed: ${JSON.stringify(label)}, this member: ${JSON.stringify(ownLabel)})`,
    };
  }
  return { type: 'refuse', from, code, reason };
}

/**
 * The heartbeat monitor's decoder. Apart from SWIM's decoders because it is the other protocol's: the
 * two share the envelope and the checks (`decode-reader.ts`), not the messages.
 */
import type { Heartbeat } from '../heartbeat/messages.js';
import {
  arity,
  checkVersion,
  failed,
  isAddress,
  isName,
  isU32,
  u32,
  unpackDatagram,
  wrongType,
} from './decode-reader.js';
import { type Rejection, reject } from './drop-reason.js';
import { MessageTag } from './tags.js';

/** Result of {@link decodeHeartbeat}. */
export type HeartbeatResult = { readonly ok: true; readonly heartbeat: Heartbeat } | Rejection;

function readHeartbeat(a: readonly unknown[]): Heartbeat | undefined {
  if (!checkVersion(a[0], '')) return undefined;
  const tag: unknown = a[1];
  if (tag !== MessageTag.heartbeat) return wrongType(tag, 'a SWIM message');
  const c = 'heartbeat';
  if (!arity(a, 7, c)) return undefined;
  const from: unknown = a[2];
  const address: unknown = a[3];
  const incarnation: unknown = a[4];
  const nonce: unknown = a[5];
  const seq: unknown = a[6];
  if (
    !isName(from, c, -1, 'from') ||
    !isAddress(address, c, -1, 'address') ||
    !isU32(incarnation, c, -1, 'incarnation') ||
    !isU32(nonce, c, -1, 'nonce') ||
    !isU32(seq, c, -1, 'seq')
  ) {
    return undefined;
  }
  return { from, address, incarnation: u32(incarnation), nonce: u32(nonce), seq: u32(seq) };
}

/**
 * Decodes one datagram of the heartbeat monitor. Never throws. SWIM packets are dropped as
 * `unknown-type`, as heartbeats are by {@link decodeDatagram}: the two protocols share the envelope and
 * the checks, not the port.
 *
 * @example
 * ```ts
 * const result = decodeHeartbeat(bytes);
 * if (result.ok) core.handleHeartbeat(fromAddress, result.heartbeat);
 * else countDrop(drops, result.reason);
 * ```
 */
export function decodeHeartbeat(bytes: Uint8Array): HeartbeatResult {
  try {
    const a = unpackDatagram(bytes);
    if (a === undefined) return failed();
    const heartbeat = readHeartbeat(a);
    return heartbeat === undefined ? failed() : { ok: true, heartbeat };
  } catch (error) {
    return reject('malformed', `internal error: ${String(error)}`); // see decodeDatagram
  }
}

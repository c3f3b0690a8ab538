/**
 * The datagram decoder: SWIM's packets and the updates they piggyback, one per datagram or several in a
 * compound. Apart from the stream and heartbeat decoders because each channel takes its own messages;
 * the stream decoder borrows {@link readPacket} for the TCP fallback probe, a ping or an ack laid out
 * as in a datagram.
 */
import type {
  AliveUpdate,
  BusyUpdate,
  DeadUpdate,
  Packet,
  SuspectUpdate,
  Update,
  UserBroadcast,
} from '../swim/messages.js';
import {
  arity,
  checkVersion,
  copyBytes,
  fail,
  failed,
  isAddress,
  isBoolean,
  isMeta,
  isName,
  isPayload,
  isU32,
  u32,
  unpackDatagram,
} from './decode-reader.js';
import { type Rejection, reject } from './drop-reason.js';
import { COMPOUND_PARTS_MAX, UPDATES_PER_PACKET_MAX } from './limits.js';
import { MessageTag, UpdateTag } from './tags.js';

/** Result of {@link decodeDatagram}: the packets of the datagram (one, or the parts of a compound). */
export type DatagramResult = { readonly ok: true; readonly packets: Packet[] } | Rejection;

// Fields are read by index rather than by destructuring, which goes through the iterator protocol.

// --- updates ----------------------------------------------------------------------------------------

function readUpdate(u: unknown, context: string, i: number): Update | undefined {
  if (!Array.isArray(u) || u.length === 0)
    return fail('malformed', `${context}[${i}]: not a non-empty array`);
  const kind: unknown = u[0];
  switch (kind) {
    case UpdateTag.alive: {
      if (u.length !== 5) return fail('malformed', `${context}[${i}]: alive has 5 elements, got ${u.length}`);
      const name: unknown = u[1];
      const address: unknown = u[2];
      const incarnation: unknown = u[3];
      const meta: unknown = u[4];
      if (
        !isName(name, context, i, 'name') ||
        !isAddress(address, context, i, 'address') ||
        !isU32(incarnation, context, i, 'incarnation') ||
        !isMeta(meta, context, i)
      ) {
        return undefined;
      }
      const update: AliveUpdate = {
        kind: 'alive',
        name,
        address,
        incarnation: u32(incarnation),
        meta: copyBytes(meta),
      };
      return update;
    }
    case UpdateTag.suspect:
    case UpdateTag.dead: {
      const kindName = kind === UpdateTag.suspect ? 'suspect' : 'dead';
      // A suspect may carry a fifth element: the refusal flag, always `true` when present.
      const refused = kindName === 'suspect' && u.length === 5;
      if (u.length !== 4 && !refused)
        return fail('malformed', `${context}[${i}]: ${kindName} has 4 elements, got ${u.length}`);
      if (refused && u[4] !== true)
        return fail('malformed', `${context}[${i}]: suspect's fifth element is the refusal flag, true`);
      const name: unknown = u[1];
      const incarnation: unknown = u[2];
      const from: unknown = u[3];
      if (
        !isName(name, context, i, 'name') ||
        !isU32(incarnation, context, i, 'incarnation') ||
        !isName(from, context, i, 'from')
      ) {
        return undefined;
      }
      const update: SuspectUpdate | DeadUpdate = refused
        ? { kind: 'suspect', name, incarnation: u32(incarnation), from, refused: true }
        : { kind: kindName, name, incarnation: u32(incarnation), from };
      return update;
    }
    case UpdateTag.user: {
      if (u.length !== 4) return fail('malformed', `${context}[${i}]: user has 4 elements, got ${u.length}`);
      const origin: unknown = u[1];
      const seq: unknown = u[2];
      const payload: unknown = u[3];
      if (
        !isName(origin, context, i, 'origin') ||
        !isU32(seq, context, i, 'seq') ||
        !isPayload(payload, context, i, 'payload')
      ) {
        return undefined;
      }
      const update: UserBroadcast = { kind: 'user', origin, seq: u32(seq), payload: copyBytes(payload) };
      return update;
    }
    case UpdateTag.busy: {
      if (u.length !== 3) return fail('malformed', `${context}[${i}]: busy has 3 elements, got ${u.length}`);
      const name: unknown = u[1];
      const seq: unknown = u[2];
      if (!isName(name, context, i, 'name') || !isU32(seq, context, i, 'seq')) return undefined;
      const update: BusyUpdate = { kind: 'busy', name, seq: u32(seq) };
      return update;
    }
    default:
      return typeof kind === 'number'
        ? fail('unknown-kind', `${context}[${i}]: unknown update kind ${kind}`)
        : fail('malformed', `${context}[${i}]: the update kind is not a number`);
  }
}

function readUpdates(v: unknown, context: string): Update[] | undefined {
  if (!Array.isArray(v)) return fail('malformed', `${context}: not an array`);
  if (v.length > UPDATES_PER_PACKET_MAX) {
    return fail(
      'invalid-field',
      `${context}: ${v.length} updates, at most ${UPDATES_PER_PACKET_MAX} allowed`,
    );
  }
  const updates: Update[] = [];
  for (let i = 0; i < v.length; i++) {
    const update = readUpdate(v[i], context, i);
    if (update === undefined) return undefined;
    updates.push(update);
  }
  return updates;
}

// --- packets ----------------------------------------------------------------------------------------

/**
 * A packet from its array (version already checked, type tag included); `where` prefixes failure
 * details.
 */
export function readPacket(a: readonly unknown[], where: string): Packet | undefined {
  const tag: unknown = a[1];
  switch (tag) {
    case MessageTag.ping: {
      const c = `${where}ping`;
      if (!arity(a, 6, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const target: unknown = a[4];
      const rawUpdates: unknown = a[5];
      if (!isU32(seq, c, -1, 'seq') || !isName(from, c, -1, 'from') || !isName(target, c, -1, 'target')) {
        return undefined;
      }
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'ping', seq: u32(seq), from, target, updates };
    }
    case MessageTag.pingReq: {
      const c = `${where}ping-req`;
      if (!arity(a, 8, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const target: unknown = a[4];
      const targetAddress: unknown = a[5];
      const nack: unknown = a[6];
      const rawUpdates: unknown = a[7];
      if (
        !isU32(seq, c, -1, 'seq') ||
        !isName(from, c, -1, 'from') ||
        !isName(target, c, -1, 'target') ||
        !isAddress(targetAddress, c, -1, 'targetAddress') ||
        !isBoolean(nack, c, -1, 'nack')
      ) {
        return undefined;
      }
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'ping-req', seq: u32(seq), from, target, targetAddress, nack, updates };
    }
    case MessageTag.ack:
    case MessageTag.nack: {
      const type = tag === MessageTag.ack ? 'ack' : 'nack';
      const c = `${where}${type}`;
      if (!arity(a, 5, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const rawUpdates: unknown = a[4];
      if (!isU32(seq, c, -1, 'seq') || !isName(from, c, -1, 'from')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type, seq: u32(seq), from, updates };
    }
    case MessageTag.gossip: {
      const c = `${where}gossip`;
      if (!arity(a, 4, c)) return undefined;
      const from: unknown = a[2];
      const rawUpdates: unknown = a[3];
      if (!isName(from, c, -1, 'from')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'gossip', from, updates };
    }
    case MessageTag.user: {
      const c = `${where}user`;
      if (!arity(a, 5, c)) return undefined;
      const from: unknown = a[2];
      const payload: unknown = a[3];
      const rawUpdates: unknown = a[4];
      if (!isName(from, c, -1, 'from') || !isPayload(payload, c, -1, 'payload')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'user', from, payload: copyBytes(payload), updates };
    }
    case MessageTag.conflict: {
      const c = `${where}conflict`;
      if (!arity(a, 7, c)) return undefined;
      const [, , from, name, holderAddress, otherAddress, rawUpdates] = a;
      if (
        !isName(from, c, -1, 'from') ||
        !isName(name, c, -1, 'name') ||
        !isAddress(holderAddress, c, -1, 'holderAddress') ||
        !isAddress(otherAddress, c, -1, 'otherAddress')
      ) {
        return undefined;
      }
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'conflict', from, name, holderAddress, otherAddress, updates };
    }
    case MessageTag.nameQuery: {
      const c = `${where}name-query`;
      if (!arity(a, 5, c)) return undefined;
      const [, , from, name, rawUpdates] = a;
      if (!isName(from, c, -1, 'from') || !isName(name, c, -1, 'name')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'name-query', from, name, updates };
    }
    case MessageTag.compound:
      return fail('malformed', `${where}a compound inside a compound`);
    case MessageTag.pushPull:
      return fail('unknown-type', `${where}push-pull is a stream message, not a datagram`);
    case MessageTag.heartbeat:
      return fail('unknown-type', `${where}a heartbeat is the heartbeat monitor's, not a SWIM packet`);
    default:
      return typeof tag === 'number'
        ? fail('unknown-type', `${where}unknown message type ${tag}`)
        : fail('malformed', `${where}the message type is not a number`);
  }
}

function readCompound(a: readonly unknown[]): Packet[] | undefined {
  if (!arity(a, 3, 'compound')) return undefined;
  const parts = a[2];
  if (!Array.isArray(parts)) return fail('malformed', 'compound: the parts are not an array');
  if (parts.length === 0) return fail('malformed', 'compound: no parts');
  if (parts.length > COMPOUND_PARTS_MAX) {
    return fail('invalid-field', `compound: ${parts.length} parts, at most ${COMPOUND_PARTS_MAX} allowed`);
  }
  const packets: Packet[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part: unknown = parts[i];
    const where = `compound[${i}].`;
    if (!Array.isArray(part) || part.length < 2)
      return fail('malformed', `compound[${i}]: not a packet array`);
    if (!checkVersion(part[0], where)) return undefined;
    const packet = readPacket(part, where);
    if (packet === undefined) return undefined;
    packets.push(packet);
  }
  return packets;
}

/**
 * Decodes one datagram: a single packet, or a compound of several (all of whose parts must be valid:
 * the datagram is dropped whole otherwise, and counted once). Never throws.
 *
 * @example
 * ```ts
 * const result = decodeDatagram(bytes);
 * if (result.ok) for (const packet of result.packets) core.handlePacket(fromAddress, packet);
 * else countDrop(drops, result.reason);
 * ```
 */
export function decodeDatagram(bytes: Uint8Array): DatagramResult {
  try {
    const a = unpackDatagram(bytes);
    if (a === undefined || !checkVersion(a[0], '')) return failed();
    if (a[1] === MessageTag.compound) {
      const packets = readCompound(a);
      return packets === undefined ? failed() : { ok: true, packets };
    }
    const packet = readPacket(a, '');
    return packet === undefined ? failed() : { ok: true, packets: [packet] };
  } catch (error) {
    // Unreachable for bytes from a socket (every read above is guarded); kept so that a bug here drops a
    // packet instead of crashing the socket handler. The property tests fail on any detail starting with
    // "internal"; a Uint8Array whose length throws stands in for such a bug in decode-datagram.test.ts.
    return reject('malformed', `internal error: ${String(error)}`);
  }
}

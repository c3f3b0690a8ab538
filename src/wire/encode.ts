/**
 * The encoder: protocol messages to MessagePack bytes. Every record is a MessagePack array of its fields,
 * in the order the core's message sizes count them, so the core can fill a datagram to its budget
 * without encoding anything: `encodePacket(p).length === packetBytes(p)` for every valid packet, and a
 * push-pull is exactly `pushPullBaseBytes + Σ snapshotEntryBytes` long (both checked by property tests).
 *
 * One reusable msgpackr `Packr` in plain MessagePack mode does the writing. `useRecords: false` is what
 * makes integers below 128 one byte (with records enabled, msgpackr writes 32 to 127 as two); integers
 * are always minimal unsigned ints (never floats, since only integers pass validation), strings take the
 * smallest header for their UTF-8 length, byte arrays are `bin`, booleans `true`/`false`; `moreTypes` and
 * `structuredClone` stay off so no extension type is ever written.
 *
 * Every message is validated before it is written, and an invalid one throws an
 * {@link InvalidArgumentError} naming the field: a receiver would drop it anyway, and failing at the
 * sender is where the mistake can be found.
 */
import { Packr } from 'msgpackr';
import { InvalidArgumentError } from '../errors.js';
import type { Heartbeat } from '../heartbeat/messages.js';
import type { MemberList, Packet, StreamMessage, Update } from '../swim/messages.js';
import { JOIN_REFUSAL_CODES } from '../swim/refusal.js';
import { DATAGRAM_BYTES_MAX } from './limits.js';
import { MessageTag, UpdateTag, WIRE_VERSION } from './tags.js';
import { heartbeatProblem, packetProblem, streamMessageProblem } from './validate.js';

const packr = new Packr({
  useRecords: false,
  moreTypes: false,
  structuredClone: false,
  bundleStrings: false,
  variableMapSize: true,
  useFloat32: 0,
});

// msgpackr keeps one module-wide write buffer and grows it for a large message; packets written after a
// large state exchange would all be views of that big buffer. Past this size it is replaced.
const LARGE_BODY_BYTES = 64 * 1024;
const FRESH_BUFFER_BYTES = 8192;

function updateFields(u: Update): unknown[] {
  switch (u.kind) {
    case 'alive':
      return [UpdateTag.alive, u.name, u.address, u.incarnation, u.meta];
    case 'suspect':
      return u.refused
        ? [UpdateTag.suspect, u.name, u.incarnation, u.from, true]
        : [UpdateTag.suspect, u.name, u.incarnation, u.from];
    case 'dead':
      return [UpdateTag.dead, u.name, u.incarnation, u.from];
    case 'user':
      return [UpdateTag.user, u.origin, u.seq, u.payload];
    case 'busy':
      return [UpdateTag.busy, u.name, u.seq];
  }
}

/**
 * The MessagePack array of a valid packet, as {@link encodePacket} writes it, unvalidated. Also the raw
 * layout the fuzz (bench/fuzz/) rearranges into packets no encoder would write.
 */
export function packetFields(p: Packet): unknown[] {
  const source = p.updates;
  const updates: unknown[] = new Array(source.length);
  for (let i = 0; i < source.length; i++) updates[i] = updateFields(source[i]!);
  switch (p.type) {
    case 'ping':
      return [WIRE_VERSION, MessageTag.ping, p.seq, p.from, p.target, updates];
    case 'ping-req':
      return [WIRE_VERSION, MessageTag.pingReq, p.seq, p.from, p.target, p.targetAddress, p.nack, updates];
    case 'ack':
      return [WIRE_VERSION, MessageTag.ack, p.seq, p.from, updates];
    case 'nack':
      return [WIRE_VERSION, MessageTag.nack, p.seq, p.from, updates];
    case 'gossip':
      return [WIRE_VERSION, MessageTag.gossip, p.from, updates];
    case 'user':
      return [WIRE_VERSION, MessageTag.user, p.from, p.payload, updates];
    case 'conflict':
      return [WIRE_VERSION, MessageTag.conflict, p.from, p.name, p.holderAddress, p.otherAddress, updates];
    case 'name-query':
      return [WIRE_VERSION, MessageTag.nameQuery, p.from, p.name, updates];
  }
}

function memberFields(m: MemberList): unknown[] {
  const { names, addresses, incarnations, states, metas } = m;
  const members: unknown[] = new Array(names.length);
  for (let i = 0; i < names.length; i++) {
    members[i] = [states[i], names[i], addresses[i], incarnations[i], metas[i]];
  }
  return members;
}

/** The MessagePack array of a valid stream message, as {@link encodeStream} writes it. */
function streamFields(message: StreamMessage): unknown[] {
  if (message.type === 'refuse') {
    const code = JOIN_REFUSAL_CODES.indexOf(message.code);
    const fields = [WIRE_VERSION, MessageTag.refuse, message.from, code, message.reason];
    if (message.label !== undefined) fields.push(message.label);
    return fields;
  }
  if (message.type !== 'push-pull') return packetFields(message);
  const fields: unknown[] = [
    WIRE_VERSION,
    MessageTag.pushPull,
    message.from,
    message.join,
    message.reply,
    memberFields(message.members),
  ];
  // Only when there is some: without it the record is byte for byte the one a decoder of six elements reads.
  if (message.state !== undefined && message.state.length > 0) fields.push(message.state);
  return fields;
}

/**
 * Encodes one packet as one datagram.
 *
 * The result may be a view of a buffer msgpackr shares among encodings; its bytes are never written
 * again, but it keeps that buffer (8 KiB) alive: copy it if you keep it for long.
 *
 * @throws {@link InvalidArgumentError} when a field is out of its range (see `limits.ts`) or the packet
 *   would be longer than {@link DATAGRAM_BYTES_MAX}.
 *
 * @example
 * ```ts
 * const bytes = encodePacket({ type: 'ack', seq: 7, from: 'n1', updates: [] });
 * socket.send(bytes, port, host);
 * ```
 */
export function encodePacket(packet: Packet): Uint8Array {
  const problem = packetProblem(packet);
  if (problem !== undefined) throw new InvalidArgumentError('packet', `encodePacket: ${problem}`);
  const bytes = packr.pack(packetFields(packet));
  if (bytes.length > DATAGRAM_BYTES_MAX) {
    throw new InvalidArgumentError(
      'packet',
      `encodePacket: the ${packet.type} packet takes ${bytes.length} bytes, more than a datagram holds (${DATAGRAM_BYTES_MAX})`,
    );
  }
  return bytes;
}

/**
 * Encodes a stream message (a push-pull or its refusal, or a fallback ping or ack) as the body of a stream frame; the transport adds the frame's
 * length prefix (the stream framing of docs/design.md, "Wire").
 *
 * @throws {@link InvalidArgumentError} when a field is out of its range, the member columns differ in
 *   length, or there are more than `MEMBERS_PER_PUSH_PULL_MAX` members.
 */
export function encodeStream(message: StreamMessage): Uint8Array {
  const problem = streamMessageProblem(message);
  if (problem !== undefined) throw new InvalidArgumentError('message', `encodeStream: ${problem}`);
  const bytes = packr.pack(streamFields(message));
  if (bytes.length > LARGE_BODY_BYTES) packr.useBuffer(Buffer.allocUnsafeSlow(FRESH_BUFFER_BYTES));
  return bytes;
}

/**
 * Encodes a heartbeat as one datagram, `[V, 9, from, address, incarnation, nonce, seq]`: at most 530
 * bytes (two 255-byte strings), so it never needs the size check of a packet. Like
 * {@link encodePacket}, the result may be a view of msgpackr's shared buffer.
 *
 * @throws {@link InvalidArgumentError} naming the field that is out of its range.
 */
export function encodeHeartbeat(heartbeat: Heartbeat): Uint8Array {
  const problem = heartbeatProblem(heartbeat);
  if (problem !== undefined) throw new InvalidArgumentError('heartbeat', `encodeHeartbeat: ${problem}`);
  const { from, address, incarnation, nonce, seq } = heartbeat;
  return packr.pack([WIRE_VERSION, MessageTag.heartbeat, from, address, incarnation, nonce, seq]);
}

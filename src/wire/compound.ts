/**
 * Several packets in one datagram. Packets sent to the same address in one tick (an ack and a ping-req
 * answer, say) can share a datagram: one send, one receive, fewer packets for a lossy network to drop.
 *
 * Layout: `[V, 7, [packet, packet, ...]]`, where each part is a whole packet exactly as
 * `encodePacket` writes it, version included. Keeping the inner version costs one byte per part and buys
 * coalescing by concatenation: {@link packCompound} joins packets that are already encoded, without
 * decoding or re-encoding them. The compound header is the only thing written here by hand (a 3-element
 * array header, the version, the tag, and the parts' array header: 4 bytes for up to 15 parts, 6 for
 * up to {@link COMPOUND_PARTS_MAX}); a test checks it against msgpackr's encoding of the same structure.
 * Compounds do not nest.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Packet } from '../swim/messages.js';
import { encodePacket } from './encode.js';
import { COMPOUND_PARTS_MAX, DATAGRAM_BYTES_MAX } from './limits.js';
import { MessageTag, WIRE_VERSION } from './tags.js';

/** Bytes of a compound header for `parts` parts (1 to {@link COMPOUND_PARTS_MAX}). */
export function compoundHeaderBytes(parts: number): number {
  return parts < 16 ? 4 : 6;
}

function writeHeader(target: Uint8Array, parts: number): number {
  target[0] = 0x93; // fixarray of 3
  target[1] = WIRE_VERSION; // positive fixint
  target[2] = MessageTag.compound; // positive fixint
  if (parts < 16) {
    target[3] = 0x90 | parts; // fixarray
    return 4;
  }
  target[3] = 0xdc; // array 16
  target[4] = parts >> 8;
  target[5] = parts & 0xff;
  return 6;
}

/** The compound datagram of `parts`, already encoded packets. */
function join(parts: readonly Uint8Array[]): Uint8Array {
  let length = compoundHeaderBytes(parts.length);
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = writeHeader(out, parts.length);
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Encodes `packets` as one compound datagram, whatever their number (1 to {@link COMPOUND_PARTS_MAX}).
 * To send several packets within a budget, encode them one by one and use {@link packCompound}.
 *
 * @throws `InvalidArgumentError` for an invalid packet, no packets or too many, or a datagram that would
 *   be longer than {@link DATAGRAM_BYTES_MAX}.
 */
export function encodeCompound(packets: readonly Packet[]): Uint8Array {
  if (packets.length === 0 || packets.length > COMPOUND_PARTS_MAX) {
    throw new InvalidArgumentError(
      'packets',
      `encodeCompound: 1 to ${COMPOUND_PARTS_MAX} packets, got ${packets.length}`,
    );
  }
  const bytes = join(packets.map(encodePacket));
  if (bytes.length > DATAGRAM_BYTES_MAX) {
    throw new InvalidArgumentError(
      'packets',
      `encodeCompound: ${bytes.length} bytes, more than a datagram holds (${DATAGRAM_BYTES_MAX})`,
    );
  }
  return bytes;
}

interface Group {
  readonly parts: Uint8Array[];
  /** Bytes of the parts, without the compound header. */
  bytes: number;
}

/**
 * Coalesces already encoded packets bound for one address into as few datagrams as fit `budgetBytes`
 * each, by first fit: each packet joins the first datagram with room for it. A datagram that ends up
 * with one packet is that packet's own bytes (no compound header, no copy); one with several is a
 * compound. Packets keep their relative order within each datagram, and datagrams are returned in the
 * order of their first packet. A packet that cannot share (it alone, with a compound header, exceeds the
 * budget) goes alone as it is, even if it is over the budget: it was encoded by its sender's rules, and
 * splitting it is not this function's call.
 *
 * @param encoded - packets as `encodePacket` returned them
 * @param budgetBytes - largest datagram to build, e.g. `packetBytesMax`; an integer from 7 (the smallest
 *   compound that can hold anything) to {@link DATAGRAM_BYTES_MAX}
 * @throws `InvalidArgumentError` when the budget is out of range
 *
 * @example
 * ```ts
 * for (const datagram of packCompound(queued.map(encodePacket), config.packetBytesMax)) {
 *   socket.send(datagram, port, host);
 * }
 * ```
 */
export function packCompound(encoded: readonly Uint8Array[], budgetBytes: number): Uint8Array[] {
  if (!Number.isInteger(budgetBytes) || budgetBytes < 7 || budgetBytes > DATAGRAM_BYTES_MAX) {
    throw new InvalidArgumentError(
      'budgetBytes',
      `packCompound: budgetBytes must be an integer in [7, ${DATAGRAM_BYTES_MAX}], got ${budgetBytes}`,
    );
  }
  if (encoded.length <= 1) return encoded.slice();
  const groups: Group[] = [];
  for (const packet of encoded) {
    let placed = false;
    for (const group of groups) {
      const parts = group.parts.length + 1;
      if (
        parts <= COMPOUND_PARTS_MAX &&
        compoundHeaderBytes(parts) + group.bytes + packet.length <= budgetBytes
      ) {
        group.parts.push(packet);
        group.bytes += packet.length;
        placed = true;
        break;
      }
    }
    if (!placed) groups.push({ parts: [packet], bytes: packet.length });
  }
  return groups.map((group) => (group.parts.length === 1 ? group.parts[0]! : join(group.parts)));
}

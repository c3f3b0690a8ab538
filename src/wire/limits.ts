/**
 * Bounds on everything that crosses the wire. The decoder rejects any message outside them before it
 * builds a protocol object, and the encoder refuses to produce one, so both sides agree on what is valid
 * and nothing from the network can make a member allocate or loop more than these allow.
 *
 * Names, addresses, metadata and payloads are bounded by the protocol's own limits
 * (the membership limits), imported rather than repeated so that the two cannot drift apart.
 */

/** The protocol's own bounds on names, addresses, metadata and payloads, enforced here on input. */
export {
  ADDRESS_BYTES_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from '../membership/limits.js';

/** Largest UDP payload over IPv4: 65,535 − 8 (UDP header) − 20 (IPv4 header). */
export const DATAGRAM_BYTES_MAX = 65_507;

/** Incarnations and sequence numbers are unsigned 32-bit integers: 0 to 2^32 − 1. */
export const U32_MAX = 0xffff_ffff;

/** Encoded size of the smallest possible update: `[kind, name(1 byte), 0, from(1 byte)]` = 7 bytes. */
export const UPDATE_BYTES_MIN = 7;

/**
 * Most updates one packet may carry: as many of the smallest possible update as fit in the largest
 * datagram after the smallest envelope (a gossip packet with a one-byte name and a 3-byte array header:
 * 8 bytes), ⌊(65,507 − 8) / 7⌋ = 9,357. The bound therefore never rejects a packet that the core, which
 * packs updates by size up to `packetBytesMax` ≤ 65,507, could send; it exists so that the count is
 * checked before any update is looked at.
 */
export const UPDATES_PER_PACKET_MAX = Math.floor((DATAGRAM_BYTES_MAX - 8) / UPDATE_BYTES_MIN);

/**
 * Most packets in one compound datagram: 255, memberlist's limit (it counts parts in one byte). Small
 * packets (acks, nacks) are what gets coalesced; 255 of the smallest (6 bytes) take 1.5 KiB.
 */
export const COMPOUND_PARTS_MAX = 255;

/** Longest reason of a refused state exchange, in bytes of UTF-8: a sentence, not a document. */
export const REFUSAL_REASON_BYTES_MAX = 255;

/**
 * Most members in one push-pull: 100,000, five times the largest cluster the simulator runs (20,000).
 * Whether a state exchange of that size fits a stream depends on {@link STREAM_BYTES_MAX}: at about 45
 * bytes per member without metadata, 100,000 members take 4.5 MB; with 512 bytes of metadata each, 32 MiB
 * holds about 60,000.
 */
export const MEMBERS_PER_PUSH_PULL_MAX = 100_000;

/**
 * Default largest stream message body (a push-pull), in bytes: 32 MiB. Configurable (`decodeStream`'s
 * `maxBytes`, the transport's `streamBytesMax`) and at most 2^32 − 1 (the frame's length prefix).
 * Decoding a body costs memory of a few times its size, so this bound is also the memory bound of a
 * state exchange.
 */
export const STREAM_BYTES_MAX = 32 * 1024 * 1024;

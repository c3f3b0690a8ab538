/**
 * The numbers the wire format is made of: the format version and the tags that say what a record is.
 * Every message starts with the version and a type tag; every piggybacked update with a kind tag. They
 * live in one file so that nobody renumbers them by accident.
 *
 * The enums are append-only, as memberlist's message types are: a tag, once released, keeps its number
 * and meaning forever. Never renumber, never reuse a retired number; add new tags at the end. A receiver
 * that meets a tag it does not know drops the message as `unknown-type` (or the packet as `unknown-kind`),
 * which is what lets a newer member talk to an older one. A change to the layout of an existing message
 * needs a new {@link WIRE_VERSION} instead. Tag 0 is never used, so that zeroed bytes never decode.
 */
import { LEFT } from '../membership/member-state.js';

/** Version of the envelope and of every record layout; the first element of every message. */
export const WIRE_VERSION = 1;

/**
 * Message type tags, the second element of every message (datagram or stream). Append-only: never
 * renumber.
 */
export const MessageTag = {
  /** `[V, 1, seq, from, target, updates]` */
  ping: 1,
  /** `[V, 2, seq, from, target, targetAddress, nack, updates]` */
  pingReq: 2,
  /** `[V, 3, seq, from, updates]` */
  ack: 3,
  /** `[V, 4, seq, from, updates]` */
  nack: 4,
  /** `[V, 5, from, updates]` */
  gossip: 5,
  /** `[V, 6, from, payload, updates]` */
  user: 6,
  /** `[V, 7, [packet, packet, ...]]`: several packets in one datagram; each part is a whole packet. */
  compound: 7,
  /**
   * `[V, 8, from, join, reply, members]` or `[V, 8, from, join, reply, members, state]`: state exchange,
   * over a stream only. `state`, the application's bytes (`localState`), is written only when not empty.
   * It is a trailing element rather than a new {@link WIRE_VERSION}: a member without application state
   * sends exactly the six-element record, which every release reads, whereas a new version would cut
   * every member of this release off from older ones. A decoder of the six-element layout drops a
   * record with state as `malformed` (it checks the arity), so only an application that sends state
   * needs every member on a release that reads it.
   */
  pushPull: 8,
  /**
   * `[V, 9, from, address, incarnation, nonce, seq]`: a beat of the heartbeat monitor
   * (docs/heartbeat-monitor.md), a datagram of its own: never a SWIM packet, never part of a compound.
   */
  heartbeat: 9,
  /** `[V, 10, from, code, reason]`: a refused state exchange, over a stream only; `code` indexes `JOIN_REFUSAL_CODES`. */
  refuse: 10,
  /** `[V, 11, from, name, holderAddress, otherAddress, updates]`: a name conflict's notice, or a vote. */
  conflict: 11,
  /** `[V, 12, from, name, updates]`: which address holds `name`? (a name conflict's vote). */
  nameQuery: 12,
} as const;

/** One of the {@link MessageTag} values. */
export type MessageTagValue = (typeof MessageTag)[keyof typeof MessageTag];

/** Update kind tags, the first element of every update. Append-only: never renumber. */
export const UpdateTag = {
  /** `[1, name, address, incarnation, meta]` */
  alive: 1,
  /** `[2, name, incarnation, from]` */
  suspect: 2,
  /** `[3, name, incarnation, from]` */
  dead: 3,
  /** `[4, origin, seq, payload]` */
  user: 4,
  /** `[5, name, seq]` */
  busy: 5,
} as const;

/** One of the {@link UpdateTag} values. */
export type UpdateTagValue = (typeof UpdateTag)[keyof typeof UpdateTag];

/**
 * State codes of the members of a push-pull: the codes the membership layer keeps states in (0 alive, 1 suspect,
 * 2 dead, 3 left), which are therefore wire values too and append-only like the tags above. 4 and up are
 * rejected.
 */
export const STATE_CODE_MAX = LEFT;

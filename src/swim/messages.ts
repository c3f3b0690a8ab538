/**
 * The messages of the SWIM protocol, as plain data. The wire codec (docs/design.md, "Wire") turns them into bytes;
 * the simulator passes them by reference. Members are named by their unique name; addresses are opaque
 * strings that the transport understands (`host:port` over UDP). Names and addresses are 1 to 255 bytes
 * of well-formed UTF-8, incarnations and sequence numbers unsigned 32-bit integers; the decoder drops a
 * message with any field outside its bounds (the limits of docs/design.md, "Wire"), and the encoder refuses to write one.
 */
import type { JoinRefusalCode } from './refusal.js';

/** A member announces (or someone relays) that it is alive at an incarnation, with its metadata. */
export interface AliveUpdate {
  /** Discriminant of {@link Update}. */
  readonly kind: 'alive';
  /** The member the statement is about: 1 to 255 bytes of UTF-8. */
  readonly name: string;
  /**
   * Where that member is reached (1 to 255 bytes). An alive statement that wins with a different address
   * moves the member there: it restarted elsewhere.
   */
  readonly address: string;
  /**
   * The life the statement is about, unsigned 32-bit. It overrides what a receiver holds only when higher
   * (a suspicion, a death or a left at the same incarnation stays), so a member refutes by raising it.
   */
  readonly incarnation: number;
  /** That member's metadata at this incarnation, at most 512 bytes (empty for none); it replaces the old. */
  readonly meta: Uint8Array;
}

/**
 * `from` suspects `name` at `incarnation`. With `refused`, `from` also tried a TCP connection to the
 * suspect's port and the suspect's host refused it: the process is gone while its host is up, which a
 * paused or cut-off member never shows (its socket stays open, or nothing answers at all).
 */
export interface SuspectUpdate {
  /** Discriminant of {@link Update}. */
  readonly kind: 'suspect';
  /** The suspect's name. */
  readonly name: string;
  /**
   * The life of the suspect that is suspected, unsigned 32-bit: the incarnation the accuser holds. The
   * suspect refutes with an alive statement above it.
   */
  readonly incarnation: number;
  /**
   * The accuser's name. Each distinct accuser of the same incarnation is an independent confirmation,
   * which shortens the suspicion timeout (Lifeguard).
   */
  readonly from: string;
  /** Present, and then `true`, only when `from` saw its connection to the suspect refused (see above). */
  readonly refused?: true;
}

/** `from` declares `name` dead at `incarnation`; when `from` is `name` itself, the member left. */
export interface DeadUpdate {
  /** Discriminant of {@link Update}. */
  readonly kind: 'dead';
  /** The member declared dead (or leaving). */
  readonly name: string;
  /**
   * The life that ended, unsigned 32-bit. Final for that incarnation: only an alive statement above it
   * brings the member back.
   */
  readonly incarnation: number;
  /** Who declared it: the member whose suspicion ran out, or `name` itself for a graceful leave. */
  readonly from: string;
}

/**
 * The member called `name` says that its CPU is behind (its timers fire late: docs/membership.md,
 * "Busy members"). It rides on each of its own packets while that lasts, and it is gossiped every
 * couple of seconds so that members it does not talk to learn it too. A receiver then spares it gossip,
 * asks no helpers about it and does not suspect it on a failed probe, for a few seconds from the last
 * word (`busy-peers.ts`).
 */
export interface BusyUpdate {
  /** Discriminant of {@link Update}. */
  readonly kind: 'busy';
  /** The busy member, which is the only one to issue the statement. */
  readonly name: string;
  /**
   * Its count of busy statements, unsigned 32-bit: a receiver passes one on only when it is newer than
   * the last it had from that member, so that the gossip of one statement dies out.
   */
  readonly seq: number;
}

/** An application broadcast, spread by the same gossip; `(origin, seq)` identifies it. */
export interface UserBroadcast {
  /** Discriminant of {@link Update}. */
  readonly kind: 'user';
  /** Name of the member that broadcast it; every member passes it on unchanged. */
  readonly origin: string;
  /**
   * The origin's count of its broadcasts, from 0, unsigned 32-bit (wraps). Receivers remember the last
   * 4,096 `(origin, seq)` pairs to drop the duplicates gossip brings.
   */
  readonly seq: number;
  /**
   * The application's bytes, at most 64,512, and small enough to be piggybacked within the sender's
   * `packetBytesMax`.
   */
  readonly payload: Uint8Array;
}

/** Anything that is disseminated by piggybacking. */
export type Update = AliveUpdate | SuspectUpdate | DeadUpdate | UserBroadcast | BusyUpdate;

/** Direct probe; `target` lets a member that reuses an address ignore probes meant for its predecessor. */
export interface Ping {
  /** Discriminant of {@link Packet}. */
  readonly type: 'ping';
  /**
   * The prober's sequence number, unsigned 32-bit (wraps); the ack echoes it. One counter numbers a
   * member's pings, ping-reqs and fallback pings alike.
   */
  readonly seq: number;
  /**
   * The prober's name. A member that does not know it exchanges state with the prober (at most once a
   * probe interval): the gossip of the prober's join missed it.
   */
  readonly from: string;
  /**
   * Name of the member the ping is meant for. A receiver of another name drops it unanswered (counted in
   * {@link SwimCounters.misdirectedPings}).
   */
  readonly target: string;
  /**
   * Updates piggybacked on it: the sender fills the list from its gossip queue with as many as fit
   * `packetBytesMax`. A probe of a member the prober suspects carries the suspicion first (the buddy
   * system). Often empty.
   */
  readonly updates: readonly Update[];
}

/** Asks `from`'s helper to probe `target`; with `nack`, the helper answers a nack if the target is silent. */
export interface PingReq {
  /** Discriminant of {@link Packet}. */
  readonly type: 'ping-req';
  /**
   * The asker's sequence number for this indirect round, unsigned 32-bit; the helper's ack or nack to
   * the asker echoes it (the helper's own ping of the target has a number of its own).
   */
  readonly seq: number;
  /** The asker's name. The helper answers the address the ping-req came from. */
  readonly from: string;
  /** Name of the member to probe. */
  readonly target: string;
  /** Where the asker knows the target, which the helper pings: the helper may not know it yet. */
  readonly targetAddress: string;
  /**
   * Whether the helper should answer a nack when the target stays silent (sent at 0.8 of the helper's
   * probe timeout). fdkit always asks for one; a helper asked without it sends nothing on silence.
   */
  readonly nack: boolean;
  /**
   * Updates piggybacked on it: the sender fills the list from its gossip queue with as many as fit
   * `packetBytesMax`. Often empty.
   */
  readonly updates: readonly Update[];
}

/** Answer to a ping, or relayed answer to a ping-req. */
export interface Ack {
  /** Discriminant of {@link Packet} (and of {@link StreamMessage}, for the fallback probe). */
  readonly type: 'ack';
  /** The `seq` of the ping, or of the ping-req, it answers. */
  readonly seq: number;
  /** Who sends it: the probed member for a direct ping, the helper for a relayed one. */
  readonly from: string;
  /**
   * Updates piggybacked on it: the sender fills the list from its gossip queue with as many as fit
   * `packetBytesMax`. An ack to a prober that the sender suspects or holds dead carries the accusation
   * first, so that the prober can refute at once. Often empty.
   */
  readonly updates: readonly Update[];
}

/** Lifeguard: the helper of a ping-req did not hear from the target, but is itself alive and well. */
export interface Nack {
  /** Discriminant of {@link Packet}. */
  readonly type: 'nack';
  /** The `seq` of the ping-req it answers. */
  readonly seq: number;
  /** The helper's name. */
  readonly from: string;
  /**
   * Updates piggybacked on it: the sender fills the list from its gossip queue with as many as fit
   * `packetBytesMax`. Often empty.
   */
  readonly updates: readonly Update[];
}

/**
 * Updates only, sent to `gossipNodes` random members each gossip interval while updates wait; also how a
 * member tells a peer directly of a death that peer has not heard of.
 */
export interface Gossip {
  /** Discriminant of {@link Packet}. */
  readonly type: 'gossip';
  /** The sender's name. */
  readonly from: string;
  /** The updates it carries: what waited in the sender's queue, as many as fit `packetBytesMax`. */
  readonly updates: readonly Update[];
}

/** A direct application message. */
export interface UserPacket {
  /** Discriminant of {@link Packet}. */
  readonly type: 'user';
  /** The sender's name, reported as {@link MessageEvent.from}. */
  readonly from: string;
  /** The application's bytes, at most 64,512. */
  readonly payload: Uint8Array;
  /**
   * Updates piggybacked on it: the sender fills the list from its gossip queue with as many as fit
   * `packetBytesMax` beside the payload. Often empty.
   */
  readonly updates: readonly Update[];
}

/**
 * `from` holds `name` at `holderAddress` and heard `otherAddress` claim it too: sent to both claimants of
 * a name conflict, so that each learns of it (docs/design.md, "Name conflicts"). Also the answer to a
 * {@link NameQuery}, where it is a vote for `holderAddress` (and `otherAddress` is the asker's).
 */
export interface ConflictNotice {
  /** Discriminant of {@link Packet}. */
  readonly type: 'conflict';
  /** The sender's name. */
  readonly from: string;
  /** The name both addresses claim. */
  readonly name: string;
  /** The address the sender holds the name at. */
  readonly holderAddress: string;
  /** The other address that claims it. */
  readonly otherAddress: string;
  /** Updates piggybacked on it. Often empty. */
  readonly updates: readonly Update[];
}

/**
 * A claimant of a contested name asks which address the receiver holds `name` at (the majority policy
 * of name conflicts); a receiver that holds it alive or suspect answers with a {@link ConflictNotice}.
 */
export interface NameQuery {
  /** Discriminant of {@link Packet}. */
  readonly type: 'name-query';
  /** The asker's name. */
  readonly from: string;
  /** The contested name. */
  readonly name: string;
  /** Updates piggybacked on it. Often empty. */
  readonly updates: readonly Update[];
}

/** Everything sent as one datagram. */
export type Packet = Ping | PingReq | Ack | Nack | Gossip | UserPacket | ConflictNotice | NameQuery;

/**
 * The members a full state exchange describes, one column per field (entry i of every column is one
 * member): a state exchange in a large cluster carries tens of thousands of members, and columns cost a
 * handful of allocations where an object per member would cost one each.
 */
export interface MemberList {
  /** Each member's name. */
  readonly names: readonly string[];
  /** Each member's address, as the sender knows it. */
  readonly addresses: readonly string[];
  /** Each member's incarnation, as the sender holds it. */
  readonly incarnations: Uint32Array;
  /** State codes: 0 alive, 1 suspect, 2 dead, 3 left. */
  readonly states: Uint8Array;
  /** Each member's metadata, at most 512 bytes, empty for none. */
  readonly metas: readonly Uint8Array[];
}

/** Full state exchange (anti-entropy), over a stream; `reply` marks the answer to a request. */
export interface PushPull {
  /** Discriminant of {@link StreamMessage}. */
  readonly type: 'push-pull';
  /** The sender's name. */
  readonly from: string;
  /**
   * Whether the sender is joining: an exchange with its seeds, or with a member it held dead that
   * answered a reconnection ping. Carried as memberlist carries it; the receiver treats every exchange
   * alike.
   */
  readonly join: boolean;
  /**
   * False for a request, which the receiver merges and answers with its own state; true for that answer,
   * which is merged and not answered, unless it made the requester refute (then the requester sends its
   * new state back once).
   */
  readonly reply: boolean;
  /**
   * The sender's whole view, itself included: every member it knows, alive, suspect, dead or left. At
   * most 100,000 members, and within the stream's byte limit (32 MiB by default).
   */
  readonly members: MemberList;
  /**
   * The sender's application state (its `localState` delegate's bytes), handed to the receiver's
   * `mergeRemoteState`. Absent for none; never empty when present (the wire writes it only then).
   */
  readonly state?: Uint8Array;
}

/**
 * A seed's answer to a state exchange it will not take: sent instead of its member list, so that the
 * requester's `join()` fails with the code and the reason rather than resolving while it stays alone.
 */
export interface Refuse {
  /** Discriminant of {@link StreamMessage}. */
  readonly type: 'refuse';
  /** The refusing member's name. */
  readonly from: string;
  /** Why; carried as its index in `JOIN_REFUSAL_CODES` (the codes' wire order). */
  readonly code: JoinRefusalCode;
  /** A sentence for people, 1 to 255 bytes of UTF-8. */
  readonly reason: string;
  /**
   * The refusing member's cluster label (0 to 255 bytes), present only when it could not open the
   * requester's sealed message: the label is authenticated but never sent, so this is how the requester
   * tells another label (it compares with its own) from another key. memberlist sends labels in plaintext.
   */
  readonly label?: string;
}

/**
 * Everything sent over a stream: the state exchange and its refusal, and memberlist's TCP fallback
 * probe, a {@link Ping} answered by an {@link Ack} on a stream of its own (a member whose datagrams are
 * lost, but whose TCP connections get through, is not suspected for it).
 */
export type StreamMessage = PushPull | Refuse | Ping | Ack;

/**
 * The messages of the SWIM protocol, as plain data. The wire codec (`src/wire/`) turns them into bytes;
 * the simulator passes them by reference. Members are named by their unique name; addresses are opaque
 * strings that the transport understands (`host:port` over UDP).
 */

/** A member announces (or someone relays) that it is alive at an incarnation, with its metadata. */
export interface AliveUpdate {
  readonly kind: 'alive';
  readonly name: string;
  readonly address: string;
  readonly incarnation: number;
  readonly meta: Uint8Array;
}

/**
 * `from` suspects `name` at `incarnation`. With `refused`, `from` also tried a TCP connection to the
 * suspect's port and the suspect's host refused it: the process is gone while its host is up, which a
 * paused or cut-off member never shows (its socket stays open, or nothing answers at all).
 */
export interface SuspectUpdate {
  readonly kind: 'suspect';
  readonly name: string;
  readonly incarnation: number;
  readonly from: string;
  readonly refused?: true;
}

/** `from` declares `name` dead at `incarnation`; when `from` is `name` itself, the member left. */
export interface DeadUpdate {
  readonly kind: 'dead';
  readonly name: string;
  readonly incarnation: number;
  readonly from: string;
}

/** An application broadcast, spread by the same gossip; `(origin, seq)` identifies it. */
export interface UserBroadcast {
  readonly kind: 'user';
  readonly origin: string;
  readonly seq: number;
  readonly payload: Uint8Array;
}

/** Anything that is disseminated by piggybacking. */
export type Update = AliveUpdate | SuspectUpdate | DeadUpdate | UserBroadcast;

/** Direct probe; `target` lets a member that reuses an address ignore probes meant for its predecessor. */
export interface Ping {
  readonly type: 'ping';
  readonly seq: number;
  readonly from: string;
  readonly target: string;
  readonly updates: readonly Update[];
}

/** Asks `from`'s helper to probe `target`; with `nack`, the helper answers a nack if the target is silent. */
export interface PingReq {
  readonly type: 'ping-req';
  readonly seq: number;
  readonly from: string;
  readonly target: string;
  readonly targetAddress: string;
  readonly nack: boolean;
  readonly updates: readonly Update[];
}

/** Answer to a ping, or relayed answer to a ping-req. */
export interface Ack {
  readonly type: 'ack';
  readonly seq: number;
  readonly from: string;
  readonly updates: readonly Update[];
}

/** Lifeguard: the helper of a ping-req did not hear from the target, but is itself alive and well. */
export interface Nack {
  readonly type: 'nack';
  readonly seq: number;
  readonly from: string;
  readonly updates: readonly Update[];
}

/** Updates only, sent to random members each gossip interval. */
export interface Gossip {
  readonly type: 'gossip';
  readonly from: string;
  readonly updates: readonly Update[];
}

/** A direct application message. */
export interface UserPacket {
  readonly type: 'user';
  readonly from: string;
  readonly payload: Uint8Array;
  readonly updates: readonly Update[];
}

/** Everything sent as one datagram. */
export type Packet = Ping | PingReq | Ack | Nack | Gossip | UserPacket;

/**
 * The members a full state exchange describes, one column per field (entry i of every column is one
 * member): a state exchange in a large cluster carries tens of thousands of members, and columns cost a
 * handful of allocations where an object per member would cost one each.
 */
export interface MemberList {
  readonly names: readonly string[];
  readonly addresses: readonly string[];
  readonly incarnations: Uint32Array;
  /** State codes: 0 alive, 1 suspect, 2 dead, 3 left. */
  readonly states: Uint8Array;
  readonly metas: readonly Uint8Array[];
}

/** Full state exchange (anti-entropy), over a stream; `reply` marks the answer to a request. */
export interface PushPull {
  readonly type: 'push-pull';
  readonly from: string;
  readonly join: boolean;
  readonly reply: boolean;
  readonly members: MemberList;
}

/**
 * Everything sent over a stream: the state exchange, and memberlist's TCP fallback probe, a {@link Ping}
 * answered by an {@link Ack} on a stream of its own (a member whose datagrams are lost, but whose TCP
 * connections get through, is not suspected for it).
 */
export type StreamMessage = PushPull | Ping | Ack;

/**
 * memberlist's messages as plain data (docs/memberlist-wire.md): the structs of hashicorp/memberlist's
 * `net.go`, field for field, with the names its msgpack encoding uses noted on each. Addresses are the raw
 * IP bytes (4 for IPv4, 16 for IPv6) and a port, as memberlist sends them.
 */

/** memberlist's message type bytes (`messageType` in net.go), and the label header's. */
export const MlType = {
  ping: 0,
  indirectPing: 1,
  ack: 2,
  suspect: 3,
  alive: 4,
  dead: 5,
  pushPull: 6,
  compound: 7,
  user: 8,
  compress: 9,
  encrypt: 10,
  nack: 11,
  hasCrc: 12,
  err: 13,
  hasLabel: 244,
} as const;

/** `ping`: SeqNo, Node, and the omitempty SourceAddr, SourcePort, SourceNode. */
export interface MlPing {
  readonly type: 'ping';
  readonly seqNo: number;
  /** The name of the member the ping is meant for. */
  readonly node: string;
  readonly sourceAddr?: Uint8Array;
  readonly sourcePort?: number;
  readonly sourceNode?: string;
  /**
   * fdkit's mark (the extra key `Fdkit`, which memberlist's decoder skips): present when an fdkit member
   * sent it, holding fdkit's wire version.
   */
  readonly fdkit?: number;
}

/** `indirectPingReq`: SeqNo, Target, Port, Node, Nack, and the omitempty source fields. */
export interface MlIndirectPing {
  readonly type: 'indirect-ping';
  readonly seqNo: number;
  readonly target: Uint8Array;
  readonly port: number;
  readonly node: string;
  readonly nack: boolean;
  readonly sourceAddr?: Uint8Array;
  readonly sourcePort?: number;
  readonly sourceNode?: string;
  /** fdkit's mark, as on {@link MlPing}. */
  readonly fdkit?: number;
}

/** `ackResp`: SeqNo, Payload. */
export interface MlAck {
  readonly type: 'ack';
  readonly seqNo: number;
  readonly payload: Uint8Array;
}

/** `nackResp`: SeqNo. */
export interface MlNack {
  readonly type: 'nack';
  readonly seqNo: number;
}

/** `errResp`: Error. */
export interface MlErr {
  readonly type: 'err';
  readonly error: string;
}

/** `suspect`: Incarnation, Node, From. */
export interface MlSuspect {
  readonly type: 'suspect';
  readonly incarnation: number;
  readonly node: string;
  readonly from: string;
}

/** `alive`: Incarnation, Node, Addr, Port, Meta, Vsn (pmin, pmax, pcur, dmin, dmax, dcur). */
export interface MlAlive {
  readonly type: 'alive';
  readonly incarnation: number;
  readonly node: string;
  readonly addr: Uint8Array;
  readonly port: number;
  readonly meta: Uint8Array;
  readonly vsn: Uint8Array;
}

/** `dead`: Incarnation, Node, From (From equal to Node: the member left). */
export interface MlDead {
  readonly type: 'dead';
  readonly incarnation: number;
  readonly node: string;
  readonly from: string;
}

/** A user message: the type byte, then the application's bytes as they are (no msgpack). */
export interface MlUser {
  readonly type: 'user';
  readonly payload: Uint8Array;
}

/** A message that travels in a datagram (alone, or as a part of a compound). */
export type MlPacketMessage =
  | MlPing
  | MlIndirectPing
  | MlAck
  | MlNack
  | MlSuspect
  | MlAlive
  | MlDead
  | MlUser;

/** `pushNodeState`: Name, Addr, Port, Meta, Incarnation, State, Vsn. */
export interface MlNodeState {
  readonly name: string;
  readonly addr: Uint8Array;
  readonly port: number;
  readonly meta: Uint8Array;
  readonly incarnation: number;
  readonly state: number;
  readonly vsn: Uint8Array;
}

/**
 * A push-pull: the header (`pushPullHeader`: Nodes, UserStateLen, Join), the node states, then the user
 * state's raw bytes.
 */
export interface MlPushPull {
  readonly type: 'push-pull';
  readonly join: boolean;
  readonly nodes: readonly MlNodeState[];
  readonly userState: Uint8Array;
  /** fdkit's mark in the header (extra key `Fdkit`), as on {@link MlPing}. */
  readonly fdkit?: number;
  /**
   * The sending member's name, when an fdkit member sent it (extra header key `FdkitFrom`): memberlist's
   * header does not say who sends, and the connection's source port is an ephemeral one.
   */
  readonly fdkitFrom?: string;
}

/** A message that travels on a stream connection. */
export type MlStreamMessage = MlPushPull | MlPing | MlAck | MlUser | MlErr;

/**
 * What wraps messages, both ways: the cluster label (`hasLabel` header; empty for none), the keyring
 * (first key encrypts, every key is tried to decrypt; 16, 24 or 32 bytes each), and what to add when
 * sending.
 */
export interface MlEnvelopeOptions {
  readonly label: string;
  readonly keys: readonly Uint8Array[];
  /** Compress with LZW when sending (memberlist's `EnableCompression`, on by default). */
  readonly compress: boolean;
}

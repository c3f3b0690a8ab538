/**
 * One monitored peer: who it is, which life of it is being heard, its phi detector, and the timer that
 * wakes at the next moment its state can change. Beside it, the rule that tells what a heartbeat is to
 * its sender's record: the next beat of the life being heard, the first beat of a new life (a restart),
 * or a stale datagram (reordered, duplicated, or from a life already replaced).
 */
import type { PhiAccrualDetector } from '../detector/phi-accrual.js';
import {
  type ALIVE,
  DEAD,
  type MemberStateName,
  type SUSPECT,
  stateName,
  UNKNOWN,
} from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { Heartbeat } from './messages.js';

/** A peer's state: the member states it can be in, or unknown before its first heartbeat. */
export type PeerStateCode = typeof ALIVE | typeof SUSPECT | typeof DEAD | typeof UNKNOWN;

/** A peer's state: a member state, or `unknown` before its first heartbeat. */
export type PeerStateName = Exclude<MemberStateName, 'left'> | 'unknown';

/** The name of a peer's state code. */
export function peerStateName(code: PeerStateCode): PeerStateName {
  return code === UNKNOWN ? 'unknown' : (stateName(code) as PeerStateName);
}

/** The monitor's record of one peer. Mutable, owned by the core. */
export class Peer {
  state: PeerStateCode;
  /** Whether any heartbeat of it was accepted; until then the fields of its life mean nothing. */
  heard = false;
  incarnation = 0;
  nonce = 0;
  /** The nonce of the life this one replaced: its late datagrams are stale, not yet another restart. */
  retiredNonce = -1;
  seq = 0;
  heartbeats = 0;
  /** Since when its silence counts: its last heartbeat, or when monitoring began. */
  lastHeardMs = Number.NaN;
  suspectedAtMs = Number.NaN;
  timer: Timer | undefined;
  timerDueMs = Number.POSITIVE_INFINITY;
  /** A review waits for the freeze guard to release (one per peer, however often it is asked). */
  reviewDeferred = false;
  removed = false;
  /** Its timer's callback, made once rather than at every arming. */
  readonly wake: () => void;

  /**
   * @param name - its name; for a peer given by address, the address until its first heartbeat names it
   * @param named - whether `name` is its real name
   */
  constructor(
    public name: string,
    public named: boolean,
    readonly address: string,
    readonly detector: PhiAccrualDetector,
    state: PeerStateCode,
    onWake: (peer: Peer) => void,
  ) {
    this.state = state;
    this.wake = () => onWake(this);
  }
}

/** What a heartbeat is to the record of its sender. */
export type Arrival = 'first' | 'next' | 'new-life' | 'stale';

/**
 * Classifies `heartbeat` against `peer`. A different life is a new one when its incarnation is not lower
 * (a restart, also within the same second, which only the nonce tells), or when the peer is held dead (a
 * restart on a host whose wall clock went back); otherwise it is a straggler of a past life.
 */
export function classify(peer: Peer, heartbeat: Heartbeat): Arrival {
  if (!peer.heard) return 'first';
  if (heartbeat.nonce === peer.nonce && heartbeat.incarnation === peer.incarnation) {
    return seqAfter(heartbeat.seq, peer.seq) ? 'next' : 'stale';
  }
  if (heartbeat.nonce === peer.retiredNonce) return 'stale';
  return heartbeat.incarnation >= peer.incarnation || peer.state === DEAD ? 'new-life' : 'stale';
}

/**
 * Serial number arithmetic on 32 bits (RFC 1982): `a` comes after `b` when it is ahead by less than 2^31,
 * so the sequence may wrap (after 136 years at one beat a second, or sooner at a short interval).
 */
export function seqAfter(a: number, b: number): boolean {
  const ahead = (a - b) >>> 0;
  return ahead !== 0 && ahead < 0x8000_0000;
}

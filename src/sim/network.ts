/**
 * The simulated network: per-link delay with jitter, independent and bursty loss, and partitions that
 * may be one-way. Links are not stored (that would be O(n²)): a link's base delay is derived from the
 * pair of endpoints, and bursty loss follows a Gilbert-Elliott chain per sender.
 */
import type { Random } from '../runtime/random.js';

/** How the network behaves; every delay is in milliseconds. */
export interface NetworkModel {
  /** Smallest one-way delay of any link, in ms. */
  readonly baseDelayMs: number;
  /** Links differ: each gets a fixed extra delay in [0, linkSpreadMs) ms, derived from its endpoints. */
  readonly linkSpreadMs: number;
  /** Mean of the exponential jitter added to every packet, in ms. */
  readonly jitterMs: number;
  /** Probability that a packet is lost, independently of the others, in [0, 1]. */
  readonly loss: number;
  /** Gilbert-Elliott bursty loss: chance per packet that a sender outside a burst enters one, in [0, 1]. */
  readonly burstEnter: number;
  /** The chance per packet that a sender in a burst leaves it, in [0, 1]. */
  readonly burstExit: number;
  /** The probability that a packet is lost while its sender is in a burst, in [0, 1]. */
  readonly burstLoss: number;
}

/** A LAN: sub-millisecond delays, no loss. */
export const lanNetwork: NetworkModel = Object.freeze({
  baseDelayMs: 0.2,
  linkSpreadMs: 0.3,
  jitterMs: 0.1,
  loss: 0,
  burstEnter: 0,
  burstExit: 1,
  burstLoss: 0,
});

/** Decides for each packet whether and when it arrives. */
export class SimNetwork {
  private readonly inBurst: Uint8Array;
  /** Partition group of each endpoint; packets cross between groups only where allowed. */
  private readonly group: Uint8Array;
  private blocked: ReadonlyArray<readonly [number, number]> = [];

  constructor(
    private readonly model: NetworkModel,
    endpoints: number,
    private readonly random: Random,
  ) {
    this.inBurst = new Uint8Array(endpoints);
    this.group = new Uint8Array(endpoints);
  }

  /**
   * Splits the network: `groupOf(i)` gives each endpoint's side, and `blocked` lists the (from, to) side
   * pairs whose packets are dropped; list one direction only for a one-way partition.
   */
  partition(groupOf: (endpoint: number) => number, blocked: ReadonlyArray<readonly [number, number]>): void {
    for (let i = 0; i < this.group.length; i++) this.group[i] = groupOf(i);
    this.blocked = blocked;
  }

  /** Removes every partition. */
  heal(): void {
    this.group.fill(0);
    this.blocked = [];
  }

  /** Whether `from` can currently reach `to` at all. */
  reachable(from: number, to: number): boolean {
    if (this.blocked.length === 0) return true;
    const a = this.group[from]!;
    const b = this.group[to]!;
    if (a === b) return true;
    for (const [x, y] of this.blocked) if (x === a && y === b) return false;
    return true;
  }

  /** The delay of a packet from `from` to `to`, or −1 when it is lost. */
  packetDelay(from: number, to: number): number {
    if (!this.reachable(from, to)) return -1;
    const m = this.model;
    if (m.loss > 0 && this.random.next() < m.loss) return -1;
    if (m.burstEnter > 0) {
      const bursting = this.inBurst[from] === 1;
      if (bursting ? this.random.next() < m.burstExit : this.random.next() < m.burstEnter) {
        this.inBurst[from] = bursting ? 0 : 1;
      }
      if (this.inBurst[from] === 1 && this.random.next() < m.burstLoss) return -1;
    }
    return this.streamDelay(from, to);
  }

  /**
   * How long a message on a new TCP connection takes to arrive, or −1 when it does not within `giveUpMs`:
   * the handshake (SYN, SYN-ACK) and the data segment each cross the lossy link, and a lost one is sent
   * again after Linux's retransmission timeouts (1 s for the handshake, 200 ms for data, doubling). TCP
   * is reliable, but not in time: this is what keeps a stream from being a loss-free side channel.
   */
  streamTransferDelay(from: number, to: number, giveUpMs: number): number {
    const handshake = this.handshakeDelay(from, to, giveUpMs);
    if (handshake < 0) return -1;
    const data = this.legDelay(from, to, DATA_RTO_MS, giveUpMs - handshake);
    return data < 0 ? -1 : handshake + data;
  }

  /** How long a connection takes to open (SYN there, SYN-ACK or RST back), or −1 beyond `giveUpMs`. */
  handshakeDelay(from: number, to: number, giveUpMs: number): number {
    const syn = this.legDelay(from, to, SYN_RTO_MS, giveUpMs);
    if (syn < 0) return -1;
    const answer = this.legDelay(to, from, SYN_RTO_MS, giveUpMs - syn);
    return answer < 0 ? -1 : syn + answer;
  }

  /** One segment from `from` to `to`, retransmitted on loss with a doubling timeout from `rtoMs`. */
  private legDelay(from: number, to: number, rtoMs: number, giveUpMs: number): number {
    let waitedMs = 0;
    for (let timeout = rtoMs; waitedMs <= giveUpMs; timeout *= 2) {
      const delay = this.packetDelay(from, to);
      if (delay >= 0) return waitedMs + delay <= giveUpMs ? waitedMs + delay : -1;
      waitedMs += timeout;
    }
    return -1;
  }

  /** The one-way delay of a packet that is not lost. */
  streamDelay(from: number, to: number): number {
    const m = this.model;
    return (
      m.baseDelayMs + linkExtra(from, to) * m.linkSpreadMs - m.jitterMs * Math.log(1 - this.random.next())
    );
  }
}

/** Linux's initial retransmission timeout of a SYN (RFC 6298's 1 s) and its floor for data (200 ms). */
const SYN_RTO_MS = 1000;
const DATA_RTO_MS = 200;

/** A fixed value in [0, 1) per unordered pair of endpoints (a 32-bit integer hash). */
function linkExtra(a: number, b: number): number {
  let h = Math.imul(Math.min(a, b), 0x9e3779b1) ^ Math.imul(Math.max(a, b) + 1, 0x85ebca77);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 4294967296;
}

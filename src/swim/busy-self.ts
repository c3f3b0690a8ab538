/**
 * This member's own busy signal: its protocol timers fire late when its event loop is behind (a starved
 * CPU, or the backlog after a pause). Datagrams then wait in its socket buffer, and every one that
 * arrives lengthens the wait of the next: a member that learns a crash from gossip learns it that much
 * later, and its late acks get it suspected. Lifeguard's local health score notices too, but only after
 * failed probes and missed nacks have raised it, some twenty seconds into a starvation in the simulator;
 * a late timer says it within the first few (docs/membership.md, "Busy members").
 */
import type { Clock } from '../runtime/clock.js';

/**
 * Lateness of a timer that marks this member busy: well above the jitter of a healthy event loop (timers
 * of an idle Node process fire within a millisecond or two, a minor GC takes a few), and well below a
 * probe timeout, which a member behind by that much already misses.
 */
export const BUSY_LAG_MS = 50;
/** How long one late timer keeps this member busy. */
export const BUSY_HOLD_MS = 2000;
/**
 * How long timers must keep firing late before the member says it is busy: a pause's backlog, worked off
 * at once, or a long garbage collection makes late timers at one instant only. Sparing such a member
 * would only keep from it the gossip it missed while frozen.
 */
export const BUSY_SUSTAINED_MS = 500;
/** How often a busy member numbers a new statement (each member's mark holds 5 s from its arrival). */
export const BUSY_ANNOUNCE_MS = 2000;

export class BusySelf {
  private untilMs = Number.NEGATIVE_INFINITY;
  /** When the current spell of late timers began, and when the last late timer fired. */
  private sinceMs = Number.NEGATIVE_INFINITY;
  private lastLateMs = Number.NEGATIVE_INFINITY;
  private announcedMs = Number.NEGATIVE_INFINITY;
  /** The number of the current statement (unsigned 32-bit). */
  private seqNo = 0;
  /** @param counters - where the spells are counted */
  constructor(
    private readonly clock: Clock,
    private readonly counters: { busySpells: number },
  ) {}

  /** A protocol timer due at `dueMs` fires now. */
  noteTimer(dueMs: number): void {
    const now = this.clock.now();
    if (now - dueMs <= BUSY_LAG_MS) return;
    if (now >= this.untilMs) this.sinceMs = now;
    const sustained = this.isBusy;
    this.lastLateMs = now;
    if (!sustained && this.isBusy) this.counters.busySpells++;
    this.untilMs = now + BUSY_HOLD_MS;
  }

  /**
   * Whether timers have been late for at least {@link BUSY_SUSTAINED_MS}, the last within
   * {@link BUSY_HOLD_MS}.
   */
  get isBusy(): boolean {
    return this.clock.now() < this.untilMs && this.lastLateMs - this.sinceMs >= BUSY_SUSTAINED_MS;
  }

  /** The number the statements on this member's packets carry. */
  get seq(): number {
    return this.seqNo;
  }

  /**
   * While busy, once every {@link BUSY_ANNOUNCE_MS}: a new statement number, which its packets carry and
   * members pass on once each; otherwise undefined.
   */
  announce(): number | undefined {
    if (!this.isBusy) return undefined;
    const now = this.clock.now();
    if (now - this.announcedMs < BUSY_ANNOUNCE_MS) return undefined;
    this.announcedMs = now;
    this.seqNo = (this.seqNo + 1) >>> 0;
    return this.seqNo;
  }
}

/**
 * Which other members said they are busy (their CPU behind: docs/membership.md, "Busy members"), and
 * until when this member takes their word for it. A statement holds {@link BUSY_PEER_HOLD_MS} from its
 * arrival: more than the interval at which a busy member repeats it plus the time gossip takes to bring
 * it, so that a member that stays busy stays marked, and short enough that a busy member that crashes
 * is treated as any other a few seconds later. A packet straight from the member without a statement
 * ends the mark at once: it is no longer behind.
 */
import type { Clock } from '../runtime/clock.js';

/** How long a busy statement holds at a receiver, from its arrival. */
export const BUSY_PEER_HOLD_MS = 5000;

export class BusyPeers {
  private readonly until = new Map<number, number>();
  private readonly lastSeq = new Map<number, number>();

  constructor(private readonly clock: Clock) {}

  /**
   * A statement of `id`'s, numbered `seq`, arrived (straight from it or passed on). Returns whether it is
   * newer than any before it from `id`, and so worth passing on.
   */
  statement(id: number, seq: number): boolean {
    this.until.set(id, this.clock.now() + BUSY_PEER_HOLD_MS);
    const last = this.lastSeq.get(id);
    // Serial-number order: the count wraps at 2^32.
    if (last !== undefined && ((seq - last) | 0) <= 0) return false;
    this.lastSeq.set(id, seq);
    return true;
  }

  /** A packet came straight from `id`; `said`: it carried `id`'s statement. Without one, `id` caught up. */
  heardFrom(id: number, said: boolean): void {
    if (!said) this.until.delete(id);
  }

  /** Whether `id` said it is busy, recently enough to hold. */
  isBusy(id: number): boolean {
    const until = this.until.get(id);
    if (until === undefined) return false;
    if (this.clock.now() < until) return true;
    this.until.delete(id);
    return false;
  }

  /** The members whose statements hold now. */
  busy(): number[] {
    const ids: number[] = [];
    for (const id of this.until.keys()) if (this.isBusy(id)) ids.push(id);
    return ids;
  }

  /** How many members' statements hold now. */
  get count(): number {
    let n = 0;
    for (const id of this.until.keys()) if (this.isBusy(id)) n++;
    return n;
  }

  /** `id` left the view for good: its statements go with it (the id may name another member later). */
  forget(id: number): void {
    this.until.delete(id);
    this.lastSeq.delete(id);
  }
}

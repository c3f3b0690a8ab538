/**
 * One member's view of the cluster: state and incarnation of every member it knows, in typed arrays
 * indexed by directory id (one byte and four bytes per member), plus sparse maps for what only some
 * members have (metadata, the time of a death, who declared it, the probe round trip once measured).
 * Pure data: no time, no I/O.
 */
import { ALIVE, DEAD, LEFT, type StateCode, SUSPECT, UNKNOWN } from '../membership/member-state.js';
import type { MemberSuspicion } from './core-types.js';
import type { ViewBaseline, ViewStorage } from './view-storage.js';

/** The weight of the smoothed round trip's history: each sample moves it by 1/RTT_SMOOTHING. */
const RTT_SMOOTHING = 8;

export class MemberTable {
  private readonly metadata = new Map<number, Uint8Array>();
  private readonly downSince = new Map<number, number>();
  private readonly declaredBy = new Map<number, MemberSuspicion>();
  // Whole microseconds: small integers, which a Map holds unboxed, so that updating one allocates nothing.
  private readonly rttUs = new Map<number, number>();
  private readonly counts = [0, 0, 0, 0];

  /** @param storage - the view's arrays, shared with its probe list */
  constructor(private readonly storage: ViewStorage) {}

  /** Number of known members in `state`. */
  count(state: StateCode): number {
    return this.counts[state]!;
  }

  /** Number of known members, whatever their state. */
  get known(): number {
    return this.counts[ALIVE]! + this.counts[SUSPECT]! + this.counts[DEAD]! + this.counts[LEFT]!;
  }

  isKnown(id: number): boolean {
    return this.storage.state(id) !== UNKNOWN;
  }

  /** The state code of `id`, or UNKNOWN. */
  stateOf(id: number): StateCode | typeof UNKNOWN {
    return this.storage.state(id) as StateCode | typeof UNKNOWN;
  }

  incarnationOf(id: number): number {
    return this.storage.incarnation(id);
  }

  metadataOf(id: number): Uint8Array | undefined {
    return this.metadata.get(id);
  }

  /** When `id` became dead or left, for members in those states. */
  downSinceMs(id: number): number | undefined {
    return this.downSince.get(id);
  }

  /** Who declared `id` dead, for a member held dead whose declaration this member heard. */
  declaredDeadBy(id: number): MemberSuspicion | undefined {
    return this.declaredBy.get(id);
  }

  /** Records who declared `id`, now held dead, dead; forgotten when it comes back or is forgotten. */
  setDeclaredDeadBy(id: number, accusation: MemberSuspicion): void {
    if (this.storage.state(id) === DEAD) this.declaredBy.set(id, accusation);
  }

  /** The smoothed round trip of direct probes of `id`, in ms (see `MemberInfo.rttMs`), once measured. */
  rttOf(id: number): number | undefined {
    const us = this.rttUs.get(id);
    return us === undefined ? undefined : us / 1000;
  }

  /**
   * Adds the round trip of one direct probe of `id`, a known member, to its smoothed round trip: the
   * first sample as it is, each later one with weight 1/8 (RFC 6298's smoothed RTT), in whole µs.
   */
  recordRtt(id: number, rttMs: number): void {
    if (this.storage.state(id) === UNKNOWN || !(rttMs >= 0)) return;
    const sample = Math.round(rttMs * 1000);
    const previous = this.rttUs.get(id);
    const next = previous === undefined ? sample : previous + Math.round((sample - previous) / RTT_SMOOTHING);
    this.rttUs.set(id, next);
  }

  /** The ids of members currently dead or left, with the time they went down, the longest down first. */
  downMembers(): IterableIterator<[number, number]> {
    return this.downSince.entries();
  }

  /** Sets the state and incarnation of `id`, adding it when unknown. */
  set(id: number, state: StateCode, incarnation: number, nowMs: number): void {
    this.storage.ensure(id + 1);
    const previous = this.storage.state(id);
    if (previous !== UNKNOWN) this.counts[previous]!--;
    this.counts[state]!++;
    this.storage.set(id, state, incarnation);
    const wasDown = previous === DEAD || previous === LEFT;
    if (state === DEAD || state === LEFT) {
      if (!wasDown) this.downSince.set(id, nowMs);
    } else if (wasDown) {
      this.downSince.delete(id);
    }
    if (previous === DEAD && state !== DEAD) this.declaredBy.delete(id);
  }

  /** Removes `id` from the view: it becomes unknown, as if never heard of. */
  forget(id: number): void {
    const previous = this.storage.state(id);
    if (previous === UNKNOWN) return;
    this.counts[previous]!--;
    this.storage.set(id, UNKNOWN, 0);
    this.downSince.delete(id);
    this.metadata.delete(id);
    this.declaredBy.delete(id);
    this.rttUs.delete(id);
  }

  /**
   * Marks every unknown id below `size` alive at `incarnation`, except the ids in `excluded` (sorted
   * ascending), in tight loops rather than a call per member: the simulator's warm start of 10,000 views
   * of 10,000 members.
   */
  assumeAlive(size: number, incarnation: number, excluded: readonly number[]): void {
    const storage = this.storage;
    storage.ensure(size);
    let added = 0;
    let from = 0;
    for (let e = 0; e <= excluded.length; e++) {
      const to = Math.min(size, e < excluded.length ? excluded[e]! : size);
      for (let id = from; id < to; id++) {
        if (storage.state(id) !== UNKNOWN) continue;
        storage.set(id, ALIVE, incarnation);
        added++;
      }
      from = to + 1;
    }
    this.counts[ALIVE]! += added;
  }

  /**
   * Starts an empty table from `baseline`, shared copy-on-write (see `view-storage.ts`): every id below
   * its size alive at its incarnation and listed for probing, except the ids in `excluded`, which stay
   * unknown and unlisted.
   */
  adoptBaseline(baseline: ViewBaseline, excluded: readonly number[]): void {
    if (this.known !== 0 || baseline.state !== ALIVE) {
      throw new Error('MemberTable.adoptBaseline: the table must be empty and the baseline alive');
    }
    const storage = this.storage;
    storage.adopt(baseline);
    let added = baseline.size;
    for (const id of excluded) {
      if (id >= baseline.size || storage.state(id) === UNKNOWN) continue;
      storage.set(id, UNKNOWN, 0);
      storage.setListed(id, false);
      added--;
    }
    this.counts[ALIVE]! += added;
  }

  setMetadata(id: number, meta: Uint8Array): void {
    if (meta.length === 0) this.metadata.delete(id);
    else this.metadata.set(id, meta);
  }
}

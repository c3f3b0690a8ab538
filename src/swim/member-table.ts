/**
 * One member's view of the cluster: state and incarnation of every member it knows, in typed arrays
 * indexed by directory id (one byte and four bytes per member), plus sparse maps for what only some
 * members have (metadata, the time of a death). Pure data: no time, no I/O.
 */
import { ALIVE, DEAD, LEFT, type StateCode, SUSPECT, UNKNOWN } from './member-state.js';

const INITIAL_CAPACITY = 16;

export class MemberTable {
  private states = new Uint8Array(INITIAL_CAPACITY).fill(UNKNOWN);
  private incarnations = new Uint32Array(INITIAL_CAPACITY);
  private readonly metadata = new Map<number, Uint8Array>();
  private readonly downSince = new Map<number, number>();
  private readonly counts = [0, 0, 0, 0];

  /** Number of known members in `state`. */
  count(state: StateCode): number {
    return this.counts[state]!;
  }

  /** Number of known members, whatever their state. */
  get known(): number {
    return this.counts[ALIVE]! + this.counts[SUSPECT]! + this.counts[DEAD]! + this.counts[LEFT]!;
  }

  isKnown(id: number): boolean {
    return id < this.states.length && this.states[id] !== UNKNOWN;
  }

  /** The state code of `id`, or UNKNOWN. */
  stateOf(id: number): StateCode | typeof UNKNOWN {
    return id < this.states.length ? (this.states[id] as StateCode | typeof UNKNOWN) : UNKNOWN;
  }

  incarnationOf(id: number): number {
    return id < this.incarnations.length ? this.incarnations[id]! : 0;
  }

  metadataOf(id: number): Uint8Array | undefined {
    return this.metadata.get(id);
  }

  /** When `id` became dead or left, for members in those states. */
  downSinceMs(id: number): number | undefined {
    return this.downSince.get(id);
  }

  /** The ids of members currently dead or left, with the time they went down. */
  downMembers(): IterableIterator<[number, number]> {
    return this.downSince.entries();
  }

  /** Sets the state and incarnation of `id`, adding it when unknown. */
  set(id: number, state: StateCode, incarnation: number, nowMs: number): void {
    this.ensureCapacity(id);
    const previous = this.states[id]!;
    if (previous !== UNKNOWN) this.counts[previous]!--;
    this.counts[state]!++;
    this.states[id] = state;
    this.incarnations[id] = incarnation;
    if (state === DEAD || state === LEFT) {
      if (previous !== DEAD && previous !== LEFT) this.downSince.set(id, nowMs);
    } else {
      this.downSince.delete(id);
    }
  }

  setMetadata(id: number, meta: Uint8Array): void {
    if (meta.length === 0) this.metadata.delete(id);
    else this.metadata.set(id, meta);
  }

  private ensureCapacity(id: number): void {
    if (id < this.states.length) return;
    let capacity = this.states.length * 2;
    while (capacity <= id) capacity *= 2;
    const states = new Uint8Array(capacity).fill(UNKNOWN);
    states.set(this.states);
    const incarnations = new Uint32Array(capacity);
    incarnations.set(this.incarnations);
    this.states = states;
    this.incarnations = incarnations;
  }
}

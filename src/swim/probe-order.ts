/**
 * Randomized round-robin probe target selection (SWIM section 4.3): members are probed in the order of a
 * shuffled list, the list is reshuffled at the end of each round, and a new member goes to a random
 * position. Every member is thus probed once per round, which bounds the time to the first probe of a
 * failed member, unlike uniform random choice. The same list serves random gossip target selection.
 */
import type { Random } from '../runtime/random.js';
import type { ViewStorage } from './view-storage.js';

/**
 * The list lives in the view's storage: `order` holds the shuffled ids (never more than one slot per
 * id) and `listed` flags the ids in it, so that adding a member already listed is a no-op.
 */
export class ProbeOrder {
  private length = 0;
  private position = 0;

  constructor(private readonly storage: ViewStorage) {}

  /** Number of members in the list. */
  get size(): number {
    return this.length;
  }

  /** Whether `id` is in the list. */
  has(id: number): boolean {
    return this.storage.isListed(id);
  }

  /**
   * Appends, unshuffled, every id below `size` that `accept` accepts and that is not listed yet:
   * for filling a whole list at once, followed by {@link ProbeOrder.shuffleRest}, which is O(n) where n
   * random insertions would cost more.
   */
  appendAll(size: number, accept: (id: number) => boolean): void {
    const storage = this.storage;
    storage.ensure(size);
    const order = storage.order;
    let length = this.length;
    for (let id = 0; id < size; id++) {
      if (storage.isListed(id) || !accept(id)) continue;
      storage.setListed(id, true);
      order[length++] = id;
    }
    this.length = length;
  }

  /**
   * Rebuilds the list, unshuffled, from the storage's flags of the ids below `size`: for a view that
   * adopted a shared baseline, whose flags are set already. Follow with {@link ProbeOrder.shuffleRest}.
   */
  listFlagged(size: number): void {
    const storage = this.storage;
    storage.ensure(size);
    const order = storage.order;
    let length = 0;
    for (let id = 0; id < size; id++) if (storage.isListed(id)) order[length++] = id;
    this.length = length;
    this.position = 0;
  }

  /** Shuffles the part of the list that the current round has not reached yet. */
  shuffleRest(random: Random): void {
    const order = this.storage.order;
    for (let i = this.length - 1; i > this.position; i--) {
      const j = this.position + Math.floor(random.next() * (i - this.position + 1));
      const t = order[i]!;
      order[i] = order[j]!;
      order[j] = t;
    }
  }

  /** Adds `id` at a random position, unless it is already listed. */
  add(id: number, random: Random): void {
    if (this.has(id)) return;
    this.storage.ensure(id + 1);
    this.storage.setListed(id, true);
    const order = this.storage.order;
    const at = random.int(this.length + 1);
    order[this.length] = order[at]!;
    order[at] = id;
    this.length++;
  }

  /**
   * The next member to probe, skipping those `probeable` rejects; at the end of a round the list is
   * reshuffled and members `keep` rejects are dropped. Returns −1 when no member is probeable.
   */
  next(random: Random, probeable: (id: number) => boolean, keep: (id: number) => boolean): number {
    // The rest of this round, then at most one whole new round: stopping after `length + 1` entries
    // would stop short of a probeable member late in the new round and leave the period unprobed. Each
    // turn moves the position on, so the search ends at the latest when the new round runs out.
    let renewed = false;
    for (;;) {
      if (this.position >= this.length) {
        if (renewed) return -1;
        this.newRound(random, keep);
        renewed = true;
      }
      if (this.length === 0) return -1;
      const id = this.storage.order[this.position++]!;
      if (probeable(id)) return id;
    }
  }

  /**
   * Up to `k` distinct random members that `accept` accepts, written to `out`; tries at most 3 × size
   * random positions, as memberlist does, so a mostly dead list cannot make it spin.
   */
  randomMembers(k: number, random: Random, accept: (id: number) => boolean, out: number[]): number[] {
    out.length = 0;
    const order = this.storage.order;
    for (let tries = 0, n = this.length; tries < 3 * n && out.length < k; tries++) {
      const id = order[random.int(n)]!;
      if (accept(id) && !out.includes(id)) out.push(id);
    }
    return out;
  }

  private newRound(random: Random, keep: (id: number) => boolean): void {
    const storage = this.storage;
    const order = storage.order;
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const id = order[i]!;
      if (keep(id)) order[kept++] = id;
      else storage.setListed(id, false);
    }
    this.length = kept;
    for (let i = kept - 1; i > 0; i--) {
      const j = random.int(i + 1);
      const t = order[i]!;
      order[i] = order[j]!;
      order[j] = t;
    }
    this.position = 0;
  }
}

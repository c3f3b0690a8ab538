/**
 * Randomized round-robin probe target selection (SWIM section 4.3): members are probed in the order of a
 * shuffled list, the list is reshuffled at the end of each round, and a new member goes to a random
 * position. Every member is thus probed once per round, which bounds the time to the first probe of a
 * failed member, unlike uniform random choice. The same list serves random gossip target selection.
 */
import type { Random } from '../runtime/random.js';

export class ProbeOrder {
  private ids = new Int32Array(16);
  private length = 0;
  private position = 0;
  // Membership flags by id, so that adding a member already in the list is a no-op.
  private listed = new Uint8Array(16);

  /** Number of members in the list. */
  get size(): number {
    return this.length;
  }

  /** Whether `id` is in the list. */
  has(id: number): boolean {
    return id < this.listed.length && this.listed[id] === 1;
  }

  /** Adds `id` at a random position, unless it is already listed. */
  add(id: number, random: Random): void {
    if (this.has(id)) return;
    if (id >= this.listed.length) {
      let size = this.listed.length * 2;
      while (size <= id) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.listed);
      this.listed = grown;
    }
    this.listed[id] = 1;
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    const at = random.int(this.length + 1);
    this.ids[this.length] = this.ids[at]!;
    this.ids[at] = id;
    this.length++;
  }

  /**
   * The next member to probe, skipping those `probeable` rejects; at the end of a round the list is
   * reshuffled and members `keep` rejects are dropped. Returns −1 when no member is probeable.
   */
  next(random: Random, probeable: (id: number) => boolean, keep: (id: number) => boolean): number {
    for (let checked = 0; checked <= this.length; checked++) {
      if (this.position >= this.length) this.newRound(random, keep);
      if (this.length === 0) return -1;
      const id = this.ids[this.position++]!;
      if (probeable(id)) return id;
    }
    return -1;
  }

  /**
   * Up to `k` distinct random members that `accept` accepts, written to `out`; tries at most 3 × size
   * random positions, as memberlist does, so a mostly dead list cannot make it spin.
   */
  randomMembers(k: number, random: Random, accept: (id: number) => boolean, out: number[]): number[] {
    out.length = 0;
    for (let tries = 0, n = this.length; tries < 3 * n && out.length < k; tries++) {
      const id = this.ids[random.int(n)]!;
      if (accept(id) && !out.includes(id)) out.push(id);
    }
    return out;
  }

  private newRound(random: Random, keep: (id: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const id = this.ids[i]!;
      if (keep(id)) this.ids[kept++] = id;
      else this.listed[id] = 0;
    }
    this.length = kept;
    for (let i = kept - 1; i > 0; i--) {
      const j = random.int(i + 1);
      const t = this.ids[i]!;
      this.ids[i] = this.ids[j]!;
      this.ids[j] = t;
    }
    this.position = 0;
  }
}

/**
 * What a member keeps of the members it forgot, in constant memory: names hashed into a fixed number of
 * buckets, and per bucket the highest incarnation at which a member of that bucket was held dead or left
 * when it was forgotten. Any life of a forgotten member is at or below its bucket's ceiling, so a
 * statement that a member the view does not know is alive at or below the ceiling may be old news of a
 * life that ended; `tombstones.ts` does not believe it. Sharing a bucket only makes a new member with a
 * low incarnation refute once (an over-estimate, never an under-estimate). Pure data: no time, no I/O.
 */

/** Buckets of names: 2 KiB once the first member is forgotten, nothing before. */
export const FORGOTTEN_BUCKETS = 256;

export class ForgottenLives {
  // Allocated on the first forgotten member: most views (every simulated one) never forget anyone.
  private ceilings: Float64Array | undefined;

  /** Records that a member called `name` was forgotten while held dead or left at `incarnation`. */
  note(name: string, incarnation: number): void {
    if (this.ceilings === undefined) this.ceilings = new Float64Array(FORGOTTEN_BUCKETS).fill(-1);
    const bucket = bucketOf(name);
    if (incarnation > this.ceilings[bucket]!) this.ceilings[bucket] = incarnation;
  }

  /** The highest incarnation a forgotten life of `name` may have had, or −1 when none. */
  ceilingOf(name: string): number {
    return this.ceilings === undefined ? -1 : this.ceilings[bucketOf(name)]!;
  }
}

/** FNV-1a over the UTF-16 code units of `name`, reduced to a bucket. */
function bucketOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % FORGOTTEN_BUCKETS;
}

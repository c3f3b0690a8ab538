/**
 * The dissemination queue of infection-style gossip (SWIM section 4.1; memberlist's
 * `TransmitLimitedQueue`): updates wait here to be piggybacked on outgoing packets. The least-sent update
 * goes first, the newest first among equals; each is sent at most `retransmitLimit` times; a newer update
 * about the same member replaces the older ones, except those the caller asks to keep beside it (another
 * member's confirmation of the same suspicion, which carries evidence of its own).
 *
 * Updates are kept in one bucket per transmit count, so taking the least-sent is O(1) per update taken
 * instead of a scan or a sort. Entries that move on leave a stale slot behind, which is swept when stale
 * slots outnumber live ones.
 */

interface Entry<T> {
  /** Insertion order: a higher id is a newer update. */
  readonly id: number;
  readonly key: number | undefined;
  readonly item: T;
  readonly bytes: number;
  transmits: number;
  live: boolean;
  /** An older live entry under the same key, kept beside this one. */
  older: Entry<T> | undefined;
}

/** Entries that do not fit are skipped; after this many skips a take gives up on finding a smaller one. */
const MAX_SKIPS = 64;

export class BroadcastQueue<T> {
  private readonly buckets: Entry<T>[][] = [];
  private readonly stale: number[] = [];
  // Live entries per bucket, so that a take passes over empty buckets without touching them: in a large
  // cluster every member's queue is cold in memory, and each bucket visited is a cache miss.
  private liveIn = new Int32Array(16);
  private readonly byKey = new Map<number, Entry<T>>();
  private readonly moved: Entry<T>[] = [];
  private count = 0;
  private nextId = 0;

  /** @param bytesOf - encoded size of an item, charged against the packet budget */
  constructor(private readonly bytesOf: (item: T) => number) {}

  /** Number of updates waiting. */
  get length(): number {
    return this.count;
  }

  /** Whether an update with this key is waiting. */
  has(key: number): boolean {
    return this.byKey.has(key);
  }

  /**
   * Queues `item`. When `key` is given, the earlier updates with the same key (about the same member) are
   * dropped, since only the newest statement about a member is worth sending, except those for which
   * `keeps` answers true: they stay queued beside the new one.
   */
  enqueue(item: T, key?: number, keeps?: (older: T) => boolean): void {
    let kept: Entry<T> | undefined;
    if (key !== undefined) {
      let older = this.byKey.get(key);
      // Detached first, so that dropping an entry below does not walk the chain being rebuilt.
      this.byKey.delete(key);
      let last: Entry<T> | undefined;
      while (older !== undefined) {
        const next = older.older;
        if (keeps?.(older.item) === true) {
          older.older = undefined;
          if (last === undefined) kept = older;
          else last.older = older;
          last = older;
        } else {
          this.drop(older);
        }
        older = next;
      }
    }
    const entry: Entry<T> = {
      id: this.nextId++,
      key,
      item,
      bytes: this.bytesOf(item),
      transmits: 0,
      live: true,
      older: kept,
    };
    if (key !== undefined) this.byKey.set(key, entry);
    this.bucket(0).push(entry);
    this.liveIn[0]!++;
    this.count++;
  }

  /**
   * Appends to `out` the least-sent updates that fit in `bytesAvailable`, each costing its size plus
   * `overheadBytes`, and counts one transmission for each; an update sent `retransmitLimit` times leaves
   * the queue. No update is taken twice in one call. Returns the bytes used.
   */
  take(bytesAvailable: number, overheadBytes: number, retransmitLimit: number, out: T[]): number {
    let used = 0;
    let skips = 0;
    const moved = this.moved;
    const liveIn = this.liveIn;
    outer: for (let b = 0; b < this.buckets.length; b++) {
      if (liveIn[b] === 0) continue;
      const bucket = this.buckets[b]!;
      for (let i = bucket.length - 1; i >= 0; i--) {
        if (used + overheadBytes >= bytesAvailable || skips >= MAX_SKIPS) break outer;
        const entry = bucket[i]!;
        const last = i === bucket.length - 1;
        if (!entry.live || entry.transmits !== b) {
          if (last) {
            bucket.pop();
            this.stale[b]!--;
          }
          continue;
        }
        const cost = entry.bytes + overheadBytes;
        if (used + cost > bytesAvailable) {
          skips++;
          continue;
        }
        used += cost;
        out.push(entry.item);
        if (last) bucket.pop();
        else this.stale[b]!++;
        liveIn[b]!--;
        entry.transmits++;
        if (entry.transmits >= retransmitLimit) this.retire(entry);
        else moved.push(entry);
      }
      if (liveIn[b] === 0) this.empty(b);
      else this.compactIfStale(b);
    }
    // Re-queued after the scan, so that nothing is taken twice; oldest first (the scan took them newest
    // first), so that each one usually lands on top without a search.
    for (let i = moved.length - 1; i >= 0; i--) {
      const entry = moved[i]!;
      this.insertByAge(this.bucket(entry.transmits), entry);
      this.liveIn[entry.transmits]!++;
    }
    moved.length = 0;
    return used;
  }

  /** Drops every waiting update for which `drops` answers true; returns how many. */
  dropWhere(drops: (item: T) => boolean): number {
    const doomed: Entry<T>[] = [];
    for (const [b, bucket] of this.buckets.entries()) {
      for (const entry of bucket)
        if (entry.live && entry.transmits === b && drops(entry.item)) doomed.push(entry);
    }
    // Dropped after the scan: a drop may sweep the bucket being scanned.
    for (const entry of doomed) this.drop(entry);
    return doomed.length;
  }

  /** Drops every update. */
  clear(): void {
    this.buckets.length = 0;
    this.stale.length = 0;
    this.byKey.clear();
    this.liveIn.fill(0);
    this.count = 0;
  }

  private bucket(transmits: number): Entry<T>[] {
    while (this.buckets.length <= transmits) {
      this.buckets.push([]);
      this.stale.push(0);
    }
    if (transmits >= this.liveIn.length) {
      const grown = new Int32Array(2 * (transmits + 1));
      grown.set(this.liveIn);
      this.liveIn = grown;
    }
    return this.buckets[transmits]!;
  }

  /** Forgets a bucket's stale slots once it holds no live entry. */
  private empty(b: number): void {
    this.buckets[b]!.length = 0;
    this.stale[b] = 0;
  }

  /**
   * Puts `entry` where its age belongs, so that every bucket stays ordered oldest to newest (stale slots
   * included, as they keep their ids) and the newest is taken first. A binary search finds the place.
   */
  private insertByAge(bucket: Entry<T>[], entry: Entry<T>): void {
    const n = bucket.length;
    if (n === 0 || bucket[n - 1]!.id < entry.id) {
      bucket.push(entry);
      return;
    }
    let lo = 0;
    let hi = n - 1; // bucket[hi].id > entry.id
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bucket[mid]!.id > entry.id) hi = mid;
      else lo = mid + 1;
    }
    // Shifted by hand: splice would allocate the array of removed elements on every call.
    bucket.push(entry);
    for (let i = n; i > lo; i--) bucket[i] = bucket[i - 1]!;
    bucket[lo] = entry;
  }

  /** Removes a queued entry: it leaves a stale slot in its bucket. */
  private drop(entry: Entry<T>): void {
    if (!entry.live) return;
    const b = entry.transmits;
    this.retire(entry);
    if (--this.liveIn[b]! === 0) this.empty(b);
    else {
      this.stale[b]!++;
      this.compactIfStale(b);
    }
  }

  /** Marks an entry gone without touching any bucket (the caller already took it out of one). */
  private retire(entry: Entry<T>): void {
    entry.live = false;
    this.count--;
    if (entry.key !== undefined) this.unlink(entry.key, entry);
  }

  /** Takes `entry` out of the chain of live entries under `key`, if it is there. */
  private unlink(key: number, entry: Entry<T>): void {
    let newer = this.byKey.get(key);
    if (newer === entry) {
      if (entry.older === undefined) this.byKey.delete(key);
      else this.byKey.set(key, entry.older);
    } else {
      while (newer !== undefined && newer.older !== entry) newer = newer.older;
      if (newer !== undefined) newer.older = entry.older;
    }
    entry.older = undefined;
  }

  private compactIfStale(b: number): void {
    const bucket = this.buckets[b]!;
    // Stale slots are skipped on every scan: sweep once they are a quarter of the bucket.
    if (this.stale[b]! * 4 <= bucket.length) return;
    let kept = 0;
    for (const entry of bucket) if (entry.live && entry.transmits === b) bucket[kept++] = entry;
    bucket.length = kept;
    this.stale[b] = 0;
  }
}

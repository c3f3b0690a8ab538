/**
 * A fixed-capacity window of the most recent samples with running sums, so that the mean and the standard
 * deviation cost O(1) per sample and per query, with no allocation after construction.
 *
 * Running sums of floating-point samples drift as samples are added and evicted; the sums are recomputed
 * from the buffer once per 64 × `capacity` evictions, which keeps the error bounded at an amortized cost
 * far below one operation per sample, and the mean is clamped at 0 (samples are never negative) so that a
 * residue cannot make it negative. With whole-millisecond samples (as Akka records them) every sum is
 * exact and the recomputation changes nothing.
 */
export class IntervalWindow {
  // Starts small and doubles up to `capacity`: a detector that hears little costs little, which matters
  // when every member of a 10,000-member simulation keeps a detector per peer it hears from.
  private samples: Float64Array;
  // Index of the oldest sample. It moves only once the window is full (replaceOldest), and clear() puts
  // it back to 0, so until the window is full the samples lie in order from index 0.
  private head = 0;
  private count = 0;
  private sum = 0;
  private sumOfSquares = 0;
  private evictionsSinceRecompute = 0;

  constructor(readonly capacity: number) {
    this.samples = new Float64Array(Math.min(capacity, 8));
  }

  /** Number of samples held. */
  get size(): number {
    return this.count;
  }

  /** Mean of the samples (non-negative samples only); NaN when empty. */
  get mean(): number {
    return Math.max(0, this.sum / this.count);
  }

  /** Population variance (Akka's `E[x²] − E[x]²`), clamped at 0 against rounding; NaN when empty. */
  get variance(): number {
    return this.varianceAround(this.mean);
  }

  /** The variance given the mean, for callers that have just computed it. */
  varianceAround(mean: number): number {
    return Math.max(0, this.sumOfSquares / this.count - mean * mean);
  }

  /** The oldest sample; NaN when empty. */
  get oldest(): number {
    return this.count === 0 ? Number.NaN : this.samples[this.head]!;
  }

  /** Appends a sample, evicting the oldest one when full. */
  push(sample: number): void {
    if (this.count === this.capacity) {
      this.replaceOldest(sample);
      return;
    }
    if (this.count === this.samples.length) this.grow();
    this.samples[this.count] = sample; // not full, so head is 0
    this.count++;
    this.sum += sample;
    this.sumOfSquares += sample * sample;
  }

  /** Removes every sample. */
  clear(): void {
    this.head = 0;
    this.count = 0;
    this.sum = 0;
    this.sumOfSquares = 0;
    this.evictionsSinceRecompute = 0;
  }

  private replaceOldest(sample: number): void {
    const old = this.samples[this.head]!;
    this.samples[this.head] = sample;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    this.sum += sample - old;
    this.sumOfSquares += sample * sample - old * old;
    if (++this.evictionsSinceRecompute === this.capacity * 64) this.recomputeSums();
  }

  /** Doubles the buffer, up to `capacity`; called when it is full and the window is not (so head is 0). */
  private grow(): void {
    const grown = new Float64Array(Math.min(this.capacity, this.samples.length * 2));
    grown.set(this.samples);
    this.samples = grown;
  }

  private recomputeSums(): void {
    const samples = this.samples;
    const n = this.count;
    let sum = 0;
    let sumOfSquares = 0;
    for (let i = 0; i < n; i++) {
      const x = samples[i]!;
      sum += x;
      sumOfSquares += x * x;
    }
    this.sum = sum;
    this.sumOfSquares = sumOfSquares;
    this.evictionsSinceRecompute = 0;
  }
}

/**
 * Seeded pseudo-random numbers: xoshiro128** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018), with its state filled by splitmix32 from the seed. 32-bit arithmetic only, so it is
 * fast on V8 and gives the same sequence on every platform. Not for cryptography.
 */
import { InvalidArgumentError } from '../errors.js';

const TWO_POW_32 = 4294967296;

/**
 * A deterministic random source: the same seed always yields the same sequence.
 *
 * @example
 * ```ts
 * const rng = new Random(42);
 * rng.next();   // a float in [0, 1)
 * rng.int(6);   // an integer in [0, 6)
 * ```
 */
export class Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  /** The seed this generator was created from. */
  readonly seed: number;

  /** @param seed - any safe integer; print it on failure so that the run can be replayed. */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) {
      throw new InvalidArgumentError('seed', `Random: seed must be a safe integer, got ${seed}`);
    }
    this.seed = seed;
    // Mix both halves of the seed so that seeds differing only above bit 31 give different streams.
    let x = (seed >>> 0) ^ Math.imul(Math.floor(seed / TWO_POW_32) | 0, 0x9e3779b9);
    const split = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) | 0;
    };
    this.s0 = split();
    this.s1 = split();
    this.s2 = split();
    this.s3 = split();
  }

  /** The next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9);
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result >>> 0;
  }

  /** A float uniformly distributed in [0, 1), with 32 bits of resolution. */
  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** An integer uniformly distributed in [0, n); `n` must be a positive integer up to 2^32. */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > TWO_POW_32) {
      throw new InvalidArgumentError('n', `Random.int: n must be an integer in [1, 2^32], got ${n}`);
    }
    return Math.floor(this.next() * n);
  }

  /** A normally distributed float (Box-Muller; one of the pair is discarded to keep no hidden state). */
  normal(mean: number, stdDeviation: number): number {
    const u = 1 - this.next(); // (0, 1], so the logarithm stays finite
    const v = this.next();
    return mean + stdDeviation * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

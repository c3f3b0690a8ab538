/** A seeded random source that counts the numbers drawn from it, for the gossiper's and probe order's tests. */
import { Random } from '../../src/runtime/random.js';

export class CountingRandom extends Random {
  /** Numbers drawn so far (`int` draws one through `next`). */
  drawn = 0;

  override next(): number {
    this.drawn++;
    return super.next();
  }
}

/**
 * Which seeds of the current join have answered: with their state (accepted) or with a refusal. The
 * runtime's `join()` waits on these answers, so that a seed that turned the joiner away makes the join
 * fail with its reason instead of resolving while the joiner stays alone.
 *
 * An answer names no request: a seed answers from the address it advertises, which is not always the
 * address it was joined at (a host name, a NAT). An answer from a waiting seed's own address is that
 * seed's; any other answer to a join (a reply flagged `join`, or a refusal) is attributed to the first
 * seed still waiting, which keeps the count of answers right even when the attribution is a guess.
 */
import type { Refusal } from './refusal.js';

/** A seed's answer to this member's join. */
export interface SeedAnswer {
  /** The seed, as given to `join`. */
  readonly seed: string;
  /** Why the seed refused the joiner; undefined when it sent its state. */
  readonly refusal: Refusal | undefined;
}

export class JoinAttempt {
  private readonly waiting: string[];

  constructor(
    seeds: readonly string[],
    private readonly onAnswer: (answer: SeedAnswer) => void,
  ) {
    this.waiting = [...new Set(seeds)];
  }

  /** Whether every seed has answered. */
  get done(): boolean {
    return this.waiting.length === 0;
  }

  /**
   * An answer from `address`; `toJoin`: it answers a join for sure (a refusal, or a reply flagged as
   * one), so it counts even from an address that is no seed's.
   */
  answered(address: string, toJoin: boolean, refusal: Refusal | undefined): void {
    let index = this.waiting.indexOf(address);
    if (index < 0 && toJoin) index = 0;
    if (index < 0 || index >= this.waiting.length) return;
    const [seed] = this.waiting.splice(index, 1);
    this.onAnswer({ seed: seed!, refusal });
  }
}

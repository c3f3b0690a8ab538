import { InvalidArgumentError } from '../errors.js';

/**
 * Lifeguard's local health awareness (Dadgar, Phillips and Currey, 2018, section IV-A; memberlist's
 * `awareness.go`). A member that misses nacks, fails probes or has to refute suspicions of itself is more
 * likely to be the slow one than everyone else is; it raises its score and stretches its probe interval
 * and timeout by (score + 1), so it accuses others less readily while it is unhealthy.
 */
export class Awareness {
  private current = 0;

  /** @param maxMultiplier - the largest multiplier; the score ranges over [0, maxMultiplier − 1] */
  constructor(private readonly maxMultiplier: number) {}

  /** The health score: 0 is healthy. */
  get score(): number {
    return this.current;
  }

  /** Adds `delta` to the score, clamped to its range. */
  apply(delta: number): void {
    this.current = Math.min(this.maxMultiplier - 1, Math.max(0, this.current + delta));
  }

  /**
   * A caller's report that its own process is struggling: raises the score by `severity` (at least 1,
   * fractions dropped). `owner` names the caller's class in the error a bad severity throws.
   */
  reportStress(owner: string, severity: number): void {
    if (!Number.isFinite(severity) || severity < 1) {
      throw new InvalidArgumentError(
        'severity',
        `${owner}: reportLocalStress severity must be >= 1, got ${severity}`,
      );
    }
    this.apply(Math.floor(severity));
  }

  /** `durationMs` stretched by the current multiplier (score + 1). */
  scale(durationMs: number): number {
    return durationMs * (this.current + 1);
  }
}

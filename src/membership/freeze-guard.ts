/**
 * The freeze guard: a member that was frozen (a long GC pause, SIGSTOP, a starved VM) wakes up with its
 * timers long overdue. They fire before it reads the packets that waited in its socket buffer, so every
 * probe in flight looks failed and every suspicion it held looks unrefuted, although the refutations may
 * be sitting in that buffer. Lifeguard lowers such a member's confidence in itself; fdkit also stops it
 * from convicting anyone on what it knew before the freeze.
 *
 * A timer that fires more than a probe timeout after its due time trips the guard. Until this member has
 * completed a probe sent after it woke (fresh information that its own links work), it neither suspects a
 * member for a probe sent before it woke nor turns a suspicion into a death; the deaths it would have
 * declared wait, and are declared then only if they still stand.
 */

export class FreezeGuard {
  private wokeAtMs = Number.NEGATIVE_INFINITY;
  private holding = false;
  private readonly deferred: Array<() => void> = [];
  /** Times the guard tripped. */
  trips = 0;

  /** @param thresholdMs - lateness of a timer that counts as a freeze */
  constructor(private readonly thresholdMs: number) {}

  /** Called by every protocol timer with its due time; trips the guard when it fires far too late. */
  noteTimer(dueMs: number, nowMs: number): void {
    if (nowMs - dueMs <= this.thresholdMs) return;
    this.wokeAtMs = nowMs;
    if (!this.holding) this.trips++;
    this.holding = true;
  }

  /** When the last freeze ended, on the monotonic clock; −Infinity before any. */
  get wokeAt(): number {
    return this.wokeAtMs;
  }

  /** Whether a probe sent at `sentMs` is too old to convict anyone (sent before the last freeze ended). */
  isStale(sentMs: number): boolean {
    return sentMs < this.wokeAtMs;
  }

  /** Whether convictions wait for fresh information. */
  get isHolding(): boolean {
    return this.holding;
  }

  /** Runs `conviction` now, or once fresh information has come in. */
  convict(conviction: () => void): void {
    if (this.holding) this.deferred.push(conviction);
    else conviction();
  }

  /** A probe sent at `sentMs` was answered: if it was sent after the freeze, release what waited. */
  probeAnswered(sentMs: number): void {
    if (!this.holding || this.isStale(sentMs)) return;
    this.holding = false;
    const waiting = this.deferred.splice(0);
    for (const conviction of waiting) conviction();
  }
}

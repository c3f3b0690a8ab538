/**
 * A protocol timer that fires late measures this member's own stall: its event loop was busy, its
 * process paused. Both membership protocols read their timers this way, so that a member that stalls
 * accuses others less readily (Lifeguard's local health) and, after a freeze, convicts nobody on what it
 * knew before it (the freeze guard).
 */
import type { Awareness } from './awareness.js';
import type { FreezeGuard } from './freeze-guard.js';

/** Health score levels one late timer can add: more would take a single stall for a sick member. */
const STRESS_LEVELS_MAX = 4;

export class LateTimers {
  private readonly stressMs: number;

  /**
   * @param periodMs - the period lateness is measured in: the probe timeout (SWIM), the heartbeat
   *   interval (heartbeat monitor); the freeze guard, if any, trips at the same lateness
   * @param counters - where late timers are counted
   */
  constructor(
    periodMs: number,
    private readonly awareness: Awareness,
    private readonly guard: FreezeGuard | undefined,
    private readonly counters: { lateTimers: number },
  ) {
    this.stressMs = periodMs / 2;
  }

  /**
   * Notes a timer due at `dueMs` that fired at `nowMs`. Beyond half a period late it raises the health
   * score, one level per half period (at most {@link STRESS_LEVELS_MAX}); beyond a period it also trips the
   * freeze guard. Returns whether it was late beyond half a period.
   */
  note(dueMs: number, nowMs: number): boolean {
    const lateMs = nowMs - dueMs;
    if (lateMs <= this.stressMs) return false;
    this.counters.lateTimers++;
    this.awareness.apply(Math.min(STRESS_LEVELS_MAX, Math.floor(lateMs / this.stressMs)));
    this.guard?.noteTimer(dueMs, nowMs);
    return true;
  }
}

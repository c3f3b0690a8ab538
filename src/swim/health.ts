/**
 * A SWIM member's view of its own health: Lifeguard's score, the freeze guard, the busy signal, and the
 * late timers that feed them (docs/membership.md).
 */
import { Awareness } from '../membership/awareness.js';
import { FreezeGuard } from '../membership/freeze-guard.js';
import { LateTimers } from '../membership/late-timers.js';
import type { Clock } from '../runtime/clock.js';
import { BusySelf } from './busy-self.js';
import type { SwimConfig } from './config.js';
import type { SwimCounters } from './counters.js';

export class Health {
  readonly awareness: Awareness;
  readonly freezeGuard: FreezeGuard | undefined;
  /** Whether this member's event loop is behind (`busy-self.ts`); undefined when the signal is off. */
  readonly busy: BusySelf | undefined;
  private readonly lateTimers: LateTimers;

  /**
   * @param freezeGuard - whether to keep a freeze guard, which trips at a probe timeout late
   * @param busySignal - whether to keep the busy signal
   */
  constructor(
    config: SwimConfig,
    freezeGuard: boolean,
    counters: SwimCounters,
    private readonly clock: Clock,
    busySignal = true,
  ) {
    this.busy = busySignal ? new BusySelf(clock, counters) : undefined;
    this.awareness = new Awareness(config.awarenessMaxMultiplier);
    this.freezeGuard = freezeGuard ? new FreezeGuard(config.probeTimeoutMs) : undefined;
    this.lateTimers = new LateTimers(config.probeTimeoutMs, this.awareness, this.freezeGuard, counters);
  }

  /** Called by the protocol's timers with their due time: a late one measures this member's stall. */
  noteTimer(dueMs: number): void {
    this.lateTimers.note(dueMs, this.clock.now());
    this.busy?.noteTimer(dueMs);
  }

  /**
   * Called by the frequent timers (gossip) with their due time: only the busy signal reads them, since
   * Lifeguard's score counts one lateness per probe period.
   */
  noteLag(dueMs: number): void {
    this.busy?.noteTimer(dueMs);
  }
}

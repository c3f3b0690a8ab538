/**
 * Helpers of the heartbeat suites: a sans-I/O core on a virtual clock whose sends and events are
 * recorded, heartbeats written by hand, and the expected moment a threshold is crossed, computed from the
 * public phi function by bisection (independently of the core's inverse of phi).
 */
import { phi } from '../../src/detector/phi.js';
import { HeartbeatCore, type HeartbeatCoreOptions } from '../../src/heartbeat/heartbeat-core.js';
import type { Heartbeat } from '../../src/heartbeat/messages.js';
import type { MemberEvent } from '../../src/membership/events.js';
import type { Clock, Timer } from '../../src/runtime/clock.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

export interface CoreHarness {
  readonly clock: VirtualClock;
  readonly core: HeartbeatCore;
  readonly events: MemberEvent[];
  readonly sent: { readonly address: string; readonly heartbeat: Heartbeat }[];
  /** Called with each event after it is recorded, as an application's listener would be. */
  onEvent: ((event: MemberEvent) => void) | undefined;
}

/** Core `a` at `a:1`, incarnation 100, on a fresh virtual clock (or `clock` seen through `view`). */
export function coreHarness(
  options: Partial<HeartbeatCoreOptions> = {},
  seed = 1,
  view?: (clock: VirtualClock) => Clock,
): CoreHarness {
  const clock = new VirtualClock();
  const events: MemberEvent[] = [];
  const sent: { address: string; heartbeat: Heartbeat }[] = [];
  let onEvent: ((event: MemberEvent) => void) | undefined;
  const core = new HeartbeatCore(
    { name: 'a', address: 'a:1', incarnation: 100, ...options },
    {
      clock: view?.(clock) ?? clock,
      random: new Random(seed),
      send: (address, heartbeat) => sent.push({ address, heartbeat }),
      emit: (event) => {
        events.push(event);
        onEvent?.(event);
      },
    },
  );
  return {
    clock,
    core,
    events,
    sent,
    get onEvent() {
      return onEvent;
    },
    set onEvent(listener) {
      onEvent = listener;
    },
  };
}

/** Beat `seq` of peer `from` (announcing `from:1`), of the life `(incarnation, nonce)`. */
export function beat(from: string, seq: number, incarnation = 1, nonce = 7): Heartbeat {
  return { from, address: `${from}:1`, incarnation, nonce, seq };
}

/** The events about `member`, as `type:cause` strings, in order. */
export function story(events: readonly MemberEvent[], member: string): string[] {
  return events.filter((e) => e.member === member).map((e) => `${e.type}:${e.cause}`);
}

/** Mean and population standard deviation (Akka's) of `intervals`. */
export function statistics(intervals: readonly number[]): { mean: number; sd: number } {
  const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
  const variance = intervals.reduce((a, b) => a + b * b, 0) / intervals.length - mean * mean;
  return { mean, sd: Math.sqrt(Math.max(0, variance)) };
}

/**
 * The smallest silence (to 1e-6 ms) at which `phiOf(silence)` reaches `level`, by bisection: phi grows
 * with the silence, so this is when a detector crosses the level.
 */
export function crossing(phiOf: (silenceMs: number) => number, level: number): number {
  let low = 0;
  let high = 1;
  while (phiOf(high) < level) high *= 2;
  while (high - low > 1e-6) {
    const mid = (low + high) / 2;
    if (phiOf(mid) >= level) high = mid;
    else low = mid;
  }
  return high;
}

/** Phi of the normal model under Akka's rules: mean shifted by the pause, deviation floored. */
export function normalPhiOf(
  intervals: readonly number[],
  pauseMs: number,
  minStdDeviationMs: number,
): (silenceMs: number) => number {
  const { mean, sd } = statistics(intervals);
  return (silence) => phi(silence, mean + pauseMs, Math.max(sd, minStdDeviationMs));
}

/** A process's view of the clock: while frozen its timers wait, and run late, in order, at the thaw. */
export class FreezableClock implements Clock {
  frozen = false;
  private readonly overdue: (() => void)[] = [];

  constructor(private readonly clock: VirtualClock) {}

  now(): number {
    return this.clock.now();
  }

  wallNow(): number {
    return this.clock.wallNow();
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    let cancelled = false;
    const run = (): void => {
      if (!cancelled) callback();
    };
    const timer = this.clock.setTimer(delayMs, () => {
      if (this.frozen) this.overdue.push(run);
      else run();
    });
    return {
      cancel: () => {
        cancelled = true;
        timer.cancel();
      },
    };
  }

  /** Ends the freeze: the overdue timers run now, late. */
  thaw(): void {
    this.frozen = false;
    for (const run of this.overdue.splice(0)) run();
  }
}

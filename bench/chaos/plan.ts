/**
 * The chaos bench's figures, derived from the protocol's own timing (src/swim/timing.ts) for the agents'
 * profile (`lan`, the agent's default) and the cluster size, never written down by hand:
 *
 * - the time a pause must stay under to kill nobody: `suspicionMinMs`, the shortest a suspicion can last
 *   while the suspect's host still accepts connections (enough confirmations bring any suspicion down to
 *   it); and the time a cut must stay under: `silentMinMs`, the shortest suspicion of a silent host (the
 *   host silence, `hostSilenceMs`; a member cut off is as silent as a crashed host). A pause or cut of at
 *   most that long excuses no death;
 * - the convergence bound after the last fault, the sum of what may follow it one after the other:
 *   `worstCaseAllKnowMs` (a member killed just before is probed, suspected for the longest suspicion
 *   timeout and its death spread: 40 s), `reconnectIntervalMs` (two sides of a healed partition, each
 *   holding the other dead, find each other at the next reconnection tick: 10 s), and
 *   `stableForMs × 1.1` of the leader hint (a comeback takes the lead only after that wait: 11 s);
 *   61 s in all at n = 10.
 */
import { DEFAULT_STABLE_FOR_MS } from '../../src/omega/leader-options.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import type { ExcuseLimits } from './checkers.js';
import { FAULT_KINDS, type ScheduleOptions } from './schedule.js';

export interface ChaosBounds {
  readonly members: number;
  readonly suspicionMinMs: number;
  /** The shortest suspicion of a silent host (a cut-off member): the host silence, or suspicionMinMs. */
  readonly silentMinMs: number;
  readonly suspicionMaxMs: number;
  readonly worstCaseAllKnowMs: number;
  readonly reconnectIntervalMs: number;
  readonly leaderStableMs: number;
  /** worstCaseAllKnowMs + reconnectIntervalMs + leaderStableMs. */
  readonly convergenceMs: number;
}

export function chaosBounds(members: number): ChaosBounds {
  const t = expectedTiming(lan, members);
  // The comeback's own wait is stableForMs and a tenth (docs/leader-hint.md, "A member that comes back").
  const leaderStableMs = Math.round(DEFAULT_STABLE_FOR_MS * 1.1);
  return {
    members,
    suspicionMinMs: t.suspicionMinMs,
    silentMinMs:
      lan.hostSilenceMs === 0
        ? t.suspicionMinMs
        : Math.min(t.suspicionMinMs, Math.max(lan.hostSilenceMs, lan.probeTimeoutMs)),
    suspicionMaxMs: t.suspicionMaxMs,
    worstCaseAllKnowMs: t.worstCaseAllKnowMs,
    reconnectIntervalMs: lan.reconnectIntervalMs,
    leaderStableMs,
    convergenceMs: t.worstCaseAllKnowMs + lan.reconnectIntervalMs + leaderStableMs,
  };
}

/** What the checkers excuse, from the bounds. */
export function excuseLimits(b: ChaosBounds): ExcuseLimits {
  return { pauseMs: b.suspicionMinMs, cutMs: b.silentMinMs, graceMs: b.convergenceMs };
}

export type Preset = 'full' | 'short';

/**
 * The schedule for a run. `full`: `minutes` of faults, partitions from half to 1.75 times the longest
 * suspicion timeout, one kill kept down past the convergence bound. `short` (CI): one of each kind,
 * partitions of three times the shortest suspicion timeout, about a minute of faults.
 */
export function scheduleOptions(
  preset: Preset,
  seed: number,
  minutes: number,
  b: ChaosBounds,
): ScheduleOptions {
  const s = 1000;
  if (preset === 'short') {
    // Long enough for a suspicion to be raised (about two probe periods) and to run its shortest course.
    const cut = [b.suspicionMinMs + 8 * s, b.suspicionMinMs + 10 * s] as const;
    return {
      seed,
      members: b.members,
      durationMs: 70 * s + b.convergenceMs,
      settleMs: b.convergenceMs,
      gapMs: [1 * s, 2 * s],
      durations: {
        halves: cut,
        isolate: cut,
        'one-way': [4 * s, 6 * s],
        loss: [4 * s, 6 * s],
        pause: [2 * s, 6 * s],
        kill: [2 * s, 4 * s],
        leave: [2 * s, 4 * s],
      },
      lossPercent: [20, 30],
      maxFaults: FAULT_KINDS.length,
    };
  }
  const partition = [Math.round(b.suspicionMaxMs / 2), Math.round(b.suspicionMaxMs * 1.75)] as const;
  return {
    seed,
    members: b.members,
    durationMs: minutes * 60 * s,
    settleMs: b.convergenceMs,
    gapMs: [3 * s, 10 * s],
    durations: {
      halves: partition,
      isolate: partition,
      'one-way': [5 * s, 40 * s],
      loss: [10 * s, 40 * s],
      pause: [1 * s, 10 * s],
      kill: [3 * s, 40 * s],
      leave: [3 * s, 30 * s],
    },
    lossPercent: [5, 30],
    longKillMs: [b.convergenceMs + 5 * s, b.convergenceMs + 20 * s],
  };
}

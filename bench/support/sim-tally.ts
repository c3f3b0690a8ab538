/**
 * What the SWIM benches count in one simulation run, from the events every member emits (the
 * simulator's `onEvent`): detection of each crashed member, by kind of crash (the host went down, or
 * the process was killed on a live host, where fdkit's death watch and refused connections apply), and
 * false positives split by whom they are about (a healthy member, or one of the members made slow on
 * purpose) and by who holds them (a healthy member, or a slow one). The simulator's own report mixes
 * both kinds of crash and counts a slow member's suspicion like any other; this keeps them apart.
 *
 * Counting follows the simulator's report: a false suspicion (death) is one member's transition of a
 * member whose process is up to suspect (dead), so one suspicion that reaches 99 members counts 99.
 */
import type { MemberEvent } from '../../src/membership/events.js';
import type { Simulation } from '../../src/sim/simulation.js';

/** A crash injected in the run: its member, when, and whether its host stayed up (a kill). */
export interface TalliedCrash {
  readonly member: number;
  readonly atMs: number;
  readonly hostUp?: boolean;
}

/** Detection of one crashed member, each duration from the crash, in ms of virtual time. */
export interface CrashDetection {
  readonly member: number;
  readonly kind: 'crash' | 'kill';
  /** Until some member suspected it; null: nobody did. */
  readonly firstSuspectMs: number | null;
  /** Until some member declared it dead; null: nobody did. */
  readonly firstDeadMs: number | null;
  /** Until the last live member held it dead; null: some live member did not at the end (missed). */
  readonly allKnowDeadMs: number | null;
  /** The same over the live healthy members only (slow members left out, their views lag). */
  readonly healthyKnowDeadMs: number | null;
}

/** False positives of one run: transitions of members whose process was up. */
export interface FalsePositiveCounts {
  /** Suspicions of healthy members, in every member's view. */
  readonly healthySuspicions: number;
  /** Deaths of healthy members, in every member's view. */
  readonly healthyDeaths: number;
  /** Of those, the deaths held by healthy members (what the rest of the cluster believed). */
  readonly healthyDeathsAtHealthy: number;
  /** Of those, the deaths held by the slow members themselves. */
  readonly healthyDeathsAtSlow: number;
  /** Suspicions of healthy members raised first-hand by a slow member (its own probe failed). */
  readonly accusationsBySlow: number;
  /** Suspicions of healthy members raised first-hand by healthy members. */
  readonly accusationsByHealthy: number;
  /** Suspicions and deaths of the slow members, in every member's view. */
  readonly slowSuspicions: number;
  readonly slowDeaths: number;
}

/** Everything counted in one run. */
export interface RunTally {
  readonly crashes: readonly CrashDetection[];
  readonly falsePositives: FalsePositiveCounts;
}

interface CrashRecord {
  readonly crash: TalliedCrash;
  firstSuspectMs: number;
  firstDeadMs: number;
  /** When each observer last came to hold the member dead (NaN: never). */
  readonly deadAt: Float64Array;
}

/** Index of simulated member `n<i>` (the simulator's names), or −1. */
export function simIndex(name: string): number {
  if (name.length < 2 || name[0] !== 'n') return -1;
  const i = Number(name.slice(1));
  return Number.isInteger(i) && i >= 0 ? i : -1;
}

/** Counts one run's events; feed it every member event, then call {@link EventTally.finish}. */
export class EventTally {
  private readonly crashes = new Map<number, CrashRecord>();
  private readonly slow: ReadonlySet<number>;
  private healthySuspicions = 0;
  private healthyDeaths = 0;
  private healthyDeathsAtHealthy = 0;
  private healthyDeathsAtSlow = 0;
  private accusationsBySlow = 0;
  private accusationsByHealthy = 0;
  private slowSuspicions = 0;
  private slowDeaths = 0;

  /**
   * @param nodes - members in the run
   * @param crashes - the crashes injected (no restarts: a crashed member stays down)
   * @param slow - members made slow on purpose (slow CPU, stalls); the others are healthy
   */
  constructor(nodes: number, crashes: readonly TalliedCrash[], slow: readonly number[] = []) {
    for (const c of crashes) {
      this.crashes.set(c.member, {
        crash: c,
        firstSuspectMs: Number.NaN,
        firstDeadMs: Number.NaN,
        deadAt: new Float64Array(nodes).fill(Number.NaN),
      });
    }
    this.slow = new Set(slow);
  }

  /** Takes one event emitted by member `observer`. */
  record(observer: number, event: MemberEvent): void {
    if (event.type !== 'suspect' && event.type !== 'dead') return;
    const member = simIndex(event.member);
    if (member < 0) return;
    const crash = this.crashes.get(member);
    if (crash !== undefined && event.atMs >= crash.crash.atMs) {
      if (event.type === 'suspect') {
        if (Number.isNaN(crash.firstSuspectMs)) crash.firstSuspectMs = event.atMs;
      } else {
        if (Number.isNaN(crash.firstDeadMs)) crash.firstDeadMs = event.atMs;
        crash.deadAt[observer] = event.atMs;
      }
      return;
    }
    // The member's process is up: a false positive, about a slow member or a healthy one.
    if (this.slow.has(member)) {
      if (event.type === 'suspect') this.slowSuspicions++;
      else this.slowDeaths++;
      return;
    }
    const atSlow = this.slow.has(observer);
    if (event.type === 'suspect') {
      this.healthySuspicions++;
      if (event.cause === 'probe-failed' || event.cause === 'connection-refused') {
        if (atSlow) this.accusationsBySlow++;
        else this.accusationsByHealthy++;
      }
      return;
    }
    this.healthyDeaths++;
    if (atSlow) this.healthyDeathsAtSlow++;
    else this.healthyDeathsAtHealthy++;
  }

  /** The tally at the end of a simulated run: its live members, and what their final views hold. */
  finishSimulation(sim: Pick<Simulation, 'liveMembers' | 'viewOf'>): RunTally {
    return this.finish(sim.liveMembers(), (o, m) => {
      const held = sim.viewOf(o, m);
      return held === 'dead' || held === 'left';
    });
  }

  /**
   * The tally at the end of the run. `live` lists the members up at the end; `holdsDead(o, m)` reads
   * whether member `o` holds member `m` dead (or left) in its final view.
   */
  finish(live: readonly number[], holdsDead: (observer: number, member: number) => boolean): RunTally {
    const crashes: CrashDetection[] = [];
    for (const r of this.crashes.values()) {
      const since = (t: number): number | null => (Number.isNaN(t) ? null : t - r.crash.atMs);
      const allKnow = (observers: readonly number[]): number | null => {
        let last = r.crash.atMs;
        for (const o of observers) {
          if (o === r.crash.member) continue;
          if (!holdsDead(o, r.crash.member)) return null;
          const at = r.deadAt[o]!;
          if (!Number.isNaN(at)) last = Math.max(last, at);
        }
        return last - r.crash.atMs;
      };
      crashes.push({
        member: r.crash.member,
        kind: r.crash.hostUp === true ? 'kill' : 'crash',
        firstSuspectMs: since(r.firstSuspectMs),
        firstDeadMs: since(r.firstDeadMs),
        allKnowDeadMs: allKnow(live),
        healthyKnowDeadMs: allKnow(live.filter((o) => !this.slow.has(o))),
      });
    }
    return {
      crashes,
      falsePositives: {
        healthySuspicions: this.healthySuspicions,
        healthyDeaths: this.healthyDeaths,
        healthyDeathsAtHealthy: this.healthyDeathsAtHealthy,
        healthyDeathsAtSlow: this.healthyDeathsAtSlow,
        accusationsBySlow: this.accusationsBySlow,
        accusationsByHealthy: this.accusationsByHealthy,
        slowSuspicions: this.slowSuspicions,
        slowDeaths: this.slowDeaths,
      },
    };
  }
}

/**
 * The host-silence rule end to end, in the simulator at n = 20, lan (hostSilenceMs 1500) against
 * memberlist-lan (memberlist's values, the rule off), same seeds. Lifeguard's timeouts at n = 20:
 * memberlist-lan min = 4 × log10(20) = 4 × 1.301 periods = 5204 ms, reached with k = 2 confirmations;
 * lan min = 6 × 1.301 periods = 7806 ms (k = 4).
 */
import { describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import type { FaultPlan } from '../../src/sim/faults.js';
import { Simulation, simName } from '../../src/sim/simulation.js';
import { isMemberEvent } from '../../src/swim/events.js';
import { lan, type ProfileName } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

const N = 20;
const VICTIM = 3;
const FAULT_AT = 5000;
const MEMBERLIST_LIFEGUARD_MIN = 5204;

/** One run with `faults`: the events about the victim and those its own core reported. */
function simulate(profile: ProfileName, seed: number, faults: Partial<FaultPlan>, seconds = 30) {
  const about: Array<{ observer: number; event: MemberEvent }> = [];
  const byVictim: MemberEvent[] = [];
  const sim = new Simulation({
    nodes: N,
    seconds,
    seed,
    profile,
    lateJoiner: false,
    faults,
    onEvent: (observer, event) => {
      if (!isMemberEvent(event)) return;
      if (event.member === simName(VICTIM)) about.push({ observer, event });
      if (observer === VICTIM) byVictim.push(event);
    },
  });
  const report = sim.run();
  const deaths = about.filter((a) => a.event.type === 'dead');
  const firstDeathMs = Math.min(...deaths.map((d) => d.event.atMs));
  return { sim, report, about, byVictim, deaths, firstDeathMs };
}

const SEEDS = [1, 2, 3, 4, 5];

describe('Simulation: a host crash at n = 20', () => {
  const crash = { crashes: [{ member: VICTIM, atMs: FAULT_AT }] };
  const bound = expectedTiming(lan, N).hostCrashAllKnowMs;

  it.each(SEEDS)(
    'seed %i: lan’s silence convicts 1500 ms after the probe, and all know within the bound',
    (seed) => {
      const { report, about, firstDeathMs } = simulate('lan', seed, crash);
      expect(report.detection.missed).toBe(0);
      expect(report.detection.allKnowDeadMs!.max).toBeLessThanOrEqual(bound);
      // Not before the probe's timeout and the silence; the first death is its accuser's own conclusion,
      // the silence after its failed probe to the millisecond.
      expect(firstDeathMs - FAULT_AT).toBeGreaterThanOrEqual(lan.probeTimeoutMs + lan.hostSilenceMs);
      const first = about.find((a) => a.event.type === 'dead' && a.event.atMs === firstDeathMs)!;
      const raised = about.find(
        (a) =>
          a.observer === first.observer && a.event.type === 'suspect' && a.event.cause === 'probe-failed',
      );
      expect(first.event.cause).toBe('suspicion-timeout');
      expect(first.event.atMs - raised!.event.atMs).toBeGreaterThanOrEqual(lan.hostSilenceMs);
      expect(first.event.atMs - raised!.event.atMs).toBeLessThanOrEqual(lan.hostSilenceMs + 5);
    },
  );

  it.each(SEEDS)(
    'seed %i: known by all sooner than with memberlist-lan, whose Lifeguard’s timeout convicts',
    (seed) => {
      const withSilence = simulate('lan', seed, crash).report.detection.allKnowDeadMs!.max;
      const memberlist = simulate('memberlist-lan', seed, crash);
      expect(memberlist.report.detection.missed).toBe(0);
      expect(memberlist.firstDeathMs - FAULT_AT).toBeGreaterThanOrEqual(MEMBERLIST_LIFEGUARD_MIN);
      expect(withSilence).toBeLessThan(memberlist.report.detection.allKnowDeadMs!.max);
    },
  );
});

describe('Simulation: a member paused 6 s at n = 20, lan', () => {
  // Its host accepts connections while the process is frozen: no silence, Lifeguard's timeout (7806 ms
  // at least) outlasts the pause.
  it('is suspected, never declared dead, over ten seeds', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { report, deaths, about } = simulate('lan', seed, {
        pauses: [{ member: VICTIM, atMs: FAULT_AT, durationMs: 6000 }],
      });
      expect(deaths, `seed ${seed}`).toEqual([]);
      expect(report.falsePositives.deaths, `seed ${seed}`).toBe(0);
      expect(about.filter((a) => a.event.type === 'suspect').length, `seed ${seed}`).toBeGreaterThan(0);
    }
  });
});

describe('Simulation: a member isolated 6 s at n = 20 (both ways)', () => {
  // Nothing tells an isolated host from a crashed one: no connection, nothing heard, and the helpers'
  // nacks say the accuser is not the one cut off. lan convicts it like a crash, the accepted trade-off;
  // memberlist-lan's Lifeguard's timeout (5204 ms once confirmed, after the detection) outlasts 6 s.
  const isolate = { partitions: [{ atMs: FAULT_AT, durationMs: 6000, side: [VICTIM] }] };

  it.each([1, 2, 3])(
    'seed %i: lan declares it dead everywhere, as a crash; it refutes after the heal',
    (seed) => {
      const { sim, report, deaths, byVictim, firstDeathMs } = simulate('lan', seed, isolate);
      expect(new Set(deaths.map((d) => d.observer)).size).toBe(N - 1);
      expect(report.falsePositives.deaths).toBe(N - 1);
      expect(firstDeathMs - FAULT_AT).toBeGreaterThanOrEqual(lan.probeTimeoutMs + lan.hostSilenceMs);
      for (const d of deaths)
        expect(d.event.atMs - FAULT_AT).toBeLessThanOrEqual(expectedTiming(lan, N).hostCrashAllKnowMs);
      // The isolated member gets no nacks (its helpers are out of reach) and suspects others at most:
      // it convicts nobody.
      expect(byVictim.filter((e) => e.type === 'dead')).toEqual([]);
      // Back in every view by the end.
      for (let i = 0; i < N; i++)
        if (i !== VICTIM) expect(sim.viewOf(i, VICTIM), `member ${i}`).toBe('alive');
    },
  );

  it.each([1, 2, 3])('seed %i: memberlist-lan declares it dead nowhere', (seed) => {
    const { deaths, report } = simulate('memberlist-lan', seed, isolate);
    expect(deaths).toEqual([]);
    expect(report.falsePositives.deaths).toBe(0);
  });
});

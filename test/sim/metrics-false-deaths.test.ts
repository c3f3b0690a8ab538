/**
 * The simulator's accuracy figures, which about ten claims of `sim/properties.system.test.ts` rest on
 * (`falsePositives.deaths === 0`): a collector that never counted a false death would make every one of
 * them pass. The collector is fed events by hand against a ground truth written in the test; then one
 * simulation is made to produce false deaths, and the report must show them, as many as its own event
 * stream holds.
 */
import { describe, expect, it } from 'vitest';
import { Simulation, simName } from '../../src/sim/simulation.js';
import type { MemberEvent, SwimEvent } from '../../src/swim/events.js';
import { collector, event } from './metrics-fixtures.js';

describe('MetricsCollector: false suspicions and false deaths', () => {
  it('counts a death of a member whose process is up as a false death, and its suspicion as a false suspicion', () => {
    const m = collector([true, true, true, true]);
    m.record(0, event('suspect', 1, 5, 1000));
    m.record(0, event('dead', 1, 5, 5000));
    m.record(2, event('dead', 1, 6, 5200)); // a higher incarnation of the same life is still this life
    expect(m.falseSuspicions).toBe(1);
    expect(m.falseDeaths).toBe(2);
  });

  it('does not count deaths of a crashed member, nor of a life that ended before the current one', () => {
    const up = [true, false, true, true];
    const m = collector(up);
    m.crashed(1, 1000, 5);
    m.record(0, event('suspect', 1, 5, 2000));
    m.record(0, event('dead', 1, 5, 6000));
    expect([m.falseSuspicions, m.falseDeaths]).toEqual([0, 0]);
    // Restarted at incarnation 5: news of the previous life (incarnation 4) is late, not false.
    up[1] = true;
    m.restarted(1);
    m.record(2, event('suspect', 1, 4, 7000));
    m.record(2, event('dead', 1, 4, 7100));
    expect([m.falseSuspicions, m.falseDeaths]).toEqual([0, 0]);
    // Its new life declared dead while it runs: false.
    m.record(3, event('dead', 1, 5, 9000));
    expect([m.falseSuspicions, m.falseDeaths]).toEqual([0, 1]);
  });

  it('ignores alive, left and update events', () => {
    const m = collector([true, true, true, true]);
    for (const type of ['alive', 'left', 'update'] as const) m.record(0, event(type, 1, 5, 1000));
    expect([m.falseSuspicions, m.falseDeaths, m.resurrections]).toEqual([0, 0, 0]);
  });
});

describe('Simulation: false deaths reach the report', () => {
  // A member paused (up, but silent) for 60 s, far beyond worstCaseAllKnowMs at 5 members (33 s): every
  // other member declares it dead while its process is up, each a false death.
  it('a member paused past the whole detection bound is reported as falsely declared dead', () => {
    const deathsSeen: Array<{ observer: number; event: MemberEvent }> = [];
    const sim = new Simulation({
      nodes: 5,
      seconds: 80,
      seed: 3,
      faults: { pauses: [{ member: 2, atMs: 5000, durationMs: 60_000 }] },
      onEvent: (observer: number, e: SwimEvent) => {
        if (e.type === 'dead' && e.member === simName(2)) deathsSeen.push({ observer, event: e });
      },
    });
    const report = sim.run();
    // Every other member declared it dead, by its own timeout or by gossip, during the pause.
    expect(new Set(deathsSeen.map((d) => d.observer)).size).toBe(4);
    for (const d of deathsSeen) {
      expect(d.event.atMs).toBeGreaterThan(5000);
      expect(d.event.atMs).toBeLessThan(65_000);
    }
    expect(report.falsePositives.deaths).toBe(deathsSeen.length);
    expect(report.falsePositives.suspicions).toBeGreaterThanOrEqual(1);
    expect(report.detection.crashed).toBe(0);
  });
});

/**
 * The metrics collector: the detection figures of a small simulation, recomputed from its events, and
 * resurrections.
 */
import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../src/sim/faults.js';
import { MetricsCollector } from '../../src/sim/metrics.js';
import { quantiles } from '../../src/sim/report.js';
import { Simulation, simName } from '../../src/sim/simulation.js';
import { isMemberEvent, type MemberEvent, type SwimEvent } from '../../src/swim/events.js';

describe('metrics of a small simulation', () => {
  const faults: Partial<FaultPlan> = {
    crashes: [
      { member: 1, atMs: 10_000 },
      { member: 4, atMs: 12_500 },
    ],
    pauses: [{ member: 2, atMs: 15_000, durationMs: 3000 }],
  };
  const events: Array<{ observer: number; event: MemberEvent }> = [];
  const sim = new Simulation({
    nodes: 8,
    seconds: 60,
    seed: 4,
    faults,
    onEvent: (observer: number, event: SwimEvent) => {
      if (isMemberEvent(event)) events.push({ observer, event });
    },
  });
  const report = sim.run();

  it('echoes the run and counts the planned crashes, none missed', () => {
    expect(report.nodes).toBe(8);
    expect(report.seconds).toBe(60);
    expect(report.seed).toBe(4);
    expect(report.profile).toBe('lan');
    expect(report.detection.crashed).toBe(2);
    expect(report.detection.missed).toBe(0);
    expect(sim.clock.now()).toBe(60_000);
  });

  it('orders the detection figures: first suspicion <= first death <= all know dead', () => {
    const { firstSuspectMs, firstDeadMs, allKnowDeadMs } = report.detection;
    expect(firstSuspectMs).not.toBeNull();
    expect(firstDeadMs).not.toBeNull();
    expect(allKnowDeadMs).not.toBeNull();
    for (const q of ['p50', 'p99', 'max'] as const) {
      expect(firstSuspectMs![q]).toBeGreaterThan(0);
      expect(firstSuspectMs![q]).toBeLessThanOrEqual(firstDeadMs![q]);
      expect(firstDeadMs![q]).toBeLessThanOrEqual(allKnowDeadMs![q]);
    }
    for (const q of [firstSuspectMs!, firstDeadMs!, allKnowDeadMs!]) {
      expect(q.p50).toBeLessThanOrEqual(q.p99);
      expect(q.p99).toBeLessThanOrEqual(q.max);
    }
  });

  it('matches the detection figures recomputed from the members’ events', () => {
    const firstSuspect: number[] = [];
    const firstDead: number[] = [];
    const allKnow: number[] = [];
    const crashed = new Set(faults.crashes!.map((c) => c.member));
    for (const c of faults.crashes!) {
      const about = events.filter((e) => e.event.member === simName(c.member) && e.event.atMs >= c.atMs);
      const suspects = about.filter((e) => e.event.type === 'suspect').map((e) => e.event.atMs);
      const deaths = about.filter((e) => e.event.type === 'dead');
      firstSuspect.push(Math.min(...suspects) - c.atMs);
      firstDead.push(Math.min(...deaths.map((e) => e.event.atMs)) - c.atMs);
      let last = c.atMs;
      for (let o = 0; o < 8; o++) {
        if (crashed.has(o)) continue;
        const own = deaths.filter((e) => e.observer === o).map((e) => e.event.atMs);
        expect(own.length).toBeGreaterThan(0);
        last = Math.max(last, ...own);
        expect(sim.viewOf(o, c.member)).toBe('dead');
      }
      allKnow.push(last - c.atMs);
    }
    expect(report.detection.firstSuspectMs).toEqual(quantiles(firstSuspect));
    expect(report.detection.firstDeadMs).toEqual(quantiles(firstDead));
    expect(report.detection.allKnowDeadMs).toEqual(quantiles(allKnow));
  });

  it('reports load, join convergence and counts of false positives', () => {
    expect(report.load.msgsPerNodePerSec).toBeGreaterThan(0);
    expect(report.load.bytesPerNodePerSec).toBeGreaterThan(report.load.msgsPerNodePerSec);
    expect(report.convergence.joinAllKnowMs).not.toBeNull();
    expect(report.convergence.joinAllKnowMs!).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(report.falsePositives.suspicions)).toBe(true);
    expect(report.falsePositives.deaths).toBeGreaterThanOrEqual(0);
    expect(report.falsePositives.deaths).toBeLessThanOrEqual(report.falsePositives.suspicions);
    expect(report.wallMs).toBe(0);
    expect(report.eventsPerSec).toBe(0);
    expect(report.peakRssMb).toBe(0);
  });

  it('replays the same report from the same seed', () => {
    const again = new Simulation({ nodes: 8, seconds: 60, seed: 4, faults }).run();
    expect(again).toEqual(report);
  });
});

describe('MetricsCollector: resurrections', () => {
  const event = (type: MemberEvent['type'], incarnation: number, atMs: number): MemberEvent => ({
    type,
    member: 'n1',
    address: 'sim-1:7946',
    incarnation,
    previous: type === 'alive' ? 'dead' : 'alive',
    atMs,
    wallMs: atMs,
    cause: type === 'alive' ? 'rejoined' : 'dead-gossip',
    confirmations: 0,
    localHealth: 0,
  });

  it('counts an alive from an observer that held the life that ended dead, and nothing else', () => {
    let up = true;
    const metrics = new MetricsCollector(4, {
      isUp: (m) => m !== 1 || up,
      lifeIncarnation: () => 3,
      indexOf: (name) => Number(name.slice(1)),
    });
    metrics.record(0, event('alive', 3, 100)); // not crashed yet
    up = false;
    metrics.crashed(1, 1000, 5);
    metrics.record(0, event('dead', 5, 2000));
    metrics.record(0, event('alive', 5, 3000)); // held that life dead: a ghost
    metrics.record(2, event('alive', 5, 3000)); // never held it dead: old news, not a revival
    metrics.record(3, event('dead', 4, 2500)); // an earlier life's death, caught up on late
    metrics.record(3, event('alive', 5, 3000));
    expect(metrics.resurrections).toBe(1);
    up = true;
    metrics.restarted(1);
    metrics.record(0, event('alive', 6, 9000)); // its next life
    expect(metrics.resurrections).toBe(1);
  });
});

/**
 * `Simulation`: a slow member's socket-buffer drops in the report, and the option checks.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import type { SimulationReport } from '../../src/sim/report.js';
import { Simulation, type SimulationOptions } from '../../src/sim/simulation.js';

describe('a slow member in a simulation', () => {
  // A large suspicionMult keeps the cluster from declaring the slow member dead, so traffic keeps coming;
  // without the busy signal, nothing spares the slow member what it cannot keep up with.
  const run = (meanMs: number, seed = 1): { report: SimulationReport; drops: number[] } => {
    const sim = new Simulation({
      nodes: 30,
      seconds: 40,
      seed,
      busySignal: false,
      config: { suspicionMult: 20 },
      faults: { slowCpus: [{ member: 1, atMs: 5000, durationMs: 35_000, meanMs, timersFirst: true }] },
    });
    const report = sim.run();
    return { report, drops: sim.processes.map((p) => p.bufferDrops) };
  };

  it('drops what overflows the slow member’s socket buffer, and reports it', () => {
    const { report, drops } = run(300);
    expect(drops[1]!).toBeGreaterThan(0);
    expect(drops.filter((d, i) => i !== 1 && d > 0)).toEqual([]);
    expect(report.drops.socketBuffer).toBe(drops[1]);
  });

  it('drops nothing when the slow member keeps up', () => {
    const { report, drops } = run(20);
    expect(drops.every((d) => d === 0)).toBe(true);
    expect(report.drops.socketBuffer).toBe(0);
  });

  it('replays the same drops and report from the same seed', () => {
    const a = run(300, 2);
    expect(a.report.drops.socketBuffer).toBeGreaterThan(0);
    expect(run(300, 2)).toEqual(a);
  });
});

describe('Simulation option checks', () => {
  const base: SimulationOptions = { nodes: 8, seconds: 10, seed: 1 };

  function rejects(options: unknown, option: string, code = 'FDKIT_INVALID_OPTION'): void {
    let caught: unknown;
    try {
      new Simulation(options as SimulationOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidOptionError);
    expect((caught as InvalidOptionError).option).toBe(option);
    expect((caught as InvalidOptionError).code).toBe(code);
    expect((caught as InvalidOptionError).message).toContain(option);
  }

  it.each([1, 0, -5, 20_001, 2.5, Number.NaN])('rejects nodes = %d', (nodes) => {
    rejects({ ...base, nodes }, 'nodes');
  });

  it('rejects seconds and seed out of range', () => {
    rejects({ ...base, seconds: 0 }, 'seconds');
    rejects({ ...base, seed: -1 }, 'seed');
    rejects({ ...base, seed: 1.5 }, 'seed');
  });

  it('rejects a fault that names the late joiner', () => {
    rejects({ ...base, faults: { crashes: [{ member: 7, atMs: 1000 }] } }, 'faults.crashes');
    rejects({ ...base, faults: { pauses: [{ member: 7, atMs: 1000, durationMs: 100 }] } }, 'faults.pauses');
    rejects(
      { ...base, faults: { partitions: [{ atMs: 1000, durationMs: 100, side: [0, 7] }] } },
      'faults.partitions',
    );
    rejects(
      { ...base, faults: { slowCpus: [{ member: 7, atMs: 1000, durationMs: 100, meanMs: 5 }] } },
      'faults.slowCpus',
    );
  });

  it.each([-1, 1.5, 2 ** 32])('rejects a restart from incarnation %d', (restartIncarnation) => {
    rejects(
      { ...base, faults: { crashes: [{ member: 1, atMs: 1000, restartAtMs: 2000, restartIncarnation }] } },
      'faults.crashes.restartIncarnation',
    );
  });

  it('accepts the last member in faults when there is no late joiner', () => {
    expect(
      () => new Simulation({ ...base, lateJoiner: false, faults: { crashes: [{ member: 7, atMs: 1000 }] } }),
    ).not.toThrow();
  });

  it.each([-1, 8, 100, 1.5])('rejects a fault naming member %d, out of range', (member) => {
    rejects({ ...base, lateJoiner: false, faults: { crashes: [{ member, atMs: 1000 }] } }, 'faults.crashes');
    rejects(
      { ...base, faults: { partitions: [{ atMs: 1, durationMs: 1, side: [member] }] } },
      'faults.partitions',
    );
  });

  it('rejects an unknown option', () => {
    rejects({ ...base, node: 8 }, 'node', 'FDKIT_UNKNOWN_OPTION');
  });

  it('rejects a profile that does not exist', () => {
    rejects({ ...base, profile: 'mars' }, 'profile');
    // A name every object inherits is no profile either.
    rejects({ ...base, profile: 'toString' }, 'profile');
  });

  it("runs memberlist's values by name: no host silence, so a crashed host waits out Lifeguard's timeout", () => {
    // n = 5, memberlist-lan: no member declares the crashed host dead before the probe timeout + 4 s
    // (suspicionMult 4 × 1 s); lan's host silence (1.5 s) does it well before that.
    const firstDeath = (profile: 'lan' | 'memberlist-lan'): number => {
      let first = Number.POSITIVE_INFINITY;
      new Simulation({
        ...base,
        nodes: 5,
        seconds: 40,
        seed: 3,
        profile,
        faults: { crashes: [{ member: 1, atMs: 10_000 }] },
        onEvent: (_, e) => {
          if (e.type === 'dead' && e.member === 'n1') first = Math.min(first, e.atMs);
        },
      }).run();
      return first - 10_000;
    };
    expect(firstDeath('memberlist-lan')).toBeGreaterThanOrEqual(500 + 4000);
    expect(firstDeath('lan')).toBeLessThan(500 + 4000);
    expect(firstDeath('lan')).toBeGreaterThanOrEqual(500 + 1500);
  });
});

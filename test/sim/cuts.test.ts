/**
 * The cuts beyond `--partition`: one member isolated, one-way links, a flapping cut and a crash during
 * the cut. What `planFaults` draws for each, what the network then does at each virtual time
 * (`schedulePartitions` on a virtual clock), and that a run with each repeats from its seed.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { type FaultPlan, type FaultRequest, faultRandom, planFaults } from '../../src/sim/faults.js';
import { lanNetwork, SimNetwork } from '../../src/sim/network.js';
import { schedulePartitions } from '../../src/sim/partition-schedule.js';
import { Simulation } from '../../src/sim/simulation.js';

const RUN_MS = 60_000;

function plan(request: Omit<FaultRequest, 'crash'> & { crash?: number }, members = 10, seed = 1): FaultPlan {
  return planFaults({ crash: 0, ...request }, members, RUN_MS, new Random(seed), new Set([members - 1]));
}

/** A network of `members` endpoints following `faults`' partitions on a fresh virtual clock. */
function networkOf(faults: FaultPlan, members: number): { clock: VirtualClock; network: SimNetwork } {
  const clock = new VirtualClock();
  const network = new SimNetwork(lanNetwork, members, new Random(0));
  schedulePartitions(clock, network, faults.partitions);
  return { clock, network };
}

/** Every ordered pair (i, j), i ≠ j, that cannot reach: `i>j`. */
function blockedPairs(network: SimNetwork, members: number): string[] {
  const blocked: string[] = [];
  for (let i = 0; i < members; i++) {
    for (let j = 0; j < members; j++) if (i !== j && !network.reachable(i, j)) blocked.push(`${i}>${j}`);
  }
  return blocked;
}

/** The ordered pairs from each of `from` to each of `to`. */
function pairs(from: readonly number[], to: readonly number[]): string[] {
  return from.flatMap((i) => to.filter((j) => j !== i).map((j) => `${i}>${j}`));
}

function others(side: readonly number[], members: number): number[] {
  return Array.from({ length: members }, (_, i) => i).filter((i) => !side.includes(i));
}

describe('planFaults: the cuts', () => {
  it('leaves the plan of a request without the new kinds as it was before they came', () => {
    // Recorded from planFaults as it was before isolate, oneWay, flap and crashDuringPartition.
    const before = {
      crashes: [
        { member: 7, atMs: 17796 },
        { member: 2, atMs: 8460 },
        { member: 3, atMs: 6081, hostUp: true },
      ],
      pauses: [{ member: 8, atMs: 10973, durationMs: 3000 }],
      partitions: [{ atMs: 5653, durationMs: 20000, side: [0, 1, 3, 6] }],
      slowCpus: [],
    };
    const request: FaultRequest = {
      crash: 2,
      kill: 1,
      pause: { count: 1, durationMs: 3000 },
      partition: { fraction: 0.4, durationMs: 20000 },
    };
    expect(planFaults(request, 10, 60000, new Random(42), new Set([9]))).toEqual(before);
  });

  it.each([
    [0.5, 10, 5],
    [0.5, 100, 50],
    [0.4, 5, 2],
    [0.4, 100, 40],
  ])('--partition %f at n = %i puts %i members on the side (halves, 3/2, 60/40)', (fraction, n, size) => {
    for (let seed = 0; seed < 10; seed++) {
      const part = plan({ partition: { fraction, durationMs: 1000 } }, n, seed).partitions;
      expect(part.length).toBe(1);
      expect(part[0]!.side.length).toBe(size);
      expect(part[0]!.side).not.toContain(n - 1);
    }
  });

  it('isolates one member, never the excluded one, both ways, within [5 %, 33 %] of the run', () => {
    const seen = new Set<number>();
    for (let seed = 0; seed < 50; seed++) {
      const { partitions } = plan({ isolate: { durationMs: 7000 } }, 10, seed);
      expect(partitions.length).toBe(1);
      const p = partitions[0]!;
      expect(p.side.length).toBe(1);
      expect(p.side[0]).not.toBe(9);
      expect(p.oneWay).toBeUndefined();
      expect(p.durationMs).toBe(7000);
      expect(p.atMs).toBeGreaterThanOrEqual(RUN_MS * 0.05);
      expect(p.atMs).toBeLessThanOrEqual(RUN_MS * 0.33);
      seen.add(p.side[0]!);
    }
    // The member is drawn: 50 seeds do not all pick the same one.
    expect(seen.size).toBeGreaterThan(3);
  });

  it('makes a one-way cut of round(fraction × n) members', () => {
    const p = plan({ oneWay: { fraction: 0.3, durationMs: 9000 } }, 20).partitions;
    expect(p.length).toBe(1);
    expect(p[0]!.side.length).toBe(6);
    expect(p[0]!.oneWay).toBe(true);
    expect(p[0]!.durationMs).toBe(9000);
  });

  it('makes a flapping cut one partition per period, each half a period, the last ending by the end', () => {
    // 25 s of 4 s periods: cuts at 0, 4, … 24 s after the start; the last one is cut short at 25 s.
    const p = plan({ flap: { fraction: 0.4, durationMs: 25_000, periodMs: 4000 } }).partitions;
    const start = p[0]!.atMs;
    expect(p.map((c) => c.atMs - start)).toEqual([0, 4000, 8000, 12_000, 16_000, 20_000, 24_000]);
    expect(p.map((c) => c.durationMs)).toEqual([2000, 2000, 2000, 2000, 2000, 2000, 1000]);
    expect(new Set(p.map((c) => c.side.join(','))).size).toBe(1);
    expect(p[0]!.side.length).toBe(4);
    for (const c of p) expect(c.oneWay).toBeUndefined();
  });

  it('crashes a member of the larger side, apart from the other faults, within [10 %, 50 %] of the cut', () => {
    for (let seed = 0; seed < 100; seed++) {
      for (const fraction of [0.3, 0.7]) {
        const faults = plan(
          {
            crash: 2,
            pause: { count: 2, durationMs: 1000 },
            partition: { fraction, durationMs: 20_000 },
            crashDuringPartition: { restartAfterMs: 5000 },
          },
          10,
          seed,
        );
        const cut = faults.partitions[0]!;
        expect(faults.crashes.length).toBe(3);
        const during = faults.crashes[2]!;
        const larger = fraction > 0.5 ? cut.side : others(cut.side, 10);
        expect(larger).toContain(during.member);
        expect(during.member).not.toBe(9);
        const elsewhere = [...faults.crashes.slice(0, 2), ...faults.pauses].map((f) => f.member);
        expect(elsewhere).not.toContain(during.member);
        expect(during.atMs).toBeGreaterThanOrEqual(cut.atMs + 2000);
        expect(during.atMs).toBeLessThanOrEqual(cut.atMs + 10_000);
        expect(during.restartAtMs).toBe(during.atMs + 5000);
      }
    }
  });

  it('crashes a member outside an isolated one, without a restart unless asked', () => {
    const faults = plan({ isolate: { durationMs: 10_000 }, crashDuringPartition: {} });
    expect(faults.crashes.length).toBe(1);
    expect(faults.crashes[0]!.member).not.toBe(faults.partitions[0]!.side[0]);
    expect(faults.crashes[0]!.restartAtMs).toBeUndefined();
  });

  it('draws the same schedule for a seed and another for another seed', () => {
    const requests: FaultRequest[] = [
      { crash: 1, isolate: { durationMs: 5000 } },
      { crash: 1, oneWay: { fraction: 0.4, durationMs: 5000 } },
      { crash: 1, flap: { fraction: 0.4, durationMs: 20_000, periodMs: 3000 } },
      {
        crash: 1,
        partition: { fraction: 0.4, durationMs: 9000 },
        crashDuringPartition: { restartAfterMs: 1 },
      },
    ];
    for (const request of requests) {
      const a = planFaults(request, 30, RUN_MS, faultRandom(5), new Set([29]));
      const b = planFaults(request, 30, RUN_MS, faultRandom(5), new Set([29]));
      const c = planFaults(request, 30, RUN_MS, faultRandom(6), new Set([29]));
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      expect(c).not.toEqual(a);
    }
  });

  it('faultRandom is the stream fdkit sim has drawn its schedules from', () => {
    const seed = 3;
    const legacy = new Random(((new Random(seed).nextUint32() ^ 0x5f3759df) >>> 0) as number);
    const ours = faultRandom(seed);
    for (let i = 0; i < 5; i++) expect(ours.nextUint32()).toBe(legacy.nextUint32());
  });

  it.each<[string, Omit<FaultRequest, 'crash'>, string, RegExp]>([
    [
      'two cuts',
      { partition: { fraction: 0.3, durationMs: 1 }, isolate: { durationMs: 1 } },
      'isolate',
      /at most one cut, got partition and isolate/,
    ],
    ['a zero isolation', { isolate: { durationMs: 0 } }, 'isolate.durationMs', /got 0 \(a number\)/],
    ['a one-way share of 1', { oneWay: { fraction: 1, durationMs: 10 } }, 'oneWay.fraction', /got 1/],
    ['a one-way share of 0', { oneWay: { fraction: 0, durationMs: 10 } }, 'oneWay.fraction', /got 0/],
    [
      'a flap period under 100 ms',
      { flap: { fraction: 0.4, durationMs: 1000, periodMs: 50 } },
      'flap.periodMs',
      /got 50/,
    ],
    [
      'a flap period of the whole flapping',
      { flap: { fraction: 0.4, durationMs: 1000, periodMs: 1000 } },
      'flap.periodMs',
      /less than flap.durationMs \(1000\).*got 1000/,
    ],
    [
      'more than 10,000 flaps',
      { flap: { fraction: 0.4, durationMs: 2_000_000, periodMs: 100 } },
      'flap.periodMs',
      /got 100/,
    ],
    ['a crash during no cut', { crashDuringPartition: {} }, 'crashDuringPartition', /go with a cut/],
    [
      'a misspelt key',
      { isolate: { durationMs: 5, duration: 5 } as unknown as { durationMs: number } },
      'isolate.duration',
      /isolate\.duration/,
    ],
    [
      'a negative restart',
      { isolate: { durationMs: 5 }, crashDuringPartition: { restartAfterMs: -1 } },
      'crashDuringPartition.restartAfterMs',
      /got -1/,
    ],
  ])(
    'refuses %s with an InvalidOptionError naming the option and the value',
    (_what, request, option, message) => {
      let caught: unknown;
      try {
        plan(request);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidOptionError);
      const e = caught as InvalidOptionError;
      const code = option === 'isolate.duration' ? 'FDKIT_UNKNOWN_OPTION' : 'FDKIT_INVALID_OPTION';
      expect([e.code, e.option]).toEqual([code, option]);
      expect(e.message).toMatch(/^planFaults: (unknown )?option /);
      expect(e.message).toMatch(message);
    },
  );

  it('refuses a crash during the cut when the other faults took the whole larger side', () => {
    // 5 members, the last excluded: a side of 2 leaves 2 on the larger side, and 4 crashes take all.
    expect(() =>
      planFaults(
        { crash: 4, partition: { fraction: 0.4, durationMs: 1000 }, crashDuringPartition: {} },
        5,
        RUN_MS,
        new Random(1),
        new Set([4]),
      ),
    ).toThrow(/crashDuringPartition finds no member of the cut's larger side/);
  });
});

describe('the network under the cuts, at virtual times', () => {
  it('an isolated member reaches nobody and nobody reaches it, during the cut only', () => {
    const n = 8;
    const faults = plan({ isolate: { durationMs: 6000 } }, n, 4);
    const { atMs } = faults.partitions[0]!;
    const m = faults.partitions[0]!.side[0]!;
    const { clock, network } = networkOf(faults, n);
    const cut = [...pairs([m], others([m], n)), ...pairs(others([m], n), [m])].sort();
    clock.advanceTo(atMs - 1);
    expect(blockedPairs(network, n)).toEqual([]);
    clock.advanceTo(atMs);
    expect(blockedPairs(network, n).sort()).toEqual(cut);
    clock.advanceTo(atMs + 5999);
    expect(blockedPairs(network, n).sort()).toEqual(cut);
    expect(network.packetDelay(m, (m + 1) % n)).toBe(-1);
    clock.advanceTo(atMs + 6000);
    expect(blockedPairs(network, n)).toEqual([]);
    expect(network.packetDelay(m, (m + 1) % n)).toBeGreaterThan(0);
  });

  it('a one-way cut drops the side’s packets to the rest and delivers the rest’s, then heals', () => {
    const n = 10;
    const faults = plan({ oneWay: { fraction: 0.3, durationMs: 8000 } }, n, 2);
    const { atMs, side } = faults.partitions[0]!;
    const rest = others(side, n);
    const { clock, network } = networkOf(faults, n);
    clock.advanceTo(atMs - 1);
    expect(blockedPairs(network, n)).toEqual([]);
    clock.advanceTo(atMs + 4000);
    expect(blockedPairs(network, n).sort()).toEqual(pairs(side, rest).sort());
    const [i, j] = [side[0]!, rest[0]!];
    expect([network.reachable(i, j), network.reachable(j, i)]).toEqual([false, true]);
    // A handshake needs both ways: a TCP connection fails from either side.
    expect(network.handshakeDelay(j, i, 5000)).toBe(-1);
    clock.advanceTo(atMs + 7999);
    expect([network.reachable(i, j), network.reachable(j, i)]).toEqual([false, true]);
    clock.advanceTo(atMs + 8000);
    expect([network.reachable(i, j), network.reachable(j, i)]).toEqual([true, true]);
    expect(blockedPairs(network, n)).toEqual([]);
  });

  it('a flapping cut is on for the first half of each period and off for the second, then off', () => {
    const n = 10;
    const [flapMs, periodMs] = [20_000, 3000];
    const faults = plan({ flap: { fraction: 0.4, durationMs: flapMs, periodMs } }, n, 3);
    const { atMs: start, side } = faults.partitions[0]!;
    const rest = others(side, n);
    const cut = [...pairs(side, rest), ...pairs(rest, side)].sort();
    const { clock, network } = networkOf(faults, n);
    const states: string[] = [];
    let checked = 0;
    // Each period: just in, just before its half, at its half, just before its end.
    for (let k = 0; k * periodMs < flapMs; k++) {
      for (const offset of [0, periodMs / 2 - 1, periodMs / 2, periodMs - 1]) {
        const t = start + k * periodMs + offset;
        if (t >= start + flapMs) continue;
        clock.advanceTo(t);
        checked++;
        const blocked = blockedPairs(network, n).sort();
        const expected = offset < periodMs / 2 ? cut : [];
        if (JSON.stringify(blocked) !== JSON.stringify(expected))
          states.push(`t=${t}: ${blocked.length} blocked`);
      }
    }
    expect(states).toEqual([]);
    // Seven periods begin within 20 s, and the seventh (at 18 s) is still cut at 19.5 s - 1: 6 × 4 + 3.
    expect(checked).toBe(27);
    clock.advanceTo(start + flapMs + 10_000);
    expect(blockedPairs(network, n)).toEqual([]);
  });
});

describe('a run with each cut', () => {
  const schedules: [string, FaultRequest][] = [
    ['isolate', { crash: 0, isolate: { durationMs: 6000 } }],
    ['one-way', { crash: 0, oneWay: { fraction: 0.4, durationMs: 6000 } }],
    ['flap', { crash: 0, flap: { fraction: 0.4, durationMs: 8000, periodMs: 2000 } }],
    [
      'crash during the cut',
      {
        crash: 0,
        partition: { fraction: 0.4, durationMs: 8000 },
        crashDuringPartition: { restartAfterMs: 4000 },
      },
    ],
  ];

  function run(request: FaultRequest, seed: number): string {
    const nodes = 8;
    const faults = planFaults(request, nodes, 20_000, faultRandom(seed), new Set([nodes - 1]));
    return JSON.stringify(
      new Simulation({ nodes, seconds: 20, seed, faults, downing: { name: 'keep-majority' } }).run(),
    );
  }

  it.each(schedules)('%s: repeats byte for byte from its seed', (_name, request) => {
    const first = run(request, 11);
    expect(run(request, 11)).toBe(first);
    expect(run(request, 12)).not.toBe(first);
  });

  it('the crash during the cut is one the report counts', () => {
    const report = JSON.parse(run(schedules[3]![1], 11)) as { detection: { crashed: number } };
    expect(report.detection.crashed).toBe(1);
  });
});

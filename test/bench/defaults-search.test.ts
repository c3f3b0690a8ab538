/**
 * The defaults search's pure parts (bench/defaults-search/): pooling a scenario's runs, the constraints
 * against memberlist's baseline, the summary and ranking of arms, the Pareto frontier, the grid's
 * neighbours, the per-scenario table and the compact JSON; the stages on a fake runner; and one real
 * run, to pin what counts as a false death. Expected values are worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { frontierChart } from '../../bench/defaults-search/chart.js';
import {
  type ArmSummary,
  compare,
  exceedsBeyondNoise,
  paretoFrontier,
  rank,
  type ScenarioStats,
  scenarioStats,
  summarize,
} from '../../bench/defaults-search/evaluate.js';
import { compactJson, scenarioTable } from '../../bench/defaults-search/report.js';
import { runSearchSpec, type SearchRunRecord, type SearchRunSpec } from '../../bench/defaults-search/run.js';
import { type Scenario, scenariosOf } from '../../bench/defaults-search/scenarios.js';
import {
  type ArmResult,
  pickFinalists,
  pickOf,
  type Runner,
  searchProfile,
} from '../../bench/defaults-search/search.js';
import {
  keyOf,
  MEMBERLIST,
  neighbours,
  type Space,
  spaceOf,
  type Values,
  valid,
} from '../../bench/defaults-search/space.js';
import type { FalsePositiveCounts } from '../../bench/support/sim-tally.js';

const NO_FP: FalsePositiveCounts = {
  healthySuspicions: 0,
  healthyDeaths: 0,
  healthyDeathsAtHealthy: 0,
  healthyDeathsAtSlow: 0,
  accusationsBySlow: 0,
  accusationsByHealthy: 0,
  slowSuspicions: 0,
  slowDeaths: 0,
};

function record(over: Partial<SearchRunRecord>): SearchRunRecord {
  return {
    seed: 1,
    hostCrashes: [],
    killAllKnowMs: [],
    falsePositives: NO_FP,
    msgsPerNodePerSec: 4,
    bytesPerNodePerSec: 200,
    socketBufferDrops: 0,
    wallMs: 1,
    ...over,
  };
}

function stats(over: Partial<ScenarioStats>): ScenarioStats {
  return { ...scenarioStats('n20-loss10', [record({})]), ...over };
}

describe('scenarioStats', () => {
  const runs = [
    record({
      seed: 1,
      hostCrashes: [
        { allKnowDeadMs: 1000.4, healthyKnowDeadMs: 900, firstSuspectMs: 100, firstDeadMs: 500 },
        { allKnowDeadMs: null, healthyKnowDeadMs: 700, firstSuspectMs: 200, firstDeadMs: null },
      ],
      killAllKnowMs: [800],
      falsePositives: { ...NO_FP, healthySuspicions: 10, slowSuspicions: 5, healthyDeaths: 2, slowDeaths: 3 },
      msgsPerNodePerSec: 4,
    }),
    record({
      seed: 2,
      hostCrashes: [{ allKnowDeadMs: 3000, healthyKnowDeadMs: 2500, firstSuspectMs: 300, firstDeadMs: 2000 }],
      killAllKnowMs: [null],
      falsePositives: { ...NO_FP, healthySuspicions: 1, accusationsByHealthy: 1, accusationsBySlow: 2 },
      msgsPerNodePerSec: 6,
    }),
  ];
  const s = scenarioStats('n20-pause6', runs);

  it('pools the host crashes of every seed, a missed one counting as never', () => {
    expect(s.hostCrashes).toBe(3);
    expect(s.missed).toBe(1);
    expect(s.allKnowMs).toEqual([1000, null, 3000]);
    // Sorted: 1000, 3000, never: the median is 3000, the largest never.
    expect(s.allKnowMedianMs).toBe(3000);
    expect(s.allKnowMaxMs).toBeNull();
    // The members that are not starved knew all three: 700, 900, 2500.
    expect(s.healthyKnowMedianMs).toBe(900);
    expect(s.firstSuspectMedianMs).toBe(200);
    expect(s.firstDeadMedianMs).toBe(1250);
    // 800 and never: the median is never.
    expect(s.killAllKnowMedianMs).toBeNull();
  });

  it('totals the false positives over the seeds, starved members apart, and takes the median load', () => {
    expect(s.falseSuspicions).toBe(16);
    expect(s.slowSuspicions).toBe(5);
    expect(s.falseAccusations).toBe(3);
    expect(s.falseDeaths).toBe(2);
    expect(s.slowDeaths).toBe(3);
    expect(s.msgsPerNodePerSec).toBe(5);
    expect(s.seeds).toBe(2);
    expect(s.falseSuspicionsBySeed).toEqual([15, 1]);
    expect(s.falseDeathsBySeed).toEqual([2, 0]);
    expect(s.slowDeathsBySeed).toEqual([3, 0]);
  });
});

describe('compare', () => {
  const ml = stats({
    falseSuspicions: 100,
    falseSuspicionsBySeed: [30, 30, 40],
    slowDeaths: 10,
    slowDeathsBySeed: [5, 5, 0],
    msgsPerNodePerSec: 4,
    bytesPerNodePerSec: 200,
    missed: 0,
    allKnowMedianMs: 10_000,
  });

  it('passes an arm exactly at every bound', () => {
    const c = compare(
      stats({
        falseSuspicionsBySeed: [40, 30, 30],
        slowDeathsBySeed: [0, 5, 5],
        msgsPerNodePerSec: 6,
        missed: 0,
        allKnowMedianMs: 6000,
      }),
      ml,
    );
    expect(c.violations).toEqual([]);
    expect(c.withinNoise).toEqual([]);
    expect(c.allKnowRatio).toBe(0.6);
    expect(c.loadRatio).toBe(1.5);
  });

  it('names each bound an arm goes past, and an excess within the noise apart', () => {
    const c = compare(
      stats({
        falseDeaths: 1,
        // 10 more on every seed: beyond noise. One more on one seed of three: within it.
        falseSuspicionsBySeed: [40, 40, 50],
        slowDeathsBySeed: [6, 5, 0],
        msgsPerNodePerSec: 6.01,
        bytesPerNodePerSec: 500,
        missed: 1,
        allKnowMedianMs: 5000,
      }),
      ml,
    );
    expect(c.violations).toEqual(['false-deaths', 'suspicions', 'load', 'missed']);
    expect(c.withinNoise).toEqual(['slow-deaths']);
    expect(c.allKnowRatio).toBe(0.5);
    expect(c.bytesRatio).toBe(2.5);
  });

  it('has no ratio where either all-know time is never', () => {
    expect(compare(stats({ allKnowMedianMs: null }), ml).allKnowRatio).toBeNull();
  });
});

describe('exceedsBeyondNoise', () => {
  it('needs a larger total', () => {
    expect(exceedsBeyondNoise([3], [3])).toBe(false);
    expect(exceedsBeyondNoise([5, 0], [0, 6])).toBe(false);
  });

  it('counts any excess of one seed, or of the same difference on every seed', () => {
    expect(exceedsBeyondNoise([5], [3])).toBe(true);
    expect(exceedsBeyondNoise([4, 4], [3, 3])).toBe(true);
  });

  it('counts a mean paired excess above two standard errors', () => {
    // Differences 2, 1, 3, 2: mean 2, variance 2/3, standard error sqrt(2/3/4) = 0.41.
    expect(exceedsBeyondNoise([12, 11, 13, 12], [10, 10, 10, 10])).toBe(true);
    // Differences 2, 0: mean 1, variance 2, standard error 1.
    expect(exceedsBeyondNoise([12, 10], [10, 10])).toBe(false);
    // Differences 10, −9: mean 0.5, standard error 9.5.
    expect(exceedsBeyondNoise([10, 0], [0, 9])).toBe(false);
  });
});

function scenario(key: string, nodes: number, gate: boolean): Scenario {
  return {
    key,
    condition: key,
    label: key,
    nodes,
    seconds: 60,
    network: {},
    crashes: 2,
    kills: 2,
    screen: true,
    gate,
  };
}

describe('summarize', () => {
  const scenarios = [scenario('a', 20, true), scenario('b', 100, true), scenario('c', 5, false)];
  const st = [
    stats({ scenario: 'a', allKnowMs: [1000], falseSuspicions: 7 }),
    stats({ scenario: 'b', allKnowMs: [4000, 2000, null], falseSuspicions: 30 }),
    stats({ scenario: 'c', allKnowMs: [1], falseSuspicions: 1000 }),
  ];
  // memberlist: 10 + 20 + 970 = 1000 false suspicions, against 1037 for the arm.
  const ml = [
    stats({ scenario: 'a', falseSuspicions: 10 }),
    stats({ scenario: 'b', falseSuspicions: 20 }),
    stats({ scenario: 'c', falseSuspicions: 970 }),
  ];
  const ratio = (scenario: string, allKnowRatio: number | null) => ({
    scenario,
    allKnowRatio,
    loadRatio: 1,
    bytesRatio: 1,
    violations: [],
    withinNoise: [],
  });

  it('takes the geometric mean and the worst ratio over the gate scenarios only', () => {
    const s = summarize(st, [ratio('a', 0.5), ratio('b', 0.8), ratio('c', 2)], scenarios, ml);
    expect(s.feasible).toBe(true);
    expect(s.hardViolations).toBe(0);
    expect(s.suspicionsRatio).toBe(1.037);
    // sqrt(0.5 × 0.8) = sqrt(0.4) = 0.63246
    expect(s.gateGeomeanRatio).toBe(0.6325);
    expect(s.gateWorstRatio).toBe(0.8);
    expect(s.gateWorstScenario).toBe('b');
    // n = 100 only: 2000, 4000, never.
    expect(s.n100AllKnowMedianMs).toBe(4000);
    expect(s.n100FalseSuspicions).toBe(30);
  });

  it('counts a gate scenario without a ratio as infinitely slow, and lists violations', () => {
    const s = summarize(
      st,
      [ratio('a', 0.5), { ...ratio('b', null), violations: ['load', 'suspicions'] }, ratio('c', 2)],
      scenarios,
      ml,
    );
    expect(s.gateGeomeanRatio).toBeNull();
    expect(s.gateWorstRatio).toBeNull();
    expect(s.gateWorstScenario).toBe('b');
    expect(s.feasible).toBe(false);
    expect(s.hardViolations).toBe(1);
    expect(s.violations).toEqual([
      { scenario: 'b', violation: 'load' },
      { scenario: 'b', violation: 'suspicions' },
    ]);
  });

  it('counts the violations of the gate scenarios apart from those at n = 5', () => {
    const s = summarize(
      st,
      [
        { ...ratio('a', 0.5), violations: ['suspicions'] },
        ratio('b', 0.8),
        { ...ratio('c', 2), violations: ['suspicions', 'slow-deaths'] },
      ],
      scenarios,
      ml,
    );
    expect(s.violations).toHaveLength(3);
    expect(s.gateViolations).toBe(1);
    expect(s.hardViolations).toBe(0);
  });
});

describe('rank', () => {
  const arm = (
    key: string,
    feasible: boolean,
    violations: number,
    geomean: number | null,
    worst = 1,
    hard = violations,
    suspicionsRatio = 1,
    gate = 0,
  ) => ({
    key,
    summary: {
      feasible,
      violations: Array.from({ length: violations }, () => ({ scenario: 's', violation: 'load' as const })),
      hardViolations: hard,
      gateViolations: gate,
      suspicionsRatio,
      gateGeomeanRatio: geomean,
      gateWorstRatio: worst,
      gateWorstScenario: 's',
      n100AllKnowMedianMs: null,
      n100FalseSuspicions: 0,
    } satisfies ArmSummary,
  });

  it('among arms without hard violations, puts those with no more false suspicions in total first, then the faster', () => {
    // H: 3 noisy excesses, 1.25 × memberlist's time; I: 7 excesses, 0.5 ×, 0.98 × the suspicions; J: the
    // fastest, but 1.1 × memberlist's suspicions in total.
    const order = rank([
      arm('H', false, 3, 1.25, 2.5, 0, 0.9),
      arm('I', false, 7, 0.5, 0.93, 0, 0.98),
      arm('J', false, 1, 0.4, 0.9, 0, 1.1),
    ]).map((a) => a.key);
    expect(order).toEqual(['I', 'H', 'J']);
  });

  it('among arms without hard violations, puts fewer violations at n = 20 and 100 before fewer suspicions and speed', () => {
    // K: fast, fewer suspicions in total, but over memberlist's in two gate scenarios; L: slower, no gate
    // violation (its excesses are at n = 5, where the bar does not apply); M: as L with one.
    const order = rank([
      arm('K', false, 2, 0.5, 0.9, 0, 0.96, 2),
      arm('L', false, 6, 0.51, 1.4, 0, 0.56, 0),
      arm('M', false, 1, 0.45, 0.9, 0, 0.5, 1),
    ]).map((a) => a.key);
    expect(order).toEqual(['L', 'M', 'K']);
  });

  it('puts feasible arms first, then fewer hard violations, then the smaller ratio, then the smaller worst', () => {
    const order = rank([
      arm('A', true, 0, 0.7),
      arm('B', false, 1, 0.3),
      arm('C', true, 0, 0.5),
      arm('D', true, 0, null),
      arm('E', false, 2, 0.1),
      arm('F', true, 0, 0.5, 0.6),
      arm('G', false, 3, 0.1, 1, 0),
    ]).map((a) => a.key);
    expect(order).toEqual(['F', 'C', 'A', 'D', 'G', 'B', 'E']);
  });
});

describe('pickOf', () => {
  const arm = (key: string, role: 'candidate' | 'memberlist', adaptive: number) => ({
    key,
    role,
    values: { ...MEMBERLIST.lan, adaptive },
  });

  it('picks the best candidate a profile can carry: never a baseline, never one that needs the adaptive timeout', () => {
    const ranked = [
      arm('ml', 'memberlist', 0),
      arm('a1', 'candidate', 1),
      arm('c', 'candidate', 0),
      arm('d', 'candidate', 0),
    ];
    expect(pickOf(ranked)?.key).toBe('c');
    expect(pickOf(ranked.slice(0, 2))).toBeUndefined();
  });
});

describe('paretoFrontier', () => {
  it('keeps the points no other point beats in both coordinates, by x', () => {
    const points = [
      { x: 1, y: 5 },
      { x: 2, y: 3 },
      { x: 3, y: 4 },
      { x: 4, y: 1 },
      { x: 2, y: 3 },
      { x: 0, y: 9 },
      { x: 5, y: 1 },
      { x: Number.NaN, y: 0 },
    ];
    // (3, 4) is beaten by (2, 3), (5, 1) by (4, 1), the second (2, 3) is a copy, NaN is no point.
    expect(paretoFrontier(points)).toEqual([5, 0, 1, 3]);
  });

  it('is empty without points', () => {
    expect(paretoFrontier([])).toEqual([]);
  });
});

describe('the grid', () => {
  const space: Space = {
    probeIntervalMs: [500, 1000],
    probeTimeoutMs: [200, 500, 800],
    suspicionMult: [2, 4],
    suspicionMaxTimeoutMult: [6],
    indirectChecks: [3],
    adaptive: [0, 1],
    gossipIntervalMs: [200],
    gossipNodes: [3],
    hostSilenceMs: [0, 1000],
  };
  const v: Values = { ...MEMBERLIST.lan, probeIntervalMs: 500, probeTimeoutMs: 200 };

  it('names a point by every value', () => {
    expect(keyOf(MEMBERLIST.lan)).toBe('p1000 t500 m4 x6 i3 a0 g200n3 h0');
  });

  it('steps one value at a time, skipping invalid and excluded points', () => {
    const keys = neighbours(space, v, new Set(['p500 t200 m4 x6 i3 a1 g200n3 h0'])).map(keyOf);
    // Up the interval; up the timeout (500 fits 500 ms, 800 would not be a step anyway); down the
    // suspicionMult (4 is the top); adaptive excluded; host silence on.
    expect(keys).toEqual([
      'p1000 t200 m4 x6 i3 a0 g200n3 h0',
      'p500 t500 m4 x6 i3 a0 g200n3 h0',
      'p500 t200 m2 x6 i3 a0 g200n3 h0',
      'p500 t200 m4 x6 i3 a0 g200n3 h1000',
    ]);
  });

  it('steps from a value off the grid to its nearest values on it', () => {
    const off = { ...v, suspicionMult: 3 };
    const keys = neighbours(space, off, new Set()).map((w) => w.suspicionMult);
    expect(keys.filter((m) => m !== 3).sort()).toEqual([2, 4]);
  });

  it('rejects a timeout above the interval and a host silence below the timeout', () => {
    expect(valid({ ...v, probeTimeoutMs: 600 })).toBe(false);
    expect(valid({ ...v, hostSilenceMs: 100 })).toBe(false);
    expect(valid({ ...v, hostSilenceMs: 200 })).toBe(true);
    expect(valid(v)).toBe(true);
  });
});

describe('scenarioTable', () => {
  it('gives a row per configuration, with ratios to the first', () => {
    const ml = stats({
      allKnowMedianMs: 10_000,
      allKnowMaxMs: 12_500,
      healthyKnowMedianMs: 9000,
      firstSuspectMedianMs: 1500,
      falseSuspicions: 40,
      slowSuspicions: 4,
      falseDeaths: 0,
      slowDeaths: 3,
      msgsPerNodePerSec: 4,
      bytesPerNodePerSec: 200.4,
    });
    const next = stats({
      allKnowMedianMs: 5000,
      allKnowMaxMs: null,
      missed: 1,
      healthyKnowMedianMs: 4000,
      firstSuspectMedianMs: 1000,
      falseSuspicions: 10,
      slowSuspicions: 0,
      falseDeaths: 0,
      slowDeaths: 0,
      msgsPerNodePerSec: 5,
      bytesPerNodePerSec: 300,
    });
    const table = scenarioTable([
      { label: 'memberlist', stats: ml },
      { label: 'fdkit new', stats: next, violations: ['load'], withinNoise: ['suspicions'] },
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('| memberlist | 10.0 / 12.5 | 9.0 | 1.5 | 40 (4) | 0 (3) | 4 | 200 | 1 | 1 | – |');
    expect(lines[3]).toBe(
      '| fdkit new | 5.0 / never (1 missed) | 4.0 | 1.0 | 10 (0) | 0 (0) | 5 | 300 | 0.50 | 1.25 | load, (suspicions, within noise) |',
    );
  });
});

describe('compactJson', () => {
  it('lays out the top levels and puts deeper values on one line', () => {
    const text = compactJson(
      {
        a: 1,
        rows: [
          [1, 'x'],
          [2, null],
        ],
        deep: { b: { c: [1] } },
      },
      2,
    );
    expect(text).toBe(
      [
        '{',
        '  "a": 1,',
        '  "rows": [',
        '    [1,"x"],',
        '    [2,null]',
        '  ],',
        '  "deep": {',
        '    "b": {"c":[1]}',
        '  }',
        '}',
      ].join('\n'),
    );
    expect(JSON.parse(text)).toEqual({
      a: 1,
      rows: [
        [1, 'x'],
        [2, null],
      ],
      deep: { b: { c: [1] } },
    });
  });
});

describe('searchProfile on a fake runner', () => {
  // All-know time is suspicionMult seconds in every scenario; nothing else differs from memberlist.
  const calls: SearchRunSpec[] = [];
  const runner: Runner = {
    run: (spec) => {
      calls.push(spec);
      const m = spec.config.suspicionMult ?? 0;
      return Promise.resolve(
        record({
          seed: spec.seed,
          hostCrashes: [
            { allKnowDeadMs: m * 1000, healthyKnowDeadMs: m * 1000, firstSuspectMs: 1, firstDeadMs: 2 },
          ],
        }),
      );
    },
    armDone: () => {},
  };
  const plan = {
    profile: 'local' as const,
    screenSeeds: { small: 2, n100: 0, n1000: 0 },
    sample: 3,
    refineRounds: 1,
    refineTop: 1,
    finalists: 2,
    finalSeeds: { small: 3, n100: 0, n1000: 0 },
    sampleSeed: 7,
  };
  const space: Space = {
    probeIntervalMs: [1000],
    probeTimeoutMs: [200],
    suspicionMult: [1, 2, 3, 4, 5],
    suspicionMaxTimeoutMult: [6],
    indirectChecks: [1, 2],
    adaptive: [0],
    gossipIntervalMs: [100],
    gossipNodes: [3],
    hostSilenceMs: [0],
  };
  const done = searchProfile(plan, space, runner);

  it('screens the sample, refines around the best, and picks the fastest finalist', async () => {
    const stages = await done;
    expect(stages.map((s) => s.name)).toEqual(['screen', 'refine', 'final']);
    const candidates = (arms: readonly ArmResult[]) => arms.filter((a) => a.role === 'candidate');
    const screened = candidates(stages[0]!.arms);
    expect(screened).toHaveLength(3);
    const best = screened[0]!;
    expect(best.values.suspicionMult).toBe(Math.min(...screened.map((a) => a.values.suspicionMult)));
    // memberlist's local suspicionMult is 3: the ratio is m / 3 in every gate scenario.
    expect(best.summary.gateGeomeanRatio).toBeCloseTo(best.values.suspicionMult / 3, 4);
    const expected = neighbours(
      space,
      best.values,
      new Set([...screened.map((a) => a.key), keyOf(MEMBERLIST.local)]),
    );
    expect(
      candidates(stages[1]!.arms)
        .map((a) => a.key)
        .sort(),
    ).toEqual(expected.map(keyOf).sort());
    const final = stages[2]!;
    expect(final.arms.map((a) => a.role).sort()).toEqual([
      'candidate',
      'candidate',
      'fdkit-old',
      'memberlist',
    ]);
    const all = [...screened, ...candidates(stages[1]!.arms)];
    expect(candidates(final.arms)[0]!.values.suspicionMult).toBe(
      Math.min(...all.map((a) => a.values.suspicionMult)),
    );
    expect(final.scenarios).toEqual(scenariosOf('local').map((s) => s.key));
  });

  it('runs seeds 1 to k, and memberlist’s values without the extras', async () => {
    await done;
    expect(new Set(calls.map((c) => c.seed))).toEqual(new Set([1, 2, 3]));
    expect(calls.some((c) => !c.extras && c.config.suspicionMult === 3)).toBe(true);
    expect(calls.every((c) => c.extras || c.config.suspicionMult === 3)).toBe(true);
  });
});

describe('runSearchSpec', () => {
  const spec: SearchRunSpec = {
    profile: 'local',
    config: {},
    adaptive: false,
    extras: true,
    nodes: 5,
    seconds: 60,
    seed: 3,
    network: {},
    crashes: 1,
    kills: 0,
    // One member frozen for 30 s: far past local's suspicion timeout (3 s to 18 s at n = 5).
    pause: { count: 1, durationMs: 30_000 },
  };

  it('counts the death of a paused member as a false death, and repeats exactly', () => {
    const a = runSearchSpec(spec);
    const b = runSearchSpec(spec);
    expect(a.falsePositives.healthyDeaths).toBeGreaterThan(0);
    expect(a.falsePositives.slowDeaths).toBe(0);
    expect(a.hostCrashes).toHaveLength(1);
    expect(a.killAllKnowMs).toHaveLength(0);
    // The crashed host is known everywhere, after at least one probe timeout and within the run.
    const allKnow = a.hostCrashes[0]!.allKnowDeadMs;
    expect(allKnow).not.toBeNull();
    expect(allKnow!).toBeGreaterThan(200);
    expect(allKnow!).toBeLessThan(40_000);
    expect({ ...a, wallMs: 0 }).toEqual({ ...b, wallMs: 0 });
  });
});

describe('frontierChart', () => {
  const svg = frontierChart({
    title: 'Frontier <lan>',
    xLabel: 'false suspicions',
    yLabel: 'seconds',
    points: [
      { key: 'memberlist', x: 100, y: 10, verdict: 'hard', role: 'memberlist' },
      { key: 'fdkit-old', x: 90, y: 10.5, verdict: 'hard', role: 'fdkit-old' },
      { key: 'a', x: 50, y: 6, verdict: 'feasible', role: 'candidate' },
      { key: 'b', x: 80, y: 4, verdict: 'soft', role: 'new' },
      { key: 'c', x: 70, y: 7, verdict: 'feasible', role: 'candidate' },
      { key: 'd', x: 10, y: 2, verdict: 'hard', role: 'candidate' },
    ],
  });

  it('draws every candidate as a dot, by verdict', () => {
    expect(svg.match(/class="dot feasible"/g)).toHaveLength(2);
    expect(svg.match(/class="dot soft"/g)).toHaveLength(1);
    expect(svg.match(/class="dot hard"/g)).toHaveLength(1);
    expect(svg).toContain('<title>Frontier &lt;lan&gt;</title>');
  });

  it('draws the frontier of the candidates without a hard violation as a staircase through a and b', () => {
    const d = /class="frontier" d="M([^"]+)"/.exec(svg)![1]!;
    // a, the step right to b's x at a's height, b, then on to the right edge: four points; c is beaten
    // by a, d has a hard violation.
    const points = d.split(' L');
    expect(points).toHaveLength(4);
    expect(points[0]!.split(',')[1]).toBe(points[1]!.split(',')[1]);
    expect(Number(points[2]!.split(',')[1])).toBeGreaterThan(Number(points[1]!.split(',')[1]));
  });

  it('marks and labels the three baselines', () => {
    for (const role of ['memberlist', 'fdkit-old', 'new']) expect(svg).toContain(`data-role="${role}"`);
    expect(svg).toContain('>fdkit new</text>');
    expect(svg).toContain('>memberlist (its defaults)</text>');
  });
});

describe('pickFinalists', () => {
  const arm = (key: string, hostSilenceMs: number): ArmResult =>
    ({ key, values: { ...MEMBERLIST.lan, hostSilenceMs } }) as unknown as ArmResult;

  it('takes the best, then the best of each host-silence value not among them', () => {
    const ranked = [arm('A', 1000), arm('B', 1000), arm('C', 0), arm('D', 2000), arm('E', 0)];
    const space = { ...spaceOf('lan', true), hostSilenceMs: [0, 1000, 2000, 3000] };
    expect(pickFinalists(ranked, 1, space).map((a) => a.key)).toEqual(['A', 'C', 'D']);
    expect(pickFinalists(ranked, 2, space).map((a) => a.key)).toEqual(['A', 'B', 'C', 'D']);
  });
});

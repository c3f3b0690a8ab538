/**
 * What the SWIM sweeps run: the crashes of every run, the networks, the full and quick modes, the sweep
 * points (probe interval, suspicionMult, independent and bursty loss, cluster size), and the Lifeguard
 * configurations and scenarios with a CPU-starved member.
 */
import type { NetworkModel } from '../../src/sim/network.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { burstEnterFor } from '../support/aggregate.js';
import { round } from '../support/stats.js';

/** Crashes per run: hosts that go down, and processes killed on live hosts. */
export const HOST_CRASHES = 2;
export const KILLS = 2;
/** Loss of the sweeps over probe interval and suspicionMult: a bad network, where they matter. */
export const BASE_LOSS = 0.1;
/**
 * Loss of the cluster-size sweep. Every false suspicion reaches all n members, so at 10 % loss the
 * events to simulate grow as n² (a 1,000-member run costs 50 s of CPU); at 5 % false suspicions are
 * rare and the sweep shows how detection scales.
 */
export const SIZE_LOSS = 0.05;
const BASE_NODES = 100;
/** Bursty loss: bursts of 5 packets on average (exit 0.2 a packet), 90 % of them lost. */
export const BURST_EXIT = 0.2;
export const BURST_LOSS = 0.9;

export interface Mode {
  readonly name: 'full' | 'quick';
  readonly seeds: number;
  readonly seconds: number;
  readonly intervals: readonly number[];
  readonly mults: readonly number[];
  readonly lossRates: readonly number[];
  readonly burstyRates: readonly number[];
  readonly sizes: readonly number[];
  readonly lifeguardSeeds: number;
  readonly variantSeeds: number;
  /** Seeds of the 500-member Lifeguard variant (0: skipped). */
  readonly largeSeeds: number;
  readonly timeLimitS: number;
}

export const FULL: Mode = {
  name: 'full',
  seeds: 5,
  seconds: 150,
  intervals: [250, 500, 1000, 2000],
  mults: [1, 2, 3, 4, 6, 8],
  lossRates: [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3],
  burstyRates: [0.01, 0.02, 0.05, 0.1, 0.2],
  sizes: [20, 100, 500, 1000],
  lifeguardSeeds: 20,
  variantSeeds: 10,
  largeSeeds: 4,
  timeLimitS: 600,
};

export const QUICK: Mode = {
  name: 'quick',
  seeds: 2,
  seconds: 150,
  intervals: [500, 1000, 2000],
  mults: [2, 4, 8],
  lossRates: [0, 0.05, 0.1, 0.2],
  burstyRates: [0.05, 0.1, 0.2],
  sizes: [20, 100, 500],
  lifeguardSeeds: 6,
  variantSeeds: 3,
  largeSeeds: 0,
  timeLimitS: 180,
};

export type SweepName = 'probe-interval' | 'suspicion-mult' | 'loss' | 'bursty-loss' | 'cluster-size';

export interface SweepPoint {
  readonly sweep: SweepName;
  readonly label: string;
  readonly x: number;
  readonly nodes: number;
  readonly config?: Partial<SwimConfig>;
  readonly network: Partial<NetworkModel>;
}

function independentLoss(rate: number): Partial<NetworkModel> {
  return { loss: rate };
}

function burstyLoss(rate: number): Partial<NetworkModel> {
  return {
    burstEnter: round(burstEnterFor(rate, BURST_EXIT, BURST_LOSS), 6),
    burstExit: BURST_EXIT,
    burstLoss: BURST_LOSS,
  };
}

/** One sweep: a point for each value of `xs`, its label, size, config and network given by `point`. */
function sweep(
  name: SweepName,
  xs: readonly number[],
  point: (x: number) => Omit<SweepPoint, 'sweep' | 'x'>,
): SweepPoint[] {
  // Spelled out in SweepPoint's order, which the JSON keeps.
  return xs.map((x) => {
    const { label, ...rest } = point(x);
    return { sweep: name, label, x, ...rest };
  });
}

export function sweepPoints(mode: Mode): SweepPoint[] {
  const base = independentLoss(BASE_LOSS);
  return [
    ...sweep('probe-interval', mode.intervals, (interval) => ({
      label: `probe interval ${interval} ms`,
      nodes: BASE_NODES,
      // The lan ratio: the probe timeout is half the interval.
      config: { probeIntervalMs: interval, probeTimeoutMs: interval / 2 },
      network: base,
    })),
    ...sweep('suspicion-mult', mode.mults, (mult) => ({
      label: `suspicionMult ${mult}`,
      nodes: BASE_NODES,
      config: { suspicionMult: mult },
      network: base,
    })),
    ...sweep('loss', mode.lossRates, (rate) => ({
      label: `${round(rate * 100, 1)} % independent loss`,
      nodes: BASE_NODES,
      network: independentLoss(rate),
    })),
    ...sweep('bursty-loss', mode.burstyRates, (rate) => ({
      label: `${round(rate * 100, 1)} % bursty loss`,
      nodes: BASE_NODES,
      network: burstyLoss(rate),
    })),
    ...sweep('cluster-size', mode.sizes, (n) => ({
      label: `n = ${n}`,
      nodes: n,
      network: independentLoss(SIZE_LOSS),
    })),
  ];
}

/** Lifeguard's two mechanisms off: no local health (and so no use for nacks), a fixed suspicion timeout. */
const NO_LIFEGUARD: Partial<SwimConfig> = { awarenessMaxMultiplier: 1, suspicionMaxTimeoutMult: 1 };

export type LifeguardKey = 'off-bare' | 'on-bare' | 'off-extras' | 'shipped';

export interface LifeguardMode {
  readonly key: LifeguardKey;
  readonly label: string;
  readonly short: string;
  readonly config: Partial<SwimConfig>;
  readonly freezeGuard?: boolean;
  readonly deathWatch?: boolean;
  readonly busySignal?: boolean;
}

export const LIFEGUARD_MODES: readonly LifeguardMode[] = [
  {
    key: 'off-bare',
    label: 'Lifeguard off, fdkit extras off',
    short: 'Lifeguard off, extras off',
    config: NO_LIFEGUARD,
    freezeGuard: false,
    deathWatch: false,
    busySignal: false,
  },
  {
    key: 'on-bare',
    label: 'Lifeguard on, fdkit extras off',
    short: 'Lifeguard on, extras off',
    config: {},
    freezeGuard: false,
    deathWatch: false,
    busySignal: false,
  },
  {
    key: 'off-extras',
    label: 'Lifeguard off, fdkit extras on',
    short: 'Lifeguard off, extras on',
    config: NO_LIFEGUARD,
  },
  {
    key: 'shipped',
    label: 'fdkit as shipped (Lifeguard on, extras on)',
    short: 'fdkit as shipped',
    config: {},
  },
];

export interface LifeguardScenario {
  readonly key: string;
  readonly label: string;
  readonly nodes: number;
  /** The slow members (never crashed). */
  readonly slow: readonly number[];
  readonly meanMs: number;
  readonly timersFirst: boolean;
  readonly seeds: number;
}

/** When the slow CPU starts: once the cluster has settled. */
export const SLOW_FROM_MS = 10_000;

export function lifeguardScenarios(mode: Mode): LifeguardScenario[] {
  const v = mode.variantSeeds;
  const list: LifeguardScenario[] = [
    {
      key: 'main',
      label: '100 members, 1 CPU-starved (100 ms a task, timers first)',
      nodes: 100,
      slow: [1],
      meanMs: 100,
      timersFirst: true,
      seeds: mode.lifeguardSeeds,
    },
    {
      key: 'slow-50',
      label: '100 members, 1 starved at 50 ms a task',
      nodes: 100,
      slow: [1],
      meanMs: 50,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'slow-200',
      label: '100 members, 1 starved at 200 ms a task (its backlog grows)',
      nodes: 100,
      slow: [1],
      meanMs: 200,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'three-slow',
      label: '100 members, 3 starved at 100 ms a task',
      nodes: 100,
      slow: [1, 2, 3],
      meanMs: 100,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'fifo',
      label: '100 members, 1 slow at 100 ms a task, work in arrival order (the simulator’s default slow CPU)',
      nodes: 100,
      slow: [1],
      meanMs: 100,
      timersFirst: false,
      seeds: v,
    },
  ];
  if (mode.largeSeeds > 0) {
    list.push({
      key: 'n500',
      label: '500 members, 1 starved at 100 ms a task',
      nodes: 500,
      slow: [1],
      meanMs: 100,
      timersFirst: true,
      seeds: mode.largeSeeds,
    });
  }
  return list;
}

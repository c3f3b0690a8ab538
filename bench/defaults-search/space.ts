/**
 * What the defaults search varies: the parameters, the values each may take per profile, memberlist's
 * values, and the candidates drawn from that grid (a seeded sample, then one-step neighbours of the
 * best). A candidate is an index into each parameter's list, so that neighbours are one step apart.
 */
import type { Random } from '../../src/runtime/random.js';
import type { SwimConfig } from '../../src/swim/config.js';
import type { SearchProfile } from './scenarios.js';

/** The searched parameters: SwimConfig fields, and `adaptive` (the adaptive probe timeout, 0 or 1). */
export const PARAMS = [
  'probeIntervalMs',
  'probeTimeoutMs',
  'suspicionMult',
  'suspicionMaxTimeoutMult',
  'indirectChecks',
  'adaptive',
  'gossipIntervalMs',
  'gossipNodes',
  'hostSilenceMs',
] as const;
export type Param = (typeof PARAMS)[number];

/** A point of the grid: one value per parameter. */
export type Values = Readonly<Record<Param, number>>;

/** The values each parameter may take, in increasing order. */
export type Space = Readonly<Record<Param, readonly number[]>>;

/** Short names for a candidate's key (`p1000 t500 m4 x6 i3 a0 g200n3 h0`). */
const SHORT: Readonly<Record<Param, string>> = {
  probeIntervalMs: 'p',
  probeTimeoutMs: 't',
  suspicionMult: 'm',
  suspicionMaxTimeoutMult: 'x',
  indirectChecks: 'i',
  adaptive: 'a',
  gossipIntervalMs: 'g',
  gossipNodes: 'n',
  hostSilenceMs: 'h',
};

/** A candidate's key: every value, in a fixed order. */
export function keyOf(v: Values): string {
  const s = (p: Param): string => `${SHORT[p]}${v[p]}`;
  return [
    s('probeIntervalMs'),
    s('probeTimeoutMs'),
    s('suspicionMult'),
    s('suspicionMaxTimeoutMult'),
    s('indirectChecks'),
    s('adaptive'),
    `${s('gossipIntervalMs')}${s('gossipNodes')}`,
    s('hostSilenceMs'),
  ].join(' ');
}

/** memberlist's values (`DefaultLANConfig`, `DefaultWANConfig`, `DefaultLocalConfig`); no adaptive, no host silence. */
export const MEMBERLIST: Readonly<Record<SearchProfile, Values>> = {
  lan: {
    probeIntervalMs: 1000,
    probeTimeoutMs: 500,
    suspicionMult: 4,
    suspicionMaxTimeoutMult: 6,
    indirectChecks: 3,
    adaptive: 0,
    gossipIntervalMs: 200,
    gossipNodes: 3,
    hostSilenceMs: 0,
  },
  wan: {
    probeIntervalMs: 5000,
    probeTimeoutMs: 3000,
    suspicionMult: 6,
    suspicionMaxTimeoutMult: 6,
    indirectChecks: 3,
    adaptive: 0,
    gossipIntervalMs: 500,
    gossipNodes: 4,
    hostSilenceMs: 0,
  },
  local: {
    probeIntervalMs: 1000,
    probeTimeoutMs: 200,
    suspicionMult: 3,
    suspicionMaxTimeoutMult: 6,
    indirectChecks: 1,
    adaptive: 0,
    gossipIntervalMs: 100,
    gossipNodes: 3,
    hostSilenceMs: 0,
  },
};

/**
 * The grid of each profile. Host silence (`hostSilenceMs`, 0 = off) takes its values only where the
 * engine has the field (`withHostSilence`); otherwise it stays 0.
 */
export function spaceOf(profile: SearchProfile, withHostSilence: boolean): Space {
  const off = [0];
  switch (profile) {
    case 'lan':
      return {
        probeIntervalMs: [500, 700, 1000],
        probeTimeoutMs: [100, 200, 300, 500],
        suspicionMult: [1, 2, 3, 4, 5],
        suspicionMaxTimeoutMult: [1, 2, 3, 4, 6],
        indirectChecks: [2, 3, 4, 5],
        adaptive: [0, 1],
        gossipIntervalMs: [100, 150, 200],
        gossipNodes: [3, 4, 5],
        hostSilenceMs: withHostSilence ? [0, 1000, 1500, 2000, 2500, 3000] : off,
      };
    case 'wan':
      return {
        probeIntervalMs: [2000, 3000, 4000, 5000],
        probeTimeoutMs: [1000, 2000, 3000],
        suspicionMult: [2, 3, 4, 5, 6],
        suspicionMaxTimeoutMult: [1, 2, 3, 4, 6],
        indirectChecks: [2, 3, 4, 5],
        adaptive: [0, 1],
        gossipIntervalMs: [200, 300, 500],
        gossipNodes: [3, 4, 5],
        hostSilenceMs: withHostSilence ? [0, 5000, 8000, 12_000, 16_000] : off,
      };
    case 'local':
      return {
        probeIntervalMs: [500, 700, 1000],
        probeTimeoutMs: [100, 200, 300],
        suspicionMult: [1, 2, 3, 4],
        suspicionMaxTimeoutMult: [1, 2, 3, 4, 6],
        indirectChecks: [1, 2, 3],
        adaptive: [0, 1],
        gossipIntervalMs: [50, 100, 200],
        gossipNodes: [3, 4, 5],
        hostSilenceMs: withHostSilence ? [0, 500, 1000, 1500, 2000] : off,
      };
  }
}

/** A grid point the engine accepts: the probe timeout within the interval, host silence off or no shorter. */
export function valid(v: Values): boolean {
  return (
    v.probeTimeoutMs <= v.probeIntervalMs && (v.hostSilenceMs === 0 || v.hostSilenceMs >= v.probeTimeoutMs)
  );
}

/** `n` distinct valid points drawn uniformly from `space`, none of them in `exclude` (keys). */
export function sample(space: Space, n: number, random: Random, exclude: ReadonlySet<string>): Values[] {
  const out: Values[] = [];
  const seen = new Set(exclude);
  // A bounded number of draws: a small grid may have fewer than n fresh points.
  for (let tries = 0; out.length < n && tries < n * 50; tries++) {
    const v = {} as Record<Param, number>;
    for (const p of PARAMS) v[p] = space[p][random.int(space[p].length)]!;
    const key = keyOf(v);
    if (!valid(v) || seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

/**
 * The points one step from `v` along one parameter (the next value up or down in its list), valid and
 * not in `exclude`. A value that is not in the list (memberlist's, off the grid) steps to its nearest
 * neighbours in the list.
 */
export function neighbours(space: Space, v: Values, exclude: ReadonlySet<string>): Values[] {
  const out: Values[] = [];
  const seen = new Set(exclude);
  for (const p of PARAMS) {
    const list = space[p];
    const below = list.filter((x) => x < v[p]);
    const above = list.filter((x) => x > v[p]);
    const steps = [below[below.length - 1], above[0]].filter((x): x is number => x !== undefined);
    for (const x of steps) {
      const w = { ...v, [p]: x };
      const key = keyOf(w);
      if (!valid(w) || seen.has(key)) continue;
      seen.add(key);
      out.push(w);
    }
  }
  return out;
}

/**
 * The configuration overrides of a point. Host silence is left out when off, so that an engine without
 * the field accepts the rest.
 */
export function configOf(v: Values): Partial<SwimConfig> {
  const config: Record<string, number> = {
    probeIntervalMs: v.probeIntervalMs,
    probeTimeoutMs: v.probeTimeoutMs,
    suspicionMult: v.suspicionMult,
    suspicionMaxTimeoutMult: v.suspicionMaxTimeoutMult,
    indirectChecks: v.indirectChecks,
    gossipIntervalMs: v.gossipIntervalMs,
    gossipNodes: v.gossipNodes,
  };
  if (v.hostSilenceMs > 0) config.hostSilenceMs = v.hostSilenceMs;
  return config as Partial<SwimConfig>;
}

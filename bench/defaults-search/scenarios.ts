/**
 * The fixed scenario sets of the defaults search, one per profile: cluster sizes, independent and bursty
 * loss, CPU-starved members, pauses and one-way cuts, each run with host crashes and kills drawn from the
 * seed as the SWIM sweeps draw them. Which scenarios screen candidates (cheap, hard) and which the final
 * evaluation adds, and how many seeds each gets.
 */
import type { NetworkModel } from '../../src/sim/network.js';
import { burstEnterFor } from '../support/aggregate.js';
import { round } from '../support/stats.js';
import { BURST_EXIT, BURST_LOSS } from '../swim-sweeps/sweeps.js';

export type SearchProfile = 'lan' | 'wan' | 'local';

/** One condition at one cluster size. */
export interface Scenario {
  /** `n100-loss30`: size and condition, unique within a profile. */
  readonly key: string;
  /** The condition alone (`loss30`), shared across sizes. */
  readonly condition: string;
  readonly label: string;
  readonly nodes: number;
  /** Virtual seconds per run; faults start in the first third (`planFaults`). */
  readonly seconds: number;
  readonly network: Partial<NetworkModel>;
  /** Hosts that go down per run (the objective) and processes killed on live hosts. */
  readonly crashes: number;
  readonly kills: number;
  /** CPU-starved members (never crashed): every task takes `meanMs` on average, timers first. */
  readonly slow?: { readonly members: readonly number[]; readonly meanMs: number };
  readonly pause?: { readonly count: number; readonly durationMs: number };
  /** `fraction` of the members cannot send to the rest for `durationMs` (`planFaults`' `oneWay`). */
  readonly oneWay?: { readonly fraction: number; readonly durationMs: number };
  /** Whether it is in the screening subset. */
  readonly screen: boolean;
  /** Whether the bar (at most 0.6× memberlist's all-know time) applies: n = 20 and 100. */
  readonly gate: boolean;
}

/** Seeds per scenario in each stage, by cluster size. */
export interface SeedPlan {
  readonly small: number;
  readonly n100: number;
  readonly n1000: number;
}

/** When the slow CPU starts, as in the Lifeguard scenarios of the sweeps: once the cluster settled. */
export const SLOW_FROM_MS = 10_000;
/** Background loss under pauses and one-way cuts: a woken or reconnected member must cross it. */
export const FAULT_BACKGROUND_LOSS = 0.1;
/** Average loss of the bursty scenario (the sweeps' Gilbert-Elliott bursts of about 5 packets). */
export const BURSTY_RATE = 0.1;

/** A WAN: one-way delays of 20 to 100 ms per link, 5 ms of jitter (round trips of 40 to 200 ms). */
export const WAN_NETWORK: Partial<NetworkModel> = { baseDelayMs: 20, linkSpreadMs: 80, jitterMs: 5 };
/** Loopback: every delay in tens of microseconds. */
export const LOCAL_NETWORK: Partial<NetworkModel> = { baseDelayMs: 0.02, linkSpreadMs: 0.03, jitterMs: 0.02 };

interface Condition {
  readonly condition: string;
  readonly label: string;
  readonly loss?: number;
  readonly bursty?: number;
  readonly slow?: number;
  readonly pauseMs?: number;
  readonly oneWay?: { readonly fraction: number; readonly durationMs: number };
}

function lossConditions(rates: readonly number[]): Condition[] {
  return rates.map((r) => ({
    condition: `loss${round(r * 100, 1)}`,
    label: `${round(r * 100, 1)} % loss`,
    loss: r,
  }));
}

const BURSTY: Condition = {
  condition: `bursty${BURSTY_RATE * 100}`,
  label: `${BURSTY_RATE * 100} % bursty loss`,
  bursty: BURSTY_RATE,
};

function starved(count: number): Condition {
  return { condition: `slow${count}`, label: `${count} CPU-starved`, slow: count };
}

function paused(ms: number): Condition {
  return { condition: `pause${ms / 1000}`, label: `pauses of ${ms / 1000} s`, pauseMs: ms };
}

/**
 * The two one-way cuts: a tenth of the members cannot send (to the others they look like crashed
 * hosts), and a tenth cannot receive (the other nine tenths cannot send to them).
 */
function oneWays(durationMs: number): Condition[] {
  const s = durationMs / 1000;
  return [
    {
      condition: 'oneway-send',
      label: `a tenth cannot send for ${s} s`,
      oneWay: { fraction: 0.1, durationMs },
    },
    {
      condition: 'oneway-recv',
      label: `a tenth cannot receive for ${s} s`,
      oneWay: { fraction: 0.9, durationMs },
    },
  ];
}

/** Members paused at once, by cluster size ("a few"). */
function pauseCount(nodes: number): number {
  return nodes <= 5 ? 1 : nodes <= 20 ? 2 : 3;
}

function scenario(
  c: Condition,
  nodes: number,
  seconds: number,
  base: Partial<NetworkModel>,
  screen: boolean,
): Scenario {
  const network: Partial<NetworkModel> = { ...base };
  let loss = c.loss ?? 0;
  if (c.pauseMs !== undefined || c.oneWay !== undefined) loss = FAULT_BACKGROUND_LOSS;
  if (loss > 0) Object.assign(network, { loss });
  if (c.bursty !== undefined) {
    Object.assign(network, {
      burstEnter: round(burstEnterFor(c.bursty, BURST_EXIT, BURST_LOSS), 6),
      burstExit: BURST_EXIT,
      burstLoss: BURST_LOSS,
    });
  }
  // Two host crashes and two kills, as the sweeps; at n = 5 one of each, and no kill when three of the
  // five are starved (the late joiner and the starved are never crashed).
  const small = nodes <= 5;
  const slowCount = c.slow ?? 0;
  const kills = small ? (slowCount >= 3 ? 0 : 1) : 2;
  const withBackground = loss > 0 && c.loss === undefined ? `, ${loss * 100} % loss` : '';
  return {
    key: `n${nodes}-${c.condition}`,
    condition: c.condition,
    label: `n = ${nodes}, ${c.label}${withBackground}`,
    nodes,
    seconds,
    network,
    crashes: small ? 1 : 2,
    kills,
    ...(c.slow === undefined
      ? {}
      : { slow: { members: Array.from({ length: c.slow }, (_, i) => 1 + i), meanMs: 100 } }),
    ...(c.pauseMs === undefined ? {} : { pause: { count: pauseCount(nodes), durationMs: c.pauseMs } }),
    ...(c.oneWay === undefined ? {} : { oneWay: c.oneWay }),
    screen,
    gate: nodes === 20 || nodes === 100,
  };
}

/**
 * LAN: every condition at n = 5, 20 and 100; 0 and 5 % loss at n = 1,000. Screening: every condition at
 * n = 5 and 20 (cheap), the hardest and the typical at 100 (10 and 30 % loss, bursty, three starved, 1
 * and 6 s pauses, both one-way cuts).
 */
function lanScenarios(): Scenario[] {
  const conditions = [
    ...lossConditions([0, 0.05, 0.1, 0.2, 0.3]),
    BURSTY,
    starved(1),
    starved(3),
    paused(1000),
    paused(3000),
    paused(6000),
    ...oneWays(LAN_ONE_WAY_MS),
  ];
  const screen100 = new Set([
    'loss10',
    'loss30',
    BURSTY.condition,
    'slow3',
    'pause1',
    'pause6',
    'oneway-send',
    'oneway-recv',
  ]);
  return [
    ...conditions.map((c) => scenario(c, 5, 60, {}, true)),
    ...conditions.map((c) => scenario(c, 20, 60, {}, true)),
    ...conditions.map((c) => scenario(c, 100, 90, {}, screen100.has(c.condition))),
    ...lossConditions([0, 0.05]).map((c) => scenario(c, 1000, 60, {}, false)),
  ];
}

/**
 * One-way cuts on a LAN last 2 s: a blip (a route or bond failover). A host that cannot send looks
 * exactly like a crashed one, so a detector that knows a crashed host dead after T declares a member
 * cut off one way for longer than about T dead; the target (0.6 × memberlist's 6 to 11 s) leaves
 * room only for cuts of a few seconds.
 */
export const LAN_ONE_WAY_MS = 2000;
/** On a WAN, two memberlist probe intervals. */
export const WAN_ONE_WAY_MS = 10_000;

/** WAN: n = 20 and 100 (the protocol period is 5 s: runs of 8 minutes), a smaller set of conditions. */
function wanScenarios(): Scenario[] {
  const conditions = [
    ...lossConditions([0, 0.1, 0.3]),
    BURSTY,
    starved(1),
    paused(6000),
    ...oneWays(WAN_ONE_WAY_MS),
  ];
  const screen100 = new Set(['loss30', 'pause6', 'oneway-send']);
  return [
    ...conditions.map((c) => scenario(c, 20, 480, WAN_NETWORK, true)),
    ...conditions.map((c) => scenario(c, 100, 480, WAN_NETWORK, screen100.has(c.condition))),
  ];
}

/** Local (one host): n = 5 and 20, no cuts (loopback has none), little loss. */
function localScenarios(): Scenario[] {
  const conditions = [...lossConditions([0, 0.05]), starved(1), paused(1000), paused(3000)];
  return [
    ...conditions.map((c) => scenario(c, 5, 60, LOCAL_NETWORK, true)),
    ...conditions.map((c) => scenario(c, 20, 60, LOCAL_NETWORK, true)),
  ];
}

/** The scenario set of each profile. */
export function scenariosOf(profile: SearchProfile): Scenario[] {
  switch (profile) {
    case 'lan':
      return lanScenarios();
    case 'wan':
      return wanScenarios();
    case 'local':
      return localScenarios();
  }
}

/** How many seeds `s` gets under `plan`. */
export function seedsFor(s: Scenario, plan: SeedPlan): number {
  return s.nodes >= 1000 ? plan.n1000 : s.nodes >= 100 ? plan.n100 : plan.small;
}

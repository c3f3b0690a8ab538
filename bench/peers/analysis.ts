/**
 * The numbers `bench/peers/run.ts` reports, computed from the events of one system (bench/peers/events.ts)
 * and the faults the bench injected: detection of a killed member, false positives about a paused one,
 * medians over repetitions and ratios between systems, and the cells of its tables. Pure: data in, data
 * out, no clock and no I/O, so that the tests can feed it made-up runs.
 */
import { formatNumber, formatRatio } from '../support/format.js';
import { ratio, type Spread, spread, total } from '../support/stats.js';
import { type PeerEvent, SYSTEMS, type SystemName } from './events.js';

/** A fault the bench injected into one system, and the window it watched afterwards. */
export interface Fault {
  /** `quiet`: a window with no fault at all, watched for false positives only. */
  readonly kind: 'kill' | 'pause' | 'quiet';
  /** The member that got SIGKILL, or SIGSTOP and later SIGCONT; empty for `quiet`. */
  readonly victim: string;
  /** Bench time of the signal, ms. */
  readonly atMs: number;
  /** End of the watched window, ms. */
  readonly endMs: number;
  /** The other members that ran through the window: who should learn of a death, and who may err. */
  readonly survivors: readonly string[];
  /** Members that were dead before the fault (earlier victims): events about them are not counted. */
  readonly gone: readonly string[];
}

/** How one system noticed one killed member. Times are ms after the SIGKILL. */
export interface KillOutcome {
  /** The first suspicion or death about the victim reported by any survivor. */
  readonly firstDetectionMs: number | null;
  /** The first death about it. */
  readonly firstDeadMs: number | null;
  /** When the last survivor reported it dead (left does not count); null when some never did. */
  readonly allKnowMs: number | null;
  /** Survivors that reported it dead within the window. */
  readonly knowers: number;
  readonly survivors: number;
}

/** What one system made of a member that was paused (alive all along). */
export interface PauseOutcome {
  /** Survivors that raised a suspicion of it themselves (their own probe failed). */
  readonly suspicionsRaised: number;
  /** Survivors that reported it suspect in any way (for fdkit, gossip included). */
  readonly suspectedBy: number;
  /** Survivors that declared it dead. */
  readonly falseDeaths: number;
}

/** False positives about members that no fault touched, within one fault's window. */
export interface Bystanders {
  /** Distinct (observer, member) pairs with a raised suspicion. */
  readonly suspicionsRaised: number;
  /** Distinct (observer, member) pairs with a death. */
  readonly falseDeaths: number;
}

function inWindow(e: PeerEvent, f: Fault): boolean {
  return e.atMs >= f.atMs && e.atMs <= f.endMs;
}

/** The detection of a killed member, from the events of its system. */
export function analyzeKill(events: readonly PeerEvent[], fault: Fault): KillOutcome {
  const survivors = new Set(fault.survivors);
  const about = events.filter(
    (e) => inWindow(e, fault) && e.member === fault.victim && survivors.has(e.observer),
  );
  const first = (pred: (e: PeerEvent) => boolean): number | null => {
    const hit = about.find(pred);
    return hit === undefined ? null : hit.atMs - fault.atMs;
  };
  const deadAt = new Map<string, number>();
  for (const e of about) {
    if (e.kind === 'dead' && !deadAt.has(e.observer)) deadAt.set(e.observer, e.atMs - fault.atMs);
  }
  const allKnow = deadAt.size === survivors.size && survivors.size > 0 ? Math.max(...deadAt.values()) : null;
  return {
    firstDetectionMs: first((e) => e.kind === 'suspect' || e.kind === 'dead'),
    firstDeadMs: first((e) => e.kind === 'dead'),
    allKnowMs: allKnow,
    knowers: deadAt.size,
    survivors: survivors.size,
  };
}

/** The false positives about a paused member, from the events of its system. */
export function analyzePause(events: readonly PeerEvent[], fault: Fault): PauseOutcome {
  const survivors = new Set(fault.survivors);
  const raised = new Set<string>();
  const suspected = new Set<string>();
  const dead = new Set<string>();
  for (const e of events) {
    if (!inWindow(e, fault) || e.member !== fault.victim || !survivors.has(e.observer)) continue;
    if (e.kind === 'suspect') {
      suspected.add(e.observer);
      if (e.raised) raised.add(e.observer);
    } else if (e.kind === 'dead') {
      dead.add(e.observer);
    }
  }
  return { suspicionsRaised: raised.size, suspectedBy: suspected.size, falseDeaths: dead.size };
}

/**
 * False positives about members the fault did not touch (neither its victim nor one gone before), by
 * any member that was up, the victim included (a paused member that wakes up may accuse others).
 */
export function analyzeBystanders(events: readonly PeerEvent[], fault: Fault): Bystanders {
  const gone = new Set(fault.gone);
  const observers = new Set([...fault.survivors, fault.victim]);
  const raised = new Set<string>();
  const dead = new Set<string>();
  for (const e of events) {
    if (!inWindow(e, fault) || !observers.has(e.observer)) continue;
    if (e.member === fault.victim || gone.has(e.member) || e.member === e.observer) continue;
    const key = `${e.observer}\u0000${e.member}`;
    if (e.kind === 'suspect' && e.raised) raised.add(key);
    else if (e.kind === 'dead') dead.add(key);
  }
  return { suspicionsRaised: raised.size, falseDeaths: dead.size };
}

/** One line of a fault's timeline: who said what about whom, ms after the fault. */
export interface TimelineEntry {
  readonly ms: number;
  readonly observer: string;
  readonly kind: PeerEvent['kind'];
  readonly member: string;
  readonly cause: string;
}

/**
 * The events of a fault's window that the numbers above count or that explain them: everything about
 * the victim, refutations, and suspicions and deaths of anyone else; joins of others are left out.
 */
export function timeline(events: readonly PeerEvent[], fault: Fault): TimelineEntry[] {
  return events
    .filter(
      (e) =>
        inWindow(e, fault) &&
        (e.member === fault.victim || e.kind === 'refute' || e.kind === 'suspect' || e.kind === 'dead'),
    )
    .map((e) => ({
      ms: Math.round(e.atMs - fault.atMs),
      observer: e.observer,
      kind: e.kind,
      member: e.member,
      cause: e.cause,
    }));
}

// ---------------------------------------------------------------------------------------------------
// Per-system summaries of the fault runs.

/** One system's outcome over all repetitions of the faults. */
export interface FaultSummary {
  readonly kills: readonly (KillOutcome & { readonly timeline: readonly TimelineEntry[] })[];
  readonly pauses: readonly (PauseOutcome & { readonly timeline: readonly TimelineEntry[] })[];
  readonly bystanders: Bystanders;
  readonly firstDetectionMs: Spread;
  readonly firstDeadMs: Spread;
  readonly allKnowMs: Spread;
  /** Kills that some survivor never reported dead within the window. */
  readonly missed: number;
  /** Totals over the pauses. */
  readonly falseSuspicionsRaised: number;
  readonly suspectedBy: number;
  readonly falseDeaths: number;
}

/** Summarizes one system's kills, pauses and bystander false positives (over all faults). */
export function summarizeFaults(events: readonly PeerEvent[], faults: readonly Fault[]): FaultSummary {
  const kills = faults
    .filter((f) => f.kind === 'kill')
    .map((f) => ({ ...analyzeKill(events, f), timeline: timeline(events, f) }));
  const pauses = faults
    .filter((f) => f.kind === 'pause')
    .map((f) => ({ ...analyzePause(events, f), timeline: timeline(events, f) }));
  const by = faults.map((f) => analyzeBystanders(events, f));
  return {
    kills,
    pauses,
    bystanders: {
      suspicionsRaised: total(by.map((b) => b.suspicionsRaised)),
      falseDeaths: total(by.map((b) => b.falseDeaths)),
    },
    firstDetectionMs: spread(kills.map((k) => k.firstDetectionMs)),
    firstDeadMs: spread(kills.map((k) => k.firstDeadMs)),
    allKnowMs: spread(kills.map((k) => k.allKnowMs)),
    missed: kills.filter((k) => k.allKnowMs === null).length,
    falseSuspicionsRaised: total(pauses.map((p) => p.suspicionsRaised)),
    suspectedBy: total(pauses.map((p) => p.suspectedBy)),
    falseDeaths: total(pauses.map((p) => p.falseDeaths)),
  };
}

// ---------------------------------------------------------------------------------------------------
// Steady-state cost per member.

/** One member's cost over a measured window, from /proc and the nftables counters. */
export interface MemberCost {
  readonly name: string;
  readonly cpuPercent: number;
  readonly datagramsOutPerSec: number;
  readonly datagramsInPerSec: number;
  /** UDP payload (IP length minus 28 B of headers), in + out. */
  readonly udpPayloadBytesPerSec: number;
  /** UDP at IP level (headers included), in + out. */
  readonly udpIpBytesPerSec: number;
  /** TCP at IP level on connections to this member's port, both directions. */
  readonly tcpServerBytesPerSec: number;
  readonly rssMb: number;
}

/** Medians over members, and the bytes of the whole system per member. */
export interface CostSummary {
  readonly members: number;
  readonly cpuPercent: Spread;
  readonly datagramsOutPerSec: Spread;
  readonly udpPayloadBytesPerSec: Spread;
  readonly rssMb: Spread;
  /**
   * Every byte on the wire (UDP and TCP, IP headers included) in + out per member: twice the system's
   * total (each packet leaves one member and reaches another) over the members. A mean, not a median.
   */
  readonly allBytesPerSec: number | null;
  /** The TCP share of that. */
  readonly tcpBytesPerSec: number | null;
}

export function summarizeCost(costs: readonly MemberCost[], bytesMeasured: boolean): CostSummary {
  const n = costs.length;
  const sumOf = (f: (c: MemberCost) => number): number => costs.reduce((a, c) => a + f(c), 0);
  // Each member's UDP in + out counts every datagram twice over the system (sender and receiver), and
  // each TCP byte once (at its server's port): in + out per member is 2 × the TCP total / n.
  const udp = sumOf((c) => c.udpIpBytesPerSec);
  const tcp = (2 * sumOf((c) => c.tcpServerBytesPerSec)) / Math.max(1, n);
  return {
    members: n,
    cpuPercent: spread(costs.map((c) => c.cpuPercent)),
    datagramsOutPerSec: bytesMeasured ? spread(costs.map((c) => c.datagramsOutPerSec)) : spread([]),
    udpPayloadBytesPerSec: bytesMeasured ? spread(costs.map((c) => c.udpPayloadBytesPerSec)) : spread([]),
    rssMb: spread(costs.map((c) => c.rssMb)),
    allBytesPerSec: bytesMeasured && n > 0 ? udp / n + tcp : null,
    tcpBytesPerSec: bytesMeasured && n > 0 ? tcp : null,
  };
}

/**
 * `a`'s CPU over `b`'s in one window: the ratio of the two medians over members. Null when either system
 * has no member in the window or `b`'s median is 0.
 */
export function cpuRatio(
  costs: Readonly<Partial<Record<SystemName, readonly MemberCost[]>>>,
  a: SystemName,
  b: SystemName,
): number | null {
  const m = (x: SystemName): number | null => spread((costs[x] ?? []).map((c) => c.cpuPercent)).median;
  return ratio(m(a), m(b));
}

/**
 * Each member's figures averaged over windows of equal length, per system: the whole measurement as one
 * window. A member missing from some windows (it exited) is averaged over the windows that have it; its
 * RSS is the last one read.
 */
export function meanCosts(
  windows: readonly Readonly<Partial<Record<SystemName, readonly MemberCost[]>>>[],
): Partial<Record<SystemName, MemberCost[]>> {
  const out: Partial<Record<SystemName, MemberCost[]>> = {};
  for (const system of SYSTEMS) {
    const byName = new Map<string, MemberCost[]>();
    for (const w of windows) {
      for (const c of w[system] ?? []) {
        const list = byName.get(c.name) ?? [];
        list.push(c);
        byName.set(c.name, list);
      }
    }
    if (byName.size === 0) continue;
    out[system] = [...byName].map(([name, cs]) => {
      const mean = (f: (c: MemberCost) => number): number => cs.reduce((a, c) => a + f(c), 0) / cs.length;
      return {
        name,
        cpuPercent: mean((c) => c.cpuPercent),
        datagramsOutPerSec: mean((c) => c.datagramsOutPerSec),
        datagramsInPerSec: mean((c) => c.datagramsInPerSec),
        udpPayloadBytesPerSec: mean((c) => c.udpPayloadBytesPerSec),
        udpIpBytesPerSec: mean((c) => c.udpIpBytesPerSec),
        tcpServerBytesPerSec: mean((c) => c.tcpServerBytesPerSec),
        rssMb: cs[cs.length - 1]!.rssMb,
      };
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Tables.

/** One row of the comparison: a value per system (null when not measured), and how to print it. */
export interface Row {
  readonly label: string;
  readonly values: Readonly<Partial<Record<SystemName, number | null>>>;
  /** Printed in place of the value (e.g. a spread), per system. */
  readonly texts?: Readonly<Partial<Record<SystemName, string>>>;
  readonly digits?: number;
}

/** The comparison as rows of text cells: the label, each system's value, fdkit / each other system. */
export function comparisonCells(
  rows: readonly Row[],
  systems: readonly SystemName[],
): { header: string[]; cells: string[][] } {
  const others = systems.filter((s) => s !== 'fdkit');
  const header = [
    'measure',
    ...systems,
    ...(systems.includes('fdkit') ? others.map((s) => `fdkit / ${s}`) : []),
  ];
  const cells = rows.map((row) => [
    row.label,
    ...systems.map((s) => row.texts?.[s] ?? formatNumber(row.values[s] ?? null, row.digits ?? 2)),
    ...(systems.includes('fdkit')
      ? others.map((s) => formatRatio(row.values.fdkit ?? null, row.values[s] ?? null))
      : []),
  ]);
  return { header, cells };
}

/**
 * The chaos bench's schedule: a seeded, random sequence of faults over a run, the same for the same seed
 * and options. Pure (no I/O), so that the unit tests can hold it to its ranges.
 *
 * Faults follow one another, never overlap, with a quiet gap between them: each checker then knows
 * which fault a death belongs to, and the run still mixes every kind. The first faults are one of each
 * kind that fits, in a seeded order; then kinds are drawn at random until the time is used up. The last
 * fault ends at least `settleMs` before the run's end, so the convergence bound can be checked.
 */
import { Random } from '../../src/runtime/random.js';

export const FAULT_KINDS = ['halves', 'isolate', 'one-way', 'loss', 'pause', 'kill', 'leave'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault of the schedule; times in ms from the start of the chaos phase. */
export interface Fault {
  readonly index: number;
  readonly kind: FaultKind;
  readonly startMs: number;
  /** How long the fault lasts: the cut, the loss, the pause, the time down before a restart or rejoin. */
  readonly durationMs: number;
  /**
   * halves: one side; isolate: the isolated member; one-way: the sender whose packets are dropped;
   * pause, kill, leave: the member; loss: empty.
   */
  readonly members: readonly number[];
  /** halves, isolate: the other side; one-way: the receivers that drop them; else empty. */
  readonly others: readonly number[];
  /** loss: percent of incoming IPv4 packets every host drops; else 0. */
  readonly lossPercent: number;
}

/** A closed range of milliseconds (or percent). */
export type Range = readonly [number, number];

export interface ScheduleOptions {
  readonly seed: number;
  /** Members in the cluster. */
  readonly members: number;
  /** Length of the chaos phase; faults and the settle time fit in it. */
  readonly durationMs: number;
  /** Time kept free after the last fault, for the convergence check. */
  readonly settleMs: number;
  /** Quiet time between two faults. */
  readonly gapMs: Range;
  /** Duration of each kind of fault. */
  readonly durations: Readonly<Record<FaultKind, Range>>;
  /** Loss rate of a loss fault, in percent. */
  readonly lossPercent: Range;
  /**
   * When set, the first kill stays down this long instead (so that the "killed and still alive" checker
   * sees a member down past its bound).
   */
  readonly longKillMs?: Range;
  /** At most this many faults (the CI schedule: one of each kind, no more). */
  readonly maxFaults?: number;
}

/** An integer drawn uniformly from the closed range. */
function draw(rng: Random, [min, max]: Range): number {
  return min + rng.int(max - min + 1);
}

/** `k` distinct member indices below `n`, in a seeded order (a partial Fisher-Yates shuffle). */
function pick(rng: Random, n: number, k: number): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(n - i);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, k);
}

function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** Who a fault of `kind` hits, drawn for a cluster of `n`. */
function targets(rng: Random, kind: FaultKind, n: number): { members: number[]; others: number[] } {
  const order = pick(rng, n, n);
  switch (kind) {
    case 'halves': {
      const half = Math.floor(n / 2);
      return { members: sorted(order.slice(0, half)), others: sorted(order.slice(half)) };
    }
    case 'isolate':
      return { members: [order[0]!], others: sorted(order.slice(1)) };
    case 'one-way': {
      // One sender, heard by none of one to half of the others.
      const receivers = 1 + rng.int(Math.max(1, Math.floor(n / 2)));
      return { members: [order[0]!], others: sorted(order.slice(1, 1 + receivers)) };
    }
    case 'loss':
      return { members: [], others: [] };
    default:
      return { members: [order[0]!], others: [] };
  }
}

/** The schedule for `options`: the same options (seed included) always give the same faults. */
export function generateSchedule(options: ScheduleOptions): Fault[] {
  const rng = new Random(options.seed);
  const end = options.durationMs - options.settleMs;
  // One of each kind first, in a seeded order; then kinds at random.
  const firsts = pick(rng, FAULT_KINDS.length, FAULT_KINDS.length).map((i) => FAULT_KINDS[i]!);
  const faults: Fault[] = [];
  let t = draw(rng, options.gapMs);
  let longKillDone = options.longKillMs === undefined;
  const most = options.maxFaults ?? Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 10_000 && t < end && faults.length < most; attempt++) {
    const kind = firsts[attempt] ?? FAULT_KINDS[rng.int(FAULT_KINDS.length)]!;
    const range = kind === 'kill' && !longKillDone ? options.longKillMs! : options.durations[kind];
    const durationMs = draw(rng, range);
    const who = targets(rng, kind, options.members);
    const lossPercent = kind === 'loss' ? draw(rng, options.lossPercent) : 0;
    // A fault that does not fit is skipped (a first one too: "every kind that fits"); a shorter kind may
    // still fit, so the loop goes on.
    if (t + durationMs > end) continue;
    if (kind === 'kill') longKillDone = true;
    faults.push({ index: faults.length, kind, startMs: t, durationMs, ...who, lossPercent });
    t += durationMs + draw(rng, options.gapMs);
  }
  return faults;
}

/** One line per fault, for the log and the report. */
export function describeFault(f: Fault, name: (i: number) => string): string {
  const at = `+${(f.startMs / 1000).toFixed(1)}s ${(f.durationMs / 1000).toFixed(1)}s`;
  const who = f.members.map(name).join(',');
  const others = f.others.map(name).join(',');
  switch (f.kind) {
    case 'halves':
      return `#${f.index} ${at} halves ${who} | ${others}`;
    case 'isolate':
      return `#${f.index} ${at} isolate ${who}`;
    case 'one-way':
      return `#${f.index} ${at} one-way ${who} -> ${others} dropped`;
    case 'loss':
      return `#${f.index} ${at} loss ${f.lossPercent} %`;
    default:
      return `#${f.index} ${at} ${f.kind} ${who}`;
  }
}

/**
 * The soak's churn, planned before it starts: which members are left alone, which are restarted and
 * which are paused, and when. Pure, seeded: the same flags give the same schedule, and the unit tests
 * check it without a process.
 *
 * The members fall in three roles. Restarts and pauses each rotate through a pool of their own, so that
 * about half of the members are never touched: they are the ones the false-death check is strictest
 * about, and (with the paused ones, whose process lives through the run) the ones whose heap and RSS the
 * growth check follows from the fifth minute to the last. A restart ends a process, and with it its heap.
 */
import { Random } from '../../src/runtime/random.js';

/** What a member goes through during the soak. */
export type SoakRole = 'steady' | 'restarted' | 'paused';

/** One fault of the schedule, from its start to the moment the member runs again. */
export interface Fault {
  /**
   * `kill`: SIGKILL, then a new process (the others must detect the death); `leave`: SIGTERM, which
   * leaves gracefully, then a new process; `pause`: SIGSTOP, then SIGCONT.
   */
  readonly kind: 'kill' | 'leave' | 'pause';
  readonly member: string;
  /** Ms after the start of the soak. */
  readonly startMs: number;
  /** When the member runs again: SIGCONT for a pause, the new process started for a restart. */
  readonly endMs: number;
}

/** How the churn is planned. */
export interface ChurnOptions {
  readonly names: readonly string[];
  readonly durationMs: number;
  readonly seed: number;
  /** One restart every this many ms (60 s in the issue). */
  readonly restartEveryMs: number;
  /** One pause every this many ms (120 s). */
  readonly pauseEveryMs: number;
  /** How long a restarted member stays down between SIGKILL and its new process. */
  readonly downMs: number;
  /** Shortest and longest pause ("a few seconds"); each pause draws its length between them. */
  readonly pauseMinMs: number;
  readonly pauseMaxMs: number;
  /** Members restarted in turn, and members paused in turn (the pools never overlap). */
  readonly restartPool: number;
  readonly pausePool: number;
  /** No fault starts later than this before the end, so that the last one is over and settled. */
  readonly quietEndMs: number;
}

/** The schedule: every member's role and the faults, ordered by start. */
export interface ChurnSchedule {
  readonly roles: ReadonlyMap<string, SoakRole>;
  readonly faults: readonly Fault[];
}

/**
 * Plans the churn. The first member (everyone's seed) stays steady; the pools are drawn from the others
 * by a seeded shuffle. Restarts fall on every `restartEveryMs` from the first, pauses half-way between
 * restarts, so that two faults never start together.
 */
export function churnSchedule(o: ChurnOptions): ChurnSchedule {
  if (o.restartPool + o.pausePool > o.names.length - 1) {
    throw new Error(`${o.restartPool} + ${o.pausePool} faulty members need more than ${o.names.length}`);
  }
  if (o.pauseMaxMs < o.pauseMinMs) throw new Error('pauseMaxMs is below pauseMinMs');
  const random = new Random(o.seed);
  const others = o.names.slice(1);
  for (let i = others.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [others[i], others[j]] = [others[j]!, others[i]!];
  }
  const restarted = others.slice(0, o.restartPool);
  const paused = others.slice(o.restartPool, o.restartPool + o.pausePool);
  const roles = new Map<string, SoakRole>(o.names.map((n) => [n, 'steady']));
  for (const n of restarted) roles.set(n, 'restarted');
  for (const n of paused) roles.set(n, 'paused');
  const faults: Fault[] = [];
  const lastStart = o.durationMs - o.quietEndMs;
  for (let k = 1; restarted.length > 0 && k * o.restartEveryMs <= lastStart; k++) {
    const startMs = k * o.restartEveryMs;
    // Restarts alternate between a crash and a graceful leave: both paths back in must stay clean.
    const kind = k % 2 === 1 ? 'kill' : 'leave';
    faults.push({ kind, member: restarted[(k - 1) % restarted.length]!, startMs, endMs: startMs + o.downMs });
  }
  for (let k = 0; paused.length > 0 && o.restartEveryMs / 2 + k * o.pauseEveryMs <= lastStart; k++) {
    const startMs = o.restartEveryMs / 2 + k * o.pauseEveryMs;
    const lengthMs = o.pauseMinMs + random.int(o.pauseMaxMs - o.pauseMinMs + 1);
    faults.push({ kind: 'pause', member: paused[k % paused.length]!, startMs, endMs: startMs + lengthMs });
  }
  faults.sort((a, b) => a.startMs - b.startMs);
  return { roles, faults };
}

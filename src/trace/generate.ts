/**
 * Synthetic heartbeat traces: a sender that beats every interval, a network that delays (`delay.ts`) and
 * loses (`loss.ts`) heartbeats, pauses of the sender's process (garbage collection, a stop-the-world
 * pause: nothing is sent, and the beat that was due goes out when the pause ends), and a crash at a known
 * time. Everything is drawn from one seed, with separate streams for delays and losses, so that the same
 * seed with more loss keeps the same delays.
 *
 * The sender schedules each beat one interval after the previous one went out, as the heartbeat monitor
 * does, so a pause shifts every later beat. Sequence numbers count the beats sent; delays may reorder
 * them, and arrivals are listed in order of arrival.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber } from '../options.js';
import { Random } from '../runtime/random.js';
import { checkDelayModel, type DelayModel, delaySampler } from './delay.js';
import { checkLossModel, type LossModel, lossSampler } from './loss.js';
import {
  TRACE_FORMAT,
  TRACE_SEQ_MAX,
  TRACE_VERSION,
  type Trace,
  type TraceArrival,
  type TraceHeader,
} from './trace.js';

/** A pause of the sender's process. */
export interface SenderPause {
  /** When it starts, in ms from the start of the trace. */
  readonly atMs: number;
  /** How long the sender is frozen, in ms: no heartbeat leaves it meanwhile. */
  readonly durationMs: number;
}

/** Options of {@link generateTrace}; times in ms. */
export interface GenerateTraceOptions {
  /** Seed of every random draw: the same options give the same trace. A safe integer. */
  readonly seed: number;
  /** Length of the trace. In [0, 30 days]. */
  readonly durationMs: number;
  /** The sender's heartbeat interval. Default 1000. In [1, 3,600,000]. */
  readonly intervalMs?: number;
  /** One-way delay. Default normal, mean 10 ms, standard deviation 5 ms. */
  readonly delay?: DelayModel;
  /** Heartbeat loss. Default none. */
  readonly loss?: LossModel;
  /** Pauses of the sender, in any order; overlapping ones merge. Default none. */
  readonly pauses?: readonly SenderPause[];
  /** When the sender crashes: it sends nothing from then on. Default never. In [0, durationMs]. */
  readonly crashAtMs?: number;
}

const OWNER = 'generateTrace';
const DAY_MS = 86_400_000;
const HEARTBEATS_MAX = 10_000_000;
/** The default delay: a LAN with a little jitter. */
const DEFAULT_DELAY: DelayModel = { distribution: 'normal', meanMs: 10, stdDeviationMs: 5 };

/** Times are written to the microsecond: finer digits only make files larger. */
function micros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Generates a trace.
 *
 * @example
 * ```ts
 * const trace = generateTrace({
 *   seed: 7,
 *   durationMs: 3_600_000,
 *   delay: { distribution: 'lognormal', meanMs: 20, stdDeviationMs: 15 },
 *   loss: burstyLoss(0.01, 3),
 *   pauses: [{ atMs: 600_000, durationMs: 2500 }],
 *   crashAtMs: 3_300_000,
 * });
 * ```
 * @throws `InvalidOptionError` naming the option that is out of range.
 */
export function generateTrace(options: GenerateTraceOptions): Trace {
  checkKnownKeys(OWNER, options, [
    'seed',
    'durationMs',
    'intervalMs',
    'delay',
    'loss',
    'pauses',
    'crashAtMs',
  ]);
  const seed = checkNumber(OWNER, 'seed', options.seed, {
    min: Number.MIN_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER,
    integer: true,
  });
  const durationMs = checkNumber(OWNER, 'durationMs', options.durationMs, { min: 0, max: 30 * DAY_MS });
  const intervalMs = checkNumber(OWNER, 'intervalMs', options.intervalMs ?? 1000, { min: 1, max: 3_600_000 });
  checkNumber(OWNER, 'durationMs / intervalMs', durationMs / intervalMs, { max: HEARTBEATS_MAX });
  const crashAtMs =
    options.crashAtMs === undefined
      ? undefined
      : checkNumber(OWNER, 'crashAtMs', options.crashAtMs, { min: 0, max: durationMs });
  const delay = checkDelayModel(options.delay ?? DEFAULT_DELAY);
  const loss = checkLossModel(options.loss ?? { model: 'none' });
  const pauses = checkPauses(options.pauses ?? []);

  // Separate streams, so that changing one model does not reshuffle the draws of the other.
  const root = new Random(seed);
  const nextDelay = delaySampler(delay, new Random(root.nextUint32()));
  const isLost = lossSampler(loss, new Random(root.nextUint32()));
  const stopAtMs = Math.min(durationMs, crashAtMs ?? Number.POSITIVE_INFINITY);

  const arrivals: TraceArrival[] = [];
  let dueMs = 0;
  let pause = 0;
  for (let seq = 0; seq <= TRACE_SEQ_MAX; seq++) {
    // A beat due during a pause goes out when the pause ends.
    while (pause < pauses.length && pauses[pause]!.atMs + pauses[pause]!.durationMs <= dueMs) pause++;
    const current = pauses[pause];
    const sentMs = current !== undefined && current.atMs <= dueMs ? current.atMs + current.durationMs : dueMs;
    if (sentMs >= stopAtMs) break;
    // Both draws happen for every beat, lost or not, to keep the streams aligned.
    const delayMs = nextDelay();
    const lost = isLost();
    const t = micros(sentMs + delayMs);
    if (!lost && t <= durationMs) arrivals.push({ t, seq, sent: micros(sentMs) });
    dueMs = sentMs + intervalMs;
  }
  arrivals.sort((a, b) => a.t - b.t || a.seq - b.seq);

  const header: TraceHeader = {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    source: 'generated',
    intervalMs,
    durationMs,
    ...(crashAtMs === undefined ? {} : { crashAtMs }),
    generator: {
      seed,
      delay: { ...delay },
      loss: { ...loss },
      pauses: pauses.map((p) => ({ atMs: p.atMs, durationMs: p.durationMs })),
    },
  };
  return { header, arrivals };
}

/** Validates pauses and merges overlapping ones, sorted by start. */
function checkPauses(pauses: readonly SenderPause[]): SenderPause[] {
  if (!Array.isArray(pauses)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'pauses',
      `${OWNER}: option pauses must be an array`,
    );
  }
  const sorted = pauses
    .map((p, i) => {
      checkKnownKeys(`${OWNER} pauses[${i}]`, p, ['atMs', 'durationMs']);
      return {
        atMs: checkNumber(OWNER, `pauses[${i}].atMs`, p.atMs, { min: 0, max: 30 * DAY_MS }),
        durationMs: checkNumber(OWNER, `pauses[${i}].durationMs`, p.durationMs, { min: 0, max: DAY_MS }),
      };
    })
    .sort((a, b) => a.atMs - b.atMs);
  const merged: { atMs: number; durationMs: number }[] = [];
  for (const p of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && p.atMs <= last.atMs + last.durationMs) {
      last.durationMs = Math.max(last.durationMs, p.atMs + p.durationMs - last.atMs);
    } else {
      merged.push({ ...p });
    }
  }
  return merged;
}

/** Options of {@link randomPauses}. */
export interface RandomPausesOptions {
  /** Seed of the draws: the same options give the same pauses. A safe integer. */
  readonly seed: number;
  /** How many pauses. Integer in [0, 1000]. */
  readonly count: number;
  /** Length of each. */
  readonly durationMs: number;
  /** Pauses start and end within [fromMs, toMs], in ms from the start of the trace. */
  readonly fromMs: number;
  /** The end of the window in which the pauses fall, in ms from the start of the trace; >= `fromMs`. */
  readonly toMs: number;
}

/**
 * `count` pauses of `durationMs` at random times within [fromMs, toMs], none overlapping another or
 * closer to it than its own length, sorted; fewer when they do not fit.
 */
export function randomPauses(options: RandomPausesOptions): SenderPause[] {
  const owner = 'randomPauses';
  checkKnownKeys(owner, options, ['seed', 'count', 'durationMs', 'fromMs', 'toMs']);
  const count = checkNumber(owner, 'count', options.count, { min: 0, max: 1000, integer: true });
  const durationMs = checkNumber(owner, 'durationMs', options.durationMs, { min: 0, max: DAY_MS });
  const fromMs = checkNumber(owner, 'fromMs', options.fromMs, { min: 0 });
  const toMs = checkNumber(owner, 'toMs', options.toMs, { min: fromMs });
  const random = new Random(options.seed);
  const span = toMs - durationMs - fromMs;
  const pauses: SenderPause[] = [];
  // Rejection sampling, bounded: a crowded span yields fewer pauses rather than a loop without end.
  for (let attempt = 0; attempt < count * 100 && pauses.length < count && span >= 0; attempt++) {
    const atMs = Math.round(fromMs + random.next() * span);
    const clear = pauses.every((p) => Math.abs(p.atMs - atMs) >= 2 * durationMs);
    if (clear) pauses.push({ atMs, durationMs });
  }
  return pauses.sort((a, b) => a.atMs - b.atMs);
}

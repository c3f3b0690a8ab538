/**
 * The fault flags of `fdkit sim`: `--crash K`, `--kill K`, `--pause K:MS` and one cut, `--partition
 * FRACTION:MS`, `--isolate MS`, `--one-way FRACTION:MS` or `--flap FRACTION:MS:PERIOD_MS`, maybe with
 * `--crash-during-partition [--restart-after-ms MS]`, read into the planner's request.
 */
import { InvalidOptionError } from '../errors.js';
import { type FaultPlan, type FaultRequest, faultRandom, planFaults } from '../sim/faults.js';
import { numberFlag, type ParsedFlags, stringFlag, UsageError } from './args.js';

/** The flags' specs, for `commandFlags`. */
export const SIM_FAULT_FLAGS = {
  crash: { kind: 'integer', min: 0 },
  kill: { kind: 'integer', min: 0 },
  pause: { kind: 'string' },
  partition: { kind: 'string' },
  isolate: { kind: 'number', min: 1, max: 86_400_000 },
  'one-way': { kind: 'string' },
  flap: { kind: 'string' },
  'crash-during-partition': { kind: 'boolean' },
  'restart-after-ms': { kind: 'number', min: 1, max: 86_400_000 },
} as const;

/** The flags that each make a cut; a run has one at most, since the planner's cuts must not overlap. */
const CUT_FLAGS = ['partition', 'isolate', 'one-way', 'flap'] as const;
/** The planner's bounds on a flapping period: at least this, and at most this many periods per run. */
const MIN_PERIOD_MS = 100;
/** The planner's longest cut, a day. */
const MAX_MS = 86_400_000;
const MAX_FLAPS = 10_000;

/** What a colon-separated flag value holds. */
interface Shape {
  /** Its fields, `COUNT:MS` or `FRACTION:MS:PERIOD_MS`: a count or a fraction, then durations. */
  readonly pattern: string;
  /** Said after the pattern in the message: its bounds and an example. */
  readonly hint: string;
  /** The first field is a fraction in (0, 1) rather than a count. */
  readonly fractionFirst: boolean;
  /** The longest duration, in ms. */
  readonly maxMs: number;
}

const PAUSE: Shape = { pattern: 'COUNT:MS', hint: ', e.g. 2:3000', fractionFirst: false, maxMs: Infinity };
// --partition keeps the bounds it had before the planner checked the durations of the newer cuts.
const PARTITION: Shape = {
  pattern: 'FRACTION:MS',
  hint: ' with 0 < FRACTION < 1, e.g. 0.5:20000',
  fractionFirst: true,
  maxMs: Infinity,
};
const ONE_WAY: Shape = {
  pattern: 'FRACTION:MS',
  hint: ` with 0 < FRACTION < 1 and MS <= ${MAX_MS}, e.g. 0.4:30000`,
  fractionFirst: true,
  maxMs: MAX_MS,
};
const FLAP: Shape = {
  pattern: 'FRACTION:MS:PERIOD_MS',
  hint: ` with 0 < FRACTION < 1 and MS <= ${MAX_MS}, e.g. 0.4:60000:10000`,
  fractionFirst: true,
  maxMs: MAX_MS,
};

/** Splits `raw` into the numbers `shape` names; throws a UsageError that names the flag and the value. */
function numbers(flag: string, raw: string, shape: Shape): number[] {
  const parts = raw.split(':');
  const values = parts.map((p) => (/^\d+(?:\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
  const [first, ...rest] = values;
  const firstOk = shape.fractionFirst ? first! > 0 && first! < 1 : Number.isInteger(first) && first! >= 0;
  const fields = shape.pattern.split(':').length;
  if (parts.length !== fields || !firstOk || !rest.every((v) => v > 0 && v <= shape.maxMs)) {
    throw new UsageError(`fdkit sim: flag --${flag} takes ${shape.pattern}${shape.hint}, got '${raw}'`);
  }
  return values;
}

/**
 * The plan `flags` ask for on a cluster of `nodes` (the last one the late joiner) over `seconds`, drawn
 * from `seed`'s fault stream as `planFaults` draws it.
 */
export function faultPlanFromFlags(
  flags: ParsedFlags,
  nodes: number,
  seconds: number,
  seed: number,
): FaultPlan {
  const request = faultRequestFromFlags(flags, nodes);
  try {
    return planFaults(request, nodes, seconds * 1000, faultRandom(seed), new Set([nodes - 1]));
  } catch (error) {
    // The one draw the flags cannot rule out beforehand: the other faults took the whole larger side.
    if (error instanceof InvalidOptionError && error.option === 'crashDuringPartition') {
      throw new UsageError(
        `fdkit sim: --crash-during-partition finds no member of the cut's larger side left to crash with --crash ${request.crash}, --kill ${request.kill ?? 0} and --pause ${request.pause?.count ?? 0}; ask for fewer`,
      );
    }
    throw error;
  }
}

/** The planner's request that `flags` ask for, checked against the cluster's size `nodes`. */
function faultRequestFromFlags(flags: ParsedFlags, nodes: number): FaultRequest {
  const given = (flag: string): string | undefined => stringFlag(flags, flag);
  const pauseRaw = given('pause');
  const pause = pauseRaw === undefined ? undefined : numbers('pause', pauseRaw, PAUSE);
  const cuts = CUT_FLAGS.filter((flag) => flags.has(flag));
  if (cuts.length > 1) {
    throw new UsageError(
      `fdkit sim: --${cuts[1]} cannot go with --${cuts[0]}: a run has one cut at most (--partition, --isolate, --one-way or --flap)`,
    );
  }
  const fractionPair = (flag: string, shape: Shape): [number, number] | undefined => {
    const raw = given(flag);
    if (raw === undefined) return undefined;
    const [fraction, ms] = numbers(flag, raw, shape);
    return [fraction!, ms!];
  };
  const partition = fractionPair('partition', PARTITION);
  const oneWay = fractionPair('one-way', ONE_WAY);
  const flap = flapFromFlag(given('flap'));
  const isolate = flags.get('isolate');
  const during = flags.get('crash-during-partition') === true;
  if (during && cuts.length === 0) {
    throw new UsageError(
      'fdkit sim: --crash-during-partition needs a cut: --partition, --isolate, --one-way or --flap',
    );
  }
  const restart = flags.get('restart-after-ms');
  if (restart !== undefined && !during) {
    throw new UsageError(
      'fdkit sim: --restart-after-ms restarts the member crashed during the cut: it needs --crash-during-partition',
    );
  }
  const request: FaultRequest = {
    crash: numberFlag(flags, 'crash', 0),
    kill: numberFlag(flags, 'kill', 0),
    ...(pause === undefined ? {} : { pause: { count: pause[0]!, durationMs: pause[1]! } }),
    ...(partition === undefined ? {} : { partition: { fraction: partition[0], durationMs: partition[1] } }),
    ...(typeof isolate === 'number' ? { isolate: { durationMs: isolate } } : {}),
    ...(oneWay === undefined ? {} : { oneWay: { fraction: oneWay[0], durationMs: oneWay[1] } }),
    ...(flap === undefined ? {} : { flap }),
    ...(during
      ? { crashDuringPartition: typeof restart === 'number' ? { restartAfterMs: restart } : {} }
      : {}),
  };
  const faultCount = request.crash + (request.kill ?? 0) + (pause?.[0] ?? 0) + (during ? 1 : 0);
  if (faultCount > nodes - 2) {
    throw new UsageError(
      `fdkit sim: --crash, --kill, the count of --pause and --crash-during-partition together must be at most --nodes − 2 (${nodes - 2}), got ${faultCount}`,
    );
  }
  return request;
}

/** `--flap FRACTION:MS:PERIOD_MS`, with a period the planner takes. */
function flapFromFlag(raw: string | undefined): FaultRequest['flap'] {
  if (raw === undefined) return undefined;
  const [fraction, durationMs, periodMs] = numbers('flap', raw, FLAP) as [number, number, number];
  if (periodMs < MIN_PERIOD_MS || periodMs >= durationMs || durationMs / periodMs > MAX_FLAPS) {
    throw new UsageError(
      `fdkit sim: flag --flap takes a PERIOD_MS of at least ${MIN_PERIOD_MS}, less than MS and at least MS / ${MAX_FLAPS}, got '${raw}'`,
    );
  }
  return { fraction, durationMs, periodMs };
}

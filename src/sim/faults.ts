/**
 * The faults of a simulation run, and how the command line's `--crash K`, `--kill K`, `--pause K:MS`,
 * `--partition FRACTION:MS`, `--isolate MS`, `--one-way FRACTION:MS`, `--flap FRACTION:MS:PERIOD_MS` and
 * `--crash-during-partition` become a concrete schedule: members and times drawn from the seed, every fault
 * starting in the first third of the run so that the rest shows detection and recovery.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber } from '../options.js';
import { Random } from '../runtime/random.js';

/** A process killed at `atMs`, optionally restarted under the same name at `restartAtMs`. */
export interface CrashFault {
  /** The member's index in the simulation, 0 to `members` - 1 (named `n<index>`). */
  readonly member: number;
  /** When it dies, in virtual ms since the run began. */
  readonly atMs: number;
  /** When a new process starts under its name, in virtual ms since the run began; never when absent. */
  readonly restartAtMs?: number;
  /**
   * The incarnation the restarted process starts from, as a process that starts from a fixed one (0, or
   * one it persisted) does. Default: the wall clock in seconds, as `SwimCore` does.
   */
  readonly restartIncarnation?: number;
  /**
   * Only the process died (kill -9, a crash) and its host is up: connections to its port are refused at
   * once. Otherwise the whole host is gone and nothing answers at all.
   */
  readonly hostUp?: boolean;
}

/** A process frozen (GC pause, SIGSTOP) from `atMs` for `durationMs`. */
export interface PauseFault {
  /** The member's index in the simulation, 0 to `members` - 1 (named `n<index>`). */
  readonly member: number;
  /** When the freeze begins, in virtual ms since the run began. */
  readonly atMs: number;
  /** How long it lasts, in ms; its timers fire late, at the resume, and packets wait in the socket buffer. */
  readonly durationMs: number;
}

/** The members in `side` cut off from the others from `atMs` for `durationMs`; `oneWay`: only side → rest. */
export interface PartitionFault {
  /** When the cut begins, in virtual ms since the run began. */
  readonly atMs: number;
  /** How long it lasts, in ms; then the links heal. */
  readonly durationMs: number;
  /** The members (indexes) on one side of the cut; every other member is on the other side. */
  readonly side: readonly number[];
  /** Only packets from `side` to the rest are lost, not the replies. Default false: both ways. */
  readonly oneWay?: boolean;
}

/** A process whose every timer and packet takes an exponential time of mean `meanMs` to handle. */
export interface SlowCpuFault {
  /** The member's index in the simulation, 0 to `members` - 1 (named `n<index>`). */
  readonly member: number;
  /** When the slowness begins, in virtual ms since the run began. */
  readonly atMs: number;
  /** How long it lasts, in ms. */
  readonly durationMs: number;
  /** Mean handling time of each timer and packet, in ms (exponentially distributed). */
  readonly meanMs: number;
  /**
   * Timers waiting for the CPU run before packets waiting for it, as in Node's event loop (timers phase,
   * then poll), instead of all work in the order it came due: the member's probes then time out with
   * their acks unread, and it accuses healthy members (Lifeguard's slow member). Default false.
   */
  readonly timersFirst?: boolean;
}

/**
 * A second process started at `atMs` under the name of member `of`, at member `member`'s address (which
 * does not start with the cluster): a name conflict (docs/design.md, "Name conflicts"). It joins through
 * that member's seeds, and exits at `untilMs` (its host gone), or runs to the end.
 */
export interface ImpostorFault {
  /** The index whose address and process the impostor takes; that member never starts as itself. */
  readonly member: number;
  /** The member whose name it claims. */
  readonly of: number;
  /** When it starts, in virtual ms since the run began. */
  readonly atMs: number;
  /** When it exits, in virtual ms since the run began; never when absent. */
  readonly untilMs?: number;
}

/** Every fault of a run. */
export interface FaultPlan {
  /** Processes that die (whole hosts, or kills with `hostUp`), in any order. */
  readonly crashes: readonly CrashFault[];
  /** Processes that freeze and resume. */
  readonly pauses: readonly PauseFault[];
  /** Network cuts between a set of members and the rest. */
  readonly partitions: readonly PartitionFault[];
  /** Processes slowed down for a while. */
  readonly slowCpus: readonly SlowCpuFault[];
  /** Processes that claim another member's name. */
  readonly impostors?: readonly ImpostorFault[];
}

export const NO_FAULTS: FaultPlan = Object.freeze({ crashes: [], pauses: [], partitions: [], slowCpus: [] });

/** What the command line asks for. */
export interface FaultRequest {
  /** Hosts that go down (silence). */
  readonly crash: number;
  /** Processes killed on hosts that stay up (connections refused). */
  readonly kill?: number;
  /** Processes frozen once each (`--pause K:MS`). */
  readonly pause?: {
    /** How many distinct members freeze. */
    readonly count: number;
    /** How long each freeze lasts, in ms. */
    readonly durationMs: number;
  };
  /** One partition (`--partition FRACTION:MS`). */
  readonly partition?: {
    /** The share of the members cut off from the rest, in [0, 1]. */
    readonly fraction: number;
    /** How long the cut lasts, in ms. */
    readonly durationMs: number;
  };
  /** One member cut off from all the others, both ways (`--isolate MS`). */
  readonly isolate?: {
    /** How long the cut lasts, in ms. */
    readonly durationMs: number;
  };
  /**
   * A one-way partition (`--one-way FRACTION:MS`): the side's packets to the rest are lost, the rest's
   * to the side arrive. A TCP handshake needs both ways, so streams and connects fail both ways.
   */
  readonly oneWay?: {
    /** The share of the members whose packets to the rest are lost, in (0, 1). */
    readonly fraction: number;
    /** How long the cut lasts, in ms. */
    readonly durationMs: number;
  };
  /**
   * A flapping partition (`--flap FRACTION:MS:PERIOD_MS`): one side, cut both ways for the first half of
   * each period and healed for the second, from its start for `durationMs`; one partition per period.
   */
  readonly flap?: {
    /** The share of the members cut off from the rest, in (0, 1). */
    readonly fraction: number;
    /** How long the flapping lasts, in ms; the last cut ends by then. */
    readonly durationMs: number;
    /** One cut and one heal, in ms: at least 100, less than `durationMs`, at most 10,000 per run. */
    readonly periodMs: number;
  };
  /**
   * A member of the larger side of the run's cut (the rest on a tie) crashes during its first cut, at a
   * time uniform in [10 %, 50 %] of it (`--crash-during-partition [--restart-after-ms MS]`); needs one of
   * `partition`, `isolate`, `oneWay`, `flap`. It is not one of the other faults' members.
   */
  readonly crashDuringPartition?: {
    /** Restarts it under its name this long after its crash, in ms; never when absent. */
    readonly restartAfterMs?: number;
  };
}

/** The owner named in the planner's errors. */
const PLANNER = 'planFaults';
/** The request's keys that each make a cut; a plan has at most one, since cuts must not overlap. */
const CUT_KEYS = ['partition', 'isolate', 'oneWay', 'flap'] as const;
/** Flapping timers per run beyond which the plan would cost more than the run. */
const MAX_FLAPS = 10_000;

/**
 * The fault-schedule stream of seed `seed`, as `fdkit sim --seed` draws it: derived from the seed, apart
 * from the protocol's, so that a schedule does not shift when the protocol's use of randomness changes.
 * `planFaults(request, n, ms, faultRandom(seed), new Set([n - 1]))` is the plan `fdkit sim` runs.
 */
export function faultRandom(seed: number): Random {
  const faultSeed = new Random(seed).nextUint32() ^ 0x5f3759df;
  return new Random(faultSeed >>> 0);
}

/** Throws unless `request`'s cut kinds, their shares, durations and period are ones the planner draws. */
function checkCutRequest(request: FaultRequest): void {
  const cuts = CUT_KEYS.filter((key) => request[key] !== undefined);
  if (cuts.length > 1) {
    bad(cuts[1]!, `cannot go with ${cuts[0]}: a plan has at most one cut, got ${cuts.join(' and ')}`);
  }
  const duration = (option: string, value: number): number =>
    checkNumber(PLANNER, option, value, { min: 0, minExclusive: true, max: 86_400_000 });
  const fraction = (option: string, value: number): void => {
    checkNumber(PLANNER, option, value, { min: 0, minExclusive: true, max: 1 });
    if (value === 1) bad(option, 'be less than 1 (some members must stay on the other side), got 1');
  };
  if (request.isolate !== undefined) {
    checkKnownKeys(PLANNER, request.isolate, ['durationMs'], 'isolate.');
    duration('isolate.durationMs', request.isolate.durationMs);
  }
  if (request.oneWay !== undefined) {
    checkKnownKeys(PLANNER, request.oneWay, ['fraction', 'durationMs'], 'oneWay.');
    fraction('oneWay.fraction', request.oneWay.fraction);
    duration('oneWay.durationMs', request.oneWay.durationMs);
  }
  if (request.flap !== undefined) {
    checkKnownKeys(PLANNER, request.flap, ['fraction', 'durationMs', 'periodMs'], 'flap.');
    fraction('flap.fraction', request.flap.fraction);
    const flapMs = duration('flap.durationMs', request.flap.durationMs);
    const periodMs = checkNumber(PLANNER, 'flap.periodMs', request.flap.periodMs, {
      min: Math.max(100, flapMs / MAX_FLAPS),
      max: flapMs,
    });
    if (periodMs === flapMs) {
      bad(
        'flap.periodMs',
        `be less than flap.durationMs (${flapMs}) for the cut to come back, got ${periodMs}`,
      );
    }
  }
  if (request.crashDuringPartition !== undefined) {
    checkKnownKeys(PLANNER, request.crashDuringPartition, ['restartAfterMs'], 'crashDuringPartition.');
    if (cuts.length === 0) bad('crashDuringPartition', 'go with a cut (partition, isolate, oneWay or flap)');
    const restart = request.crashDuringPartition.restartAfterMs;
    if (restart !== undefined) duration('crashDuringPartition.restartAfterMs', restart);
  }
}

function bad(option: string, must: string): never {
  throw new InvalidOptionError('FDKIT_INVALID_OPTION', option, `${PLANNER}: option ${option} must ${must}`);
}

/**
 * Draws a schedule: distinct members for crashes and pauses (never `excluded`, e.g. the late joiner), at
 * times uniform in [5 % , 33 %] of the run, so that the cluster has settled and the rest of the run shows
 * the consequences. The same request, sizes and stream give the same plan; the draws of the kinds the
 * command line has had longest come first, so that adding a kind to the planner leaves their plans as
 * they were. Throws InvalidOptionError for a cut kind, share, duration or period it cannot draw.
 */
export function planFaults(
  request: FaultRequest,
  members: number,
  durationMs: number,
  random: Random,
  excluded: ReadonlySet<number>,
): FaultPlan {
  checkCutRequest(request);
  const pool: number[] = [];
  for (let i = 0; i < members; i++) if (!excluded.has(i)) pool.push(i);
  shuffle(pool, random);
  const at = (): number => Math.round(durationMs * (0.05 + random.next() * 0.28));
  const crashes: CrashFault[] = pool.splice(0, request.crash).map((member) => ({ member, atMs: at() }));
  const kills: CrashFault[] = pool
    .splice(0, request.kill ?? 0)
    .map((member) => ({ member, atMs: at(), hostUp: true }));
  const pauses: PauseFault[] = request.pause
    ? pool
        .splice(0, request.pause.count)
        .map((member) => ({ member, atMs: at(), durationMs: request.pause!.durationMs }))
    : [];
  // A cut's side is drawn from every member the plan may touch, independently of the crashes and pauses.
  const side = (size: number): number[] => {
    const candidates: number[] = [];
    for (let i = 0; i < members; i++) if (!excluded.has(i)) candidates.push(i);
    shuffle(candidates, random);
    return candidates.slice(0, Math.min(candidates.length, size)).sort((a, b) => a - b);
  };
  const share = (fraction: number): number => Math.round(members * fraction);
  const partitions: PartitionFault[] = [];
  const cut = (onSide: number[], cutMs: number, oneWay: boolean): PartitionFault => {
    const part = { atMs: at(), durationMs: cutMs, side: onSide, ...(oneWay ? { oneWay } : {}) };
    partitions.push(part);
    return part;
  };
  if (request.partition) cut(side(share(request.partition.fraction)), request.partition.durationMs, false);
  if (request.isolate) cut(side(1), request.isolate.durationMs, false);
  if (request.oneWay) cut(side(share(request.oneWay.fraction)), request.oneWay.durationMs, true);
  if (request.flap) {
    const { fraction, durationMs: flapMs, periodMs } = request.flap;
    const first = cut(side(share(fraction)), periodMs / 2, false);
    for (let start = periodMs; start < flapMs; start += periodMs) {
      const cutMs = Math.min(periodMs / 2, flapMs - start);
      partitions.push({ atMs: first.atMs + start, durationMs: cutMs, side: first.side });
    }
  }
  const during = request.crashDuringPartition;
  const inCut = during ? [crashInCut(during, partitions[0]!, members, pool, random)] : [];
  return { crashes: [...crashes, ...kills, ...inCut], pauses, partitions, slowCpus: [] };
}

/** A crash of the first member of `pool` on the larger side of `part`, within [10 %, 50 %] of it. */
function crashInCut(
  during: NonNullable<FaultRequest['crashDuringPartition']>,
  part: PartitionFault,
  members: number,
  pool: readonly number[],
  random: Random,
): CrashFault {
  const onSide = new Set(part.side);
  const sideIsLarger = part.side.length > members - part.side.length;
  const member = pool.find((m) => onSide.has(m) === sideIsLarger);
  if (member === undefined) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'crashDuringPartition',
      `${PLANNER}: option crashDuringPartition finds no member of the cut's larger side left to crash (the other faults took them), got a side of ${part.side.length} of ${members}`,
    );
  }
  const atMs = Math.round(part.atMs + part.durationMs * (0.1 + random.next() * 0.4));
  const restart = during.restartAfterMs;
  return { member, atMs, ...(restart === undefined ? {} : { restartAtMs: atMs + restart }) };
}

/** Fisher-Yates, in place, from the top down. */
function shuffle(values: number[], random: Random): void {
  for (let i = values.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [values[i], values[j]] = [values[j]!, values[i]!];
  }
}

/**
 * The faults of a simulation run, and how the command line's `--crash K`, `--kill K`, `--pause K:MS` and
 * `--partition FRACTION:MS` become a concrete schedule: members and times drawn from the seed, every fault
 * starting in the first third of the run so that the rest shows detection and recovery.
 */
import type { Random } from '../runtime/random.js';

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
}

/**
 * Draws a schedule: distinct members for crashes and pauses (never `excluded`, e.g. the late joiner), at
 * times uniform in [5 % , 33 %] of the run, so that the cluster has settled and the rest of the run shows
 * the consequences.
 */
export function planFaults(
  request: FaultRequest,
  members: number,
  durationMs: number,
  random: Random,
  excluded: ReadonlySet<number>,
): FaultPlan {
  const pool: number[] = [];
  for (let i = 0; i < members; i++) if (!excluded.has(i)) pool.push(i);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
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
  const partitions: PartitionFault[] = [];
  if (request.partition) {
    // The side is drawn from every member the plan may touch, independently of the crashes and pauses.
    const candidates: number[] = [];
    for (let i = 0; i < members; i++) if (!excluded.has(i)) candidates.push(i);
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = random.int(i + 1);
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    const size = Math.min(candidates.length, Math.round(members * request.partition.fraction));
    partitions.push({
      atMs: at(),
      durationMs: request.partition.durationMs,
      side: candidates.slice(0, size).sort((a, b) => a - b),
    });
  }
  return { crashes: [...crashes, ...kills], pauses, partitions, slowCpus: [] };
}

/**
 * The report of one simulation run, with the keys docs/simulator.md lists. Durations are milliseconds of virtual
 * time unless the name says otherwise.
 */

/** Distribution of a duration over the crashed members. */
export interface Quantiles {
  /** The median, in ms (nearest rank). */
  readonly p50: number;
  /** The 99th percentile, in ms (nearest rank: the maximum below 100 values). */
  readonly p99: number;
  /** The largest value, in ms. */
  readonly max: number;
}

/**
 * What {@link Simulation.run} measured: detection of the crashes, false positives, load, drops,
 * convergence, and the cost of the run. `fdkit sim` prints it as JSON; every field is deterministic for
 * a seed except `wallMs`, `eventsPerSec` and `peakRssMb`.
 */
export interface SimulationReport {
  /** Members simulated, the late joiner included ({@link SimulationOptions.nodes}). */
  readonly nodes: number;
  /** Virtual seconds simulated ({@link SimulationOptions.seconds}). */
  readonly seconds: number;
  /** The seed every random draw came from; the same seed and options give the same report. */
  readonly seed: number;
  /** The name of the members' base configuration profile (`lan` by default; see `profiles`). */
  readonly profile: string;
  /** How fast the crashed members were found, in virtual ms from each crash. */
  readonly detection: {
    /** Crash faults injected. */
    readonly crashed: number;
    /**
     * Crashed members (still down at the end) that some live member did not hold dead at the end (a member
     * that held one dead and has forgotten it since, its tombstone expired, counts as holding it dead).
     */
    readonly missed: number;
    /** From the crash to the first suspicion of it anywhere; null without crashes. */
    readonly firstSuspectMs: Quantiles | null;
    /** From the crash to the first declaration of its death anywhere. */
    readonly firstDeadMs: Quantiles | null;
    /** From the crash until the last live member held it dead (members still down at the end). */
    readonly allKnowDeadMs: Quantiles | null;
  };
  /** Mistakes about members whose process was up. */
  readonly falsePositives: {
    /** Suspicions of a member whose process was up (a paused or cut-off process is up). */
    readonly suspicions: number;
    /** Declarations of death of a member whose process was up. */
    readonly deaths: number;
    /**
     * Crashed members (not restarted) held alive again by a member that had held them dead in the life
     * that ended: ghosts revived by old news, each one member's transition.
     */
    readonly resurrections: number;
  };
  /** The traffic the protocol cost. */
  readonly load: {
    /** Datagrams and stream messages sent, per member per second. */
    readonly msgsPerNodePerSec: number;
    /** Their encoded bytes, per member per second. */
    readonly bytesPerNodePerSec: number;
  };
  /** Messages lost in the members' processes (the network's losses are not counted here). */
  readonly drops: {
    /**
     * Datagrams dropped on arrival because the receiver's socket buffer was full (its process paused, or
     * its slow CPU behind), over all members. Stream messages are never dropped there.
     */
    readonly socketBuffer: number;
  };
  /** How long the views took to agree, in virtual ms. */
  readonly convergence: {
    /** From the late joiner's join until every live member held it alive; null when it never happened. */
    readonly joinAllKnowMs: number | null;
    /**
     * From the end of the last fault until every live member held every member in its true state
     * (crashed ones dead, or forgotten after being held dead; the others alive); null when not reached or
     * not measured (large clusters).
     */
    readonly agreeAfterMs: number | null;
  };
  /** Present only when the run had leader hints (`leader` option, `fdkit sim --leader`). */
  readonly leader?: LeaderReport;
  /** Present only when the members ran a split-brain resolver (`downing` option, `fdkit sim --downing`). */
  readonly downing?: DowningReport;
  /** Wall-clock time of the run, in real milliseconds. */
  readonly wallMs: number;
  /** Simulation events (timers and deliveries) handled per wall-clock second. */
  readonly eventsPerSec: number;
  /** Peak resident memory of the process during the run, in MiB. */
  readonly peakRssMb: number;
}

/** How the members' leader hints behaved (`fdkit sim --leader`). */
export interface LeaderReport {
  /** The hints' hysteresis: how long a comeback waits before it may take the lead. */
  readonly stableForMs: number;
  /** Changes of leader, summed over every member's hint (each member counts its own). */
  readonly changes: number;
  /**
   * From the end of the last fault until every live member named the same leader, and that leader's
   * process was up; null when it never happened.
   */
  readonly agreeAfterMs: number | null;
  /**
   * Live members at the end that do not name the leader most of them name; all of them when that
   * leader's process is down.
   */
  readonly disagreeingAtEnd: number;
  /** The leader most live members name at the end. */
  readonly leaderAtEnd: string | null;
}

/**
 * What the members' split-brain resolvers decided, and what it did (`fdkit sim --downing`). A member is
 * *up* while its process has not crashed and its resolver has not downed it.
 */
export interface DowningReport {
  /** The strategy, as `--downing` names it: `keep-majority`, `keep-oldest-down-if-alone`, … */
  readonly strategy: string;
  /** Static-quorum's quorum size. */
  readonly quorumSize?: number;
  /** How long a member's view had to stay unchanged before it decided. */
  readonly stableAfterMs: number;
  /**
   * Virtual time during which two up members had each downed the other: each side held itself the
   * cluster without the other. Exact, not sampled: it changes only at decisions, crashes and restarts.
   */
  readonly splitBrainMs: number;
  /**
   * Members downed (by themselves or by others) while their process was up and they reached, both
   * ways, more than half of the members: on the majority side of the cut. Each member counts once.
   */
  readonly downedHealthy: number;
  /** Virtual time, from the first decision on, during which no member was up. */
  readonly unavailableMs: number;
  /**
   * From the start of the latest partition to each member's first decision (down or downed-self) after
   * it; null without partitions or decisions.
   */
  readonly decisionMs: Quantiles | null;
  /** `downed-self` decisions: members that stopped. */
  readonly downedSelf: number;
  /** `down` decisions, summed over the members that made them. */
  readonly downs: number;
}

/** p50, p99 and max of `values` (nearest rank); null for an empty list. */
export function quantiles(values: readonly number[]): Quantiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: rank(0.5), p99: rank(0.99), max: sorted[sorted.length - 1]! };
}

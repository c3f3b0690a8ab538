/**
 * What the chaos bench records, as plain data the checkers read (bench/chaos/checkers.ts) and the unit
 * tests write by hand: every member's view changes, the lives of the agent processes, snapshots of the
 * views and leaders, and what each fault excuses. Times are ms from the start of the chaos phase.
 */

export type ViewState = 'alive' | 'suspect' | 'dead' | 'left';

/** `observer` came to hold `member` in `state` (an event line of `fdkit agent`). */
export interface ViewChange {
  readonly atMs: number;
  readonly observer: string;
  readonly member: string;
  readonly state: ViewState;
  readonly incarnation: number;
  /** Why, as the agent said (`suspicion-timeout`, `dead-gossip`, ...); absent in hand-written histories. */
  readonly cause?: string;
}

/** One agent process: from its start to its end (null while it runs). */
export interface Life {
  readonly name: string;
  readonly fromMs: number;
  readonly toMs: number | null;
  /** How it ended: killed, left, or still running / stopped by the bench at the end. */
  readonly end: 'kill' | 'leave' | null;
}

/**
 * Deaths that a fault makes legitimate, from `fromMs` to `toMs`: of the `members` in anyone's view, and
 * of either member of a `pair` in the other's view.
 */
export interface Excuse {
  readonly fault: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly members: readonly string[];
  readonly pairs: readonly (readonly [string, string])[];
}

/** What every running member said at one moment: whom it holds alive (itself included), and its leader. */
export interface Snapshot {
  readonly atMs: number;
  /** The members whose agents run and have not left, i.e. what a converged view holds alive. */
  readonly live: readonly string[];
  readonly views: readonly {
    readonly observer: string;
    readonly alive: readonly string[];
    /** Its leader hint, or null when it did not answer. */
    readonly leader: string | null;
  }[];
}

/** The life of `name` running at `atMs`, if any. */
export function lifeAt(lives: readonly Life[], name: string, atMs: number): Life | undefined {
  return lives.find((l) => l.name === name && l.fromMs <= atMs && (l.toMs === null || atMs < l.toMs));
}

/**
 * The state in which `observer`'s process running at `atMs` last held `member`, or undefined when that
 * process was not running or had not heard of it: a restarted agent's view starts afresh.
 */
export function stateAt(
  changes: readonly ViewChange[],
  lives: readonly Life[],
  observer: string,
  member: string,
  atMs: number,
): ViewState | undefined {
  const life = lifeAt(lives, observer, atMs);
  if (life === undefined) return undefined;
  let state: ViewState | undefined;
  for (const c of changes) {
    if (c.observer === observer && c.member === member && c.atMs >= life.fromMs && c.atMs <= atMs) {
      state = c.state;
    }
  }
  return state;
}

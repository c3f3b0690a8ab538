/**
 * What a billing worker and the runner tell each other, over the IPC channel of `child_process.fork`.
 * Tokens travel as decimal strings (a `bigint` does not survive JSON).
 *
 * After each of its steps a worker reports the step and waits for the runner's `go`: that is how the
 * runner holds the new holder at one chosen point while the frozen one wakes, so that every interleaving
 * can be replayed rather than left to the scheduler.
 */

/** How a worker writes: under a claim on the `billing` fence row, or trusting its lease. */
export type WorkerMode =
  /** Claims the resource, and passes the lease as the holder, so every write also checks the lease's clock. */
  | 'fenced'
  /**
   * Claims the resource with the bare token: the database fence is the only defence at the write, as when
   * a pause strikes after the lease check, inside the database call.
   */
  | 'fence-only'
  /** Trusts its lease: no claim, plain UPDATEs. */
  | 'unfenced';

/** The worker's settings, passed as one JSON argument. */
export interface WorkerSettings {
  readonly name: string;
  readonly dbPath: string;
  readonly etcd: string;
  readonly mode: WorkerMode;
  readonly period: string;
  readonly ttlMs: number;
  readonly batchSize: number;
  /** How long rating a batch's usage takes: the work between reading a batch and writing it. */
  readonly workMs: number;
  /** How long to wait for the runner's `go` after a step before giving up. */
  readonly goTimeoutMs: number;
}

/** The steps a worker reports, in order; `read` and `wrote` once per batch. */
export type Step = 'acquired' | 'claimed' | 'read' | 'wrote' | 'done';

/** Why a write under a claim was refused: the lease's own clock check, or the database's fence. */
export type RefusedBy = 'lease' | 'fence';

export type WorkerMessage =
  | {
      readonly type: 'step';
      readonly step: Step;
      readonly token: string;
      /** The lease's deadline by the worker's own clock, less now: negative once it has passed. */
      readonly leaseLeftMs: number;
      /** The granted TTL (etcd counts whole seconds). */
      readonly ttlMs: number;
      /** For `read`: the batch, by id; for `wrote`: also how many of it were charged. */
      readonly first?: number;
      readonly last?: number;
      readonly charged?: number;
    }
  | {
      readonly type: 'refused';
      readonly token: string;
      readonly by: RefusedBy;
      /** What was refused: the read of a batch, or its write. */
      readonly stage: 'read' | 'write';
      /** The `LeaseError` or `StaleTokenError` message. */
      readonly message: string;
      readonly first: number;
      readonly last: number;
    }
  | { readonly type: 'lost'; readonly code: string; readonly message: string }
  | { readonly type: 'stopped'; readonly reason: 'done' | 'lease lost' | 'refused' };

/** The runner's go-ahead after a step. */
export interface GoMessage {
  readonly type: 'go';
}

/**
 * What a billing worker tells the runner, over the IPC channel of `child_process.fork`. Tokens travel as
 * decimal strings (a `bigint` does not survive JSON).
 */

/** The worker's settings, passed as one JSON argument. */
export interface WorkerSettings {
  readonly name: string;
  readonly dbPath: string;
  readonly etcd: string;
  readonly fenced: boolean;
  readonly period: string;
  readonly ttlMs: number;
  readonly batchSize: number;
  /** How long rating a batch's usage takes: the work between checking the lease and writing. */
  readonly workMs: number;
}

export type WorkerMessage =
  | { readonly type: 'acquired'; readonly token: string }
  | { readonly type: 'batch'; readonly token: string; readonly first: number; readonly last: number }
  | { readonly type: 'charged'; readonly token: string; readonly first: number; readonly last: number }
  | {
      readonly type: 'rejected';
      readonly token: string;
      readonly highest: string;
      readonly resource: string;
      /** The lease's state when the rejection came: the woken holder's lease is lost by then. */
      readonly leaseLost: string | null;
    }
  | { readonly type: 'lost'; readonly code: string; readonly message: string }
  | { readonly type: 'stopped'; readonly reason: 'done' | 'lease lost' | 'stale token' };

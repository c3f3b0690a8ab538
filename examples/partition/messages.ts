/**
 * What `main.ts` and its member processes (`worker.ts`) tell each other over the IPC channel. Tokens
 * travel as decimal strings (a `bigint` does not survive JSON).
 */

/**
 * How the billing workers decide to bill:
 * - `keep-majority-fenced`: every member runs `SplitBrainResolver` keep-majority and stops on
 *   `downed-self`; a worker bills only while it holds the etcd lease, every read and write under its
 *   claim on the `billing` fence row;
 * - `unfenced`: no resolver; a worker bills whenever its leader hint names it, trusting that.
 */
export type PartitionMode = 'keep-majority-fenced' | 'unfenced';

/** A member's settings, passed as one JSON argument. */
export interface WorkerSettings {
  readonly name: string;
  /** Its gossip address, `IP:PORT` in its namespace. */
  readonly bind: string;
  /** The member to join through; absent for the first. */
  readonly seed?: string;
  /** Its leader-hint rank: the highest live one leads. */
  readonly priority: number;
  /** True for a billing worker; a plain member only takes part in the cluster (and its resolver). */
  readonly bills: boolean;
  readonly mode: PartitionMode;
  /** The resolver's wait, the same on every member. */
  readonly stableAfterMs: number;
  /** etcd's client URL, reachable from both sides of the cut. */
  readonly etcd: string;
  readonly dbPath: string;
  readonly period: string;
  readonly ttlMs: number;
  readonly batchSize: number;
  /** How long rating a batch takes, between its read and its write. */
  readonly workMs: number;
}

/** What a member reports, as it happens. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  /** How many members its view holds alive, itself included, after every change. */
  | { readonly type: 'view'; readonly alive: number }
  /** The member its hint names; null once its side is downed (the hint then names nobody). */
  | { readonly type: 'leader'; readonly leader: string | null }
  | { readonly type: 'lease'; readonly token: string }
  | {
      readonly type: 'billed';
      readonly token: string;
      readonly first: number;
      readonly last: number;
      readonly charged: number;
    }
  /** A read or write under the claim refused (by the lease's own check or the fence): it stops serving. */
  | { readonly type: 'refused'; readonly message: string }
  | { readonly type: 'down'; readonly members: readonly string[] }
  | { readonly type: 'downed-self'; readonly reason: string }
  | { readonly type: 'stopped'; readonly reason: string };

/** The runner's request to leave and exit. */
export interface StopMessage {
  readonly type: 'stop';
}

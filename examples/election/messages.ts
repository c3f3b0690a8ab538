/** What `main.ts` and its candidate processes say to each other over the IPC channel. */

/** The settings a candidate is started with (its only argument, as JSON). */
export interface CandidateSettings {
  readonly name: string;
  /** Its leader-hint rank: the highest live one leads. */
  readonly priority: number;
  /** A gossip address to join through, for every candidate but the first. */
  readonly seed?: string;
  /** etcd client URLs. */
  readonly etcd: readonly string[];
  readonly dbPath: string;
  readonly ttlMs: number;
  /** The work before each write: where a pause can fall between the lease check and the write. */
  readonly workMs: number;
}

/** What a candidate reports, as it happens. */
export type CandidateMessage =
  | { readonly type: 'ready'; readonly gossip: string }
  | { readonly type: 'leader'; readonly leader: string; readonly epoch: number }
  | { readonly type: 'view'; readonly member: string; readonly state: string; readonly cause: string }
  | { readonly type: 'campaigning' }
  | { readonly type: 'elected'; readonly token: string }
  | { readonly type: 'working'; readonly token: string }
  | { readonly type: 'wrote'; readonly token: string; readonly seq: number }
  | { readonly type: 'rejected'; readonly token: string; readonly highest: string }
  | { readonly type: 'claimed'; readonly token: string }
  | {
      readonly type: 'lost';
      readonly token: string;
      readonly code: string;
      /** Found by the check before the work, or by the lease check at the moment of the write. */
      readonly at: 'check' | 'write';
    }
  | { readonly type: 'stepped-down'; readonly token: string; readonly leader: string | undefined };

export function isCandidateMessage(value: unknown): value is CandidateMessage {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

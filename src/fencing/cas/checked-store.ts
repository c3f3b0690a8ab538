/**
 * Calls into a {@link CasStore}, checking what comes back. A store is the caller's code, or a network
 * service's answer decoded by it, and fencing is only as good as the fence it reads: a fence that is a
 * `number` compares, but rounds above 2^53; a string compares `'10'` before `'9'`; a missing fence makes
 * every comparison false. Each becomes a typed error naming the key, before anything is written, so a
 * broken store can neither crash the holder with a TypeError nor let a write through unfenced.
 */
import { abortable } from '../../abortable.js';
import { FenceError } from '../../errors.js';
import { describeReceived } from '../../options.js';
import { FENCING_TOKEN_MAX } from '../token.js';
import type { CasStore, CasVersion, FencedRecord, Versioned } from './cas-store.js';

function checkRecord<V>(owner: string, key: string, record: unknown): Versioned<V> | undefined {
  if (record === undefined) return undefined;
  const where = `${owner}: store.read(${JSON.stringify(key)})`;
  if (typeof record !== 'object' || record === null) {
    throw new FenceError(
      'FDKIT_FENCE_STORE',
      key,
      `${where} returned ${describeReceived(record)}, not a record { fence, value, version } or undefined`,
    );
  }
  const { fence, value, version } = record as { fence?: unknown; value?: unknown; version?: unknown };
  if (fence == null) {
    throw new FenceError(
      'FDKIT_FENCE_NULL',
      key,
      `${where} returned a record whose fence is ${fence}: nothing could refuse an older token`,
    );
  }
  if (typeof fence !== 'bigint' || fence < 0n || fence > FENCING_TOKEN_MAX) {
    throw new FenceError(
      'FDKIT_FENCE_TYPE',
      key,
      `${where} returned the fence ${describeReceived(fence)}; it must be a bigint in [0, 2^63 - 1] ` +
        '(a number rounds above 2^53, a string orders "10" before "9": decode it with BigInt)',
    );
  }
  if (typeof version !== 'string' && typeof version !== 'bigint') {
    throw new FenceError(
      'FDKIT_FENCE_STORE',
      key,
      `${where} returned the version ${describeReceived(version)}; it must be a string or a bigint`,
    );
  }
  if (value === undefined) {
    throw new FenceError('FDKIT_FENCE_STORE', key, `${where} returned a record without a value`);
  }
  return { fence, value: value as V, version };
}

/** One key of a store, read and written with checks; `signal` stops waiting for the store. */
export class CheckedStore<V> {
  constructor(
    private readonly store: CasStore<V>,
    readonly key: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async read(owner: string): Promise<Versioned<V> | undefined> {
    this.signal?.throwIfAborted();
    const record: unknown = await abortable(this.store.read(this.key), this.signal);
    return checkRecord<V>(owner, this.key, record);
  }

  async compareAndSet(
    owner: string,
    expected: CasVersion | undefined,
    next: FencedRecord<V>,
  ): Promise<boolean> {
    this.signal?.throwIfAborted();
    const written: unknown = await abortable(this.store.compareAndSet(this.key, expected, next), this.signal);
    if (typeof written !== 'boolean') {
      throw new FenceError(
        'FDKIT_FENCE_STORE',
        this.key,
        `${owner}: store.compareAndSet(${JSON.stringify(this.key)}) returned ${describeReceived(written)}, ` +
          'not a boolean, so whether it wrote is unknown',
      );
    }
    return written;
  }

  /** The error for `attempts` compare-and-sets in a row that found the record changed since its read. */
  conflicts(owner: string, attempts: number): FenceError {
    return new FenceError(
      'FDKIT_FENCE_STORE',
      this.key,
      `${owner}: ${attempts} compare-and-sets in a row on ${JSON.stringify(this.key)} found the record ` +
        'changed since it was read, so nothing was written: either other writers keep winning (raise ' +
        'maxAttempts), or the store refuses writes it should accept',
    );
  }
}

/**
 * The bookkeeping every lease provider shares, whatever lock service it talks to: the checks at the
 * start of an acquire, the signal that ends its waits (the caller's, or the provider closing), the set of
 * leases it holds, and a close that releases each of them, waiting at most its TTL, since by then the
 * lock service has dropped it anyway.
 */
import { InvalidArgumentError, LifecycleError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { type AcquireOptions, type ResolvedAcquireOptions, resolveAcquireOptions } from './lease.js';
import type { TrackedLease } from './tracked-lease.js';

/** Longest lease name, in UTF-8 bytes: a key, not a payload. */
const NAME_BYTES_MAX = 512;

/** The leases one provider holds, and its closing. */
export class HeldLeases<L extends TrackedLease> {
  private readonly held = new Set<L>();
  /** Aborts every acquire still waiting when the provider closes. */
  private readonly closing = new AbortController();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /**
   * Checks an acquire's name and options: the resolved options, and the signal that ends its waits.
   * Throws when the provider is closed, the name is not one, or the signal aborted already.
   */
  begin(name: string, options: AcquireOptions): { resolved: ResolvedAcquireOptions; signal: AbortSignal } {
    if (this.closed) throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider is closed');
    if (typeof name !== 'string' || name === '' || Buffer.byteLength(name) > NAME_BYTES_MAX) {
      throw new InvalidArgumentError(
        'name',
        `acquire: name must be a string of 1 to ${NAME_BYTES_MAX} bytes`,
      );
    }
    const resolved = resolveAcquireOptions('acquire', options);
    const signal =
      resolved.signal === undefined
        ? this.closing.signal
        : AbortSignal.any([resolved.signal, this.closing.signal]);
    signal.throwIfAborted();
    return { resolved, signal };
  }

  /**
   * Takes a granted lease in. False when it ended before it could be used (a grant whose answer took
   * longer than its TTL: the caller paused), so that the acquire tries again; throws, having released it,
   * when the provider closed meanwhile.
   */
  async adopt(lease: L): Promise<boolean> {
    if (this.closed) {
      await lease.release().catch(() => undefined);
      throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed meanwhile');
    }
    if (lease.ended()) return false;
    this.held.add(lease);
    return true;
  }

  /** Forgets a lease that ended; its `onEnd`. */
  forget(lease: L): void {
    this.held.delete(lease);
  }

  /** Closes: false when it was closed already; otherwise ends the waits and releases every lease held. */
  async close(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    this.closing.abort(new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed'));
    await Promise.allSettled([...this.held].map((lease) => releaseWithinTtl(this.clock, lease)));
    return true;
  }
}

/** Releases `lease`, waiting at most its TTL: by then the lock service has dropped it anyway. */
export async function releaseWithinTtl(clock: Clock, lease: TrackedLease): Promise<void> {
  const giveUp = new AbortController();
  const timer = clock.setTimer(lease.ttlMs, () => giveUp.abort());
  try {
    await lease.release({ signal: giveUp.signal });
  } finally {
    timer.cancel();
  }
}

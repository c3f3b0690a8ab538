/**
 * The error of a request the lock service failed or never answered, the same from every provider (etcd,
 * Redis): a `LeaseError` whose message names the lease, the operation and the client's error with its
 * class, and whose `cause` is that error.
 */
import { LeaseError } from '../errors.js';

/** A `FDKIT_LEASE_UNAVAILABLE` error for a failed `operation` on lease `name`, with the client's error. */
export function unavailable(name: string, operation: string, error: unknown): LeaseError {
  const reason = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
  return new LeaseError(
    'FDKIT_LEASE_UNAVAILABLE',
    name,
    `lease ${name}: ${operation} failed at the lock service (${reason})`,
    { cause: error },
  );
}

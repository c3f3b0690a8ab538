/**
 * Fencing tokens from etcd revisions, with an epoch above them: token = epoch × 2^44 + revision.
 *
 * etcd's revision never goes back while its data lasts; a wiped member, or one restored from a backup,
 * counts from where that data left off, and hands out revisions, and so tokens, that were handed out
 * before. A resource would then refuse the new holder (its token is lower) or, worse, accept a token
 * equal to an old holder's from another grant. Operators raise the epoch after a wipe or a restore, and
 * every new token is then above every old one. The cluster ID does not tell: etcd derives it from the
 * members' names and peer URLs, so an etcd started again with the same flags has the same one.
 *
 * 44 bits hold 17.6 trillion revisions (at 10,000 writes a second, 55 years); the 19 bits above them hold
 * epochs up to 524,287, and the token stays within a signed 64-bit integer.
 */
import { LeaseError } from '../errors.js';
import { FENCING_TOKEN_MAX, type FencingToken } from './token.js';

/** Bits of a token below the epoch, for the revision. */
const REVISION_BITS = 44n;

/** The largest epoch: the one whose tokens still fit a signed 64-bit integer. */
export const ETCD_EPOCH_MAX = Number(FENCING_TOKEN_MAX >> REVISION_BITS);

/** The token of the grant at `revision` in `epoch` (checked by the caller: an integer up to the max). */
export function etcdToken(name: string, epoch: number, revision: bigint): FencingToken {
  if (revision < 1n || revision >> REVISION_BITS !== 0n) {
    throw new LeaseError(
      'FDKIT_LEASE_TOKEN_RANGE',
      name,
      `lease ${name}: etcd revision ${revision} does not fit the ${REVISION_BITS} bits of a token below the epoch ` +
        `(1 to 2^${REVISION_BITS} - 1); compacting does not lower it: move to a new etcd cluster and raise the epoch`,
    );
  }
  return (BigInt(epoch) << REVISION_BITS) + revision;
}

/**
 * Tokens from etcd revisions (etcd-token.ts): token = epoch × 2^44 + revision, for revisions from 1 (etcd's
 * first write) to 2^44 − 1, epochs up to 524,287, so that the largest token is 2^63 − 1, a signed 64-bit
 * integer's largest value.
 */
import { describe, expect, it } from 'vitest';
import { ETCD_EPOCH_MAX, etcdToken } from '../../src/fencing/etcd-token.js';
import { LeaseError } from '../../src/index.js';

const TWO_44 = 17_592_186_044_416n;

function refused(revision: bigint): LeaseError {
  let caught: unknown;
  try {
    etcdToken('job', 0, revision);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LeaseError);
  return caught as LeaseError;
}

describe('etcdToken', () => {
  it('puts the epoch above 44 bits of revision', () => {
    expect(etcdToken('job', 0, 1n)).toBe(1n);
    expect(etcdToken('job', 0, 12_345n)).toBe(12_345n);
    expect(etcdToken('job', 1, 2n)).toBe(TWO_44 + 2n);
    expect(etcdToken('job', 7, TWO_44 - 1n)).toBe(8n * TWO_44 - 1n);
  });

  it('the largest epoch and revision give 2^63 − 1', () => {
    expect(ETCD_EPOCH_MAX).toBe(524_287);
    expect(etcdToken('job', ETCD_EPOCH_MAX, TWO_44 - 1n)).toBe(2n ** 63n - 1n);
  });

  it('refuses revision 0 and a negative one, and one of 2^44 or more', () => {
    for (const revision of [0n, -1n, TWO_44, TWO_44 + 5n, 2n ** 60n]) {
      expect(refused(revision)).toMatchObject({ code: 'FDKIT_LEASE_TOKEN_RANGE', lease: 'job' });
    }
  });

  it('says which revision, the range, and what to do', () => {
    expect(refused(TWO_44).message).toBe(
      `lease job: etcd revision ${TWO_44} does not fit the 44 bits of a token below the epoch (1 to 2^44 - 1); ` +
        'compacting does not lower it: move to a new etcd cluster and raise the epoch',
    );
  });
});

/**
 * Reading the acquire script's reply, and the key names (redis-scripts.ts). The scripts themselves run
 * on a real Redis in redis-lease.system.test.ts; here, a reply Redis would never send is a protocol
 * error, not a grant, and a name's two keys share a hash tag, whatever braces it holds, unless it starts
 * with one that closes it.
 */
import { describe, expect, it } from 'vitest';
import { parseAcquireReply, redisKeys } from '../../src/fencing/redis-scripts.js';

/** Redis Cluster's hash tag of `key`: the part between the first `{` and the next `}`, when not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('parseAcquireReply', () => {
  it('reads a grant with its token, and a refusal with the holder`s remaining TTL', () => {
    expect(parseAcquireReply([1, '1700000000000001'])).toEqual({
      taken: true,
      token: 1_700_000_000_000_001n,
    });
    expect(parseAcquireReply([1, '9223372036854775807'])).toEqual({ taken: true, token: 2n ** 63n - 1n });
    expect(parseAcquireReply([0, 4321])).toEqual({ taken: false, pttlMs: 4321 });
    expect(parseAcquireReply([0, -1])).toEqual({ taken: false, pttlMs: -1 });
  });

  it.each([
    ['nothing', null],
    ['a bare token', '5'],
    ['a numeric token', [1, 5]],
    ['a token of 0', [1, '0']],
    ['a signed token', [1, '-5']],
    ['a token of 20 digits', [1, '12345678901234567890']],
    ['a refusal with a string TTL', [0, '10']],
    ['another flag', [2, '5']],
    ['a third element', [1, '5', 'x']],
  ])('refuses %s', (_what, reply) => {
    expect(() => parseAcquireReply(reply)).toThrow(/^unexpected reply to the acquire script: /);
  });
});

describe('redisKeys', () => {
  it('puts the name in a hash tag; the counter is the lock key plus :token', () => {
    expect(redisKeys('fdkit:lease:', 'billing')).toEqual({
      lock: 'fdkit:lease:{billing}',
      counter: 'fdkit:lease:{billing}:token',
    });
  });

  it.each(['billing', 'a}b', '{x}', 'a{'])('both keys of %j share one hash tag', (name) => {
    for (const prefix of ['fdkit:lease:', 'p{q}:', 'p{:']) {
      const { lock, counter } = redisKeys(prefix, name);
      expect(hashTag(counter)).toBe(hashTag(lock));
    }
  });

  it('except a name that starts with }: its tag is empty, and Redis Cluster hashes each whole key', () => {
    const { lock, counter } = redisKeys('fdkit:lease:', '}x');
    expect(hashTag(lock)).not.toBe(hashTag(counter));
  });
});

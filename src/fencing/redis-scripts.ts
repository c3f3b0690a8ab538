/**
 * The three Lua scripts of the Redis lease provider. Redis runs a script as one command: nothing else
 * runs between its calls, and a replica applies its effects as one transaction, so each check-and-act
 * below is atomic where a client's GET then SET would race another client.
 *
 * - **acquire**: `SET lock value NX PX ttl`, and only when that took the lock, an `INCR` of the name's
 *   token counter, whose new value is the grant's fencing token. The counter is first raised to the
 *   server's clock in microseconds (`TIME`) when it is below it, and then incremented: tokens still rise
 *   by one between grants within a microsecond, and a primary that a failover replaced with a replica
 *   that never saw the last grants still hands out a token above them, as long as its clock is not
 *   behind the old primary's by more than the failover took (docs/leases.md). Then the lock's value
 *   becomes `<owner>#<token>`, unique to this grant, for the two scripts below to compare with.
 * - **renew**: `PEXPIRE lock ttl` only while the lock's value is still this grant's (compare-and-extend).
 * - **release**: `DEL lock` only while its value is still this grant's (compare-and-delete): once a
 *   lock expired, the key may be the next holder's, and deleting it would let a third in.
 */

/** KEYS: lock, counter. ARGV: owner, TTL in ms. Returns `{1, token}` (a decimal string) or `{0, pttl}`. */
export const ACQUIRE_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
local now = redis.call('TIME')
local floor = now[1] .. string.format('%06d', tonumber(now[2]))
local last = redis.call('GET', KEYS[2])
if not last or tonumber(last) < tonumber(floor) then
  redis.call('SET', KEYS[2], floor)
end
redis.call('INCR', KEYS[2])
local token = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '#' .. token, 'KEEPTTL')
return {1, token}
`;

/** KEYS: lock. ARGV: this grant's value, TTL in ms. Returns 1 when extended, 0 when not the holder. */
export const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** KEYS: lock. ARGV: this grant's value. Returns 1 when deleted, 0 when not the holder. */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** What the acquire script answered: the lock taken with a token, or held by another for `pttlMs`. */
export type AcquireReply =
  | { readonly taken: true; readonly token: bigint }
  | { readonly taken: false; readonly pttlMs: number };

/** Reads the acquire script's reply; anything else is a protocol error, thrown as a plain `Error`. */
export function parseAcquireReply(reply: unknown): AcquireReply {
  if (Array.isArray(reply) && reply.length === 2) {
    const [taken, value] = reply as [unknown, unknown];
    if (taken === 1 && typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value)) {
      return { taken: true, token: BigInt(value) };
    }
    if (taken === 0 && typeof value === 'number') return { taken: false, pttlMs: value };
  }
  throw new Error(`unexpected reply to the acquire script: ${JSON.stringify(reply)}`);
}

/**
 * The lock key and token counter of lease `name`: one hash tag, so that both map to one cluster slot
 * (all but a name that starts with `}`, whose tag is empty; the provider talks to one server anyway).
 */
export function redisKeys(keyPrefix: string, name: string): { lock: string; counter: string } {
  const lock = `${keyPrefix}{${name}}`;
  return { lock, counter: `${lock}:token` };
}

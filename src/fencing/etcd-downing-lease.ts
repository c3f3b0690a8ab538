/**
 * Lease-majority's lease on etcd (docs/downing.md): one key whose value names the side that holds it.
 * Every member of a side asks for itself, naming its side, so the lease is held by a side, not by one
 * member: the key is created in a transaction only if absent (`createRevision == 0`), bound to an etcd
 * lease of `ttlMs`, so that etcd frees it once the TTL runs out and the next cut races anew; a member
 * whose side already holds it reads its side's name there and is granted it too. Nothing renews it: the
 * resolver needs it once per decision, and its members decide within seconds of one another.
 *
 * It never rejects, as the resolver's port asks: an etcd that does not answer within `timeoutMs`, or an
 * error, is no lease, and the side that cannot reach etcd downs itself.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import { type Etcd3Module, loadEtcd3 } from './etcd-client.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** Options of {@link createEtcdDowningLease}. */
export interface EtcdDowningLeaseOptions {
  /** etcd client URLs, such as `http://127.0.0.1:2379`; one string or several. */
  readonly hosts: string | readonly string[];
  /** The key both sides race for. Default `fdkit/downing`. */
  readonly key?: string;
  /**
   * How long the side that took it holds it, ms: long enough for all its members to ask, the minority
   * after its delay included. Rounded up to whole seconds, as etcd counts TTLs. Default 30,000.
   */
  readonly ttlMs?: number;
  /** How long an answer may take before it counts as no lease, ms. Default 2,000. */
  readonly timeoutMs?: number;
  /** Time for the timeout. Default the system clock. */
  readonly clock?: Clock;
}

/** Lease-majority's lease on etcd, with the client it holds. */
export interface EtcdDowningLease {
  /** Resolves true when the side `owner` names holds the key (taken now, or already); never rejects. */
  acquire(owner: string): Promise<boolean>;
  /** Closes the etcd client. */
  close(): Promise<void>;
}

const OWNER = 'createEtcdDowningLease';
const KNOWN = ['hosts', 'key', 'ttlMs', 'timeoutMs', 'clock'] as const;

function fail(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${OWNER}: option ${option} must be ${expected}, got ${describeReceived(value)}`,
  );
}

/**
 * The lease of `{ name: 'lease-majority', lease }` on etcd. Loads the optional peer dependency `etcd3`
 * (a `MissingDependencyError` says to install it); connects on the first request. Options are checked
 * first: a mistake is an `InvalidOptionError` naming the option and the value received.
 *
 * @example
 * ```ts
 * const lease = await createEtcdDowningLease({ hosts: 'http://10.0.0.9:2379' });
 * const resolver = new SplitBrainResolver(node, { strategy: { name: 'lease-majority', lease } });
 * ```
 */
export async function createEtcdDowningLease(options: EtcdDowningLeaseOptions): Promise<EtcdDowningLease> {
  if (typeof options !== 'object' || options === null) fail('options', 'an object', options);
  checkKnownKeys(OWNER, options, KNOWN);
  const list = typeof options.hosts === 'string' ? [options.hosts] : options.hosts;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((h) => typeof h === 'string' && /^https?:\/\/\S+$/.test(h))
  ) {
    fail('hosts', 'an etcd URL such as "http://127.0.0.1:2379", or a non-empty array of them', options.hosts);
  }
  const key = options.key ?? 'fdkit/downing';
  if (typeof key !== 'string' || key === '') fail('key', 'a non-empty string', key);
  const ttlMs = checkNumber(OWNER, 'ttlMs', options.ttlMs ?? 30_000, { min: 1_000, max: 86_400_000 });
  const timeoutMs = checkNumber(OWNER, 'timeoutMs', options.timeoutMs ?? 2_000, { min: 1, max: 600_000 });
  const clock = options.clock ?? systemClock;
  const etcd = await loadEtcd3(undefined, OWNER);
  const client = new etcd.Etcd3({ hosts: [...(list as readonly string[])] });
  return {
    acquire: (owner) => withTimeout(clock, timeoutMs, take(client, key, owner, Math.ceil(ttlMs / 1000))),
    close: async () => client.close(),
  };
}

/** Takes the key for `owner`'s side, or finds it held by that side already. */
async function take(client: Etcd3, key: string, owner: string, ttlSeconds: number): Promise<boolean> {
  const grant = await client.leaseClient.leaseGrant({ TTL: ttlSeconds });
  const result = await client
    .if(key, 'Create', '==', 0)
    .then(client.put(key).value(owner).lease(grant.ID))
    .else(client.get(key))
    .commit();
  if (result.succeeded) return true;
  // Another member took it first: this grant binds nothing.
  await client.leaseClient.leaseRevoke({ ID: grant.ID }).catch(() => undefined);
  const holder = result.responses[0]?.response_range?.kvs[0]?.value.toString();
  return holder === owner;
}

function withTimeout(clock: Clock, timeoutMs: number, asked: Promise<boolean>): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(timeoutMs, () => resolve(false));
    asked.then(
      (held) => {
        timer.cancel();
        resolve(held);
      },
      () => {
        timer.cancel();
        resolve(false);
      },
    );
  });
}

/**
 * Seed resolution: turns the seeds a member is told to join (`host:port`, or `srv:NAME` for DNS SRV
 * records) into the `ip:port` addresses to contact. A host name stands for all its A and AAAA records,
 * as memberlist resolves join addresses; an SRV name for each target at its port (RFC 2782 order:
 * priority ascending, then weight descending), each target resolved in turn. IP literals pass through.
 *
 * One seed that fails does not fail the others: a cluster of five seeds with one retired name still
 * joins. Only when no seed gives an address does resolution fail.
 */
import * as dns from 'node:dns/promises';
import { NetworkError } from '../errors.js';
import { formatAddress, isHostName, parseAddress } from './address.js';
import { systemErrorCode } from './bind-error.js';

/** An SRV record, as `dns.resolveSrv` returns it. */
export interface SrvRecord {
  /** The target host name, resolved in turn to its addresses. */
  readonly name: string;
  /** The port members listen on at the target. */
  readonly port: number;
  /** RFC 2782 priority: lower values are tried first. */
  readonly priority: number;
  /** RFC 2782 weight among targets of equal priority: higher values come first here. */
  readonly weight: number;
}

/**
 * The DNS queries seed resolution makes; `node:dns/promises` by default, a fake in tests. `resolve4` and
 * `resolve6` ask DNS servers; `lookup` asks the system (`/etc/hosts`, mDNS) and is the fallback for
 * names DNS does not know, such as `localhost`.
 */
export interface SeedResolver {
  /** The IPv4 addresses of `hostname`'s A records; rejects when DNS has none. */
  resolve4(hostname: string): Promise<string[]>;
  /** The IPv6 addresses of `hostname`'s AAAA records; rejects when DNS has none. */
  resolve6(hostname: string): Promise<string[]>;
  /** The SRV records of `name` (the part after `srv:`). */
  resolveSrv(name: string): Promise<SrvRecord[]>;
  /** Every address the system resolver gives for `hostname` (`getaddrinfo`: `/etc/hosts`, mDNS, DNS). */
  lookup(
    hostname: string,
    options: { all: true },
  ): Promise<
    {
      /** An IPv4 or IPv6 address. */
      address: string;
      /** 4 or 6. */
      family: number;
    }[]
  >;
}

/** The resolver of `node:dns/promises`. */
export const systemResolver: SeedResolver = {
  resolve4: (hostname) => dns.resolve4(hostname),
  resolve6: (hostname) => dns.resolve6(hostname),
  resolveSrv: (name) => dns.resolveSrv(name),
  lookup: (hostname, options) => dns.lookup(hostname, options),
};

/** A seed that gave no address, and why. */
export interface SeedFailure {
  /** The seed as given (`host:port` or `srv:NAME`). */
  readonly seed: string;
  /**
   * Why: `FDKIT_BAD_ADDRESS` for a seed that does not parse, `FDKIT_RESOLVE_FAILED` for a name that gave
   * no address.
   */
  readonly error: NetworkError;
}

/** The outcome of {@link resolveSeeds}. */
export interface ResolvedSeeds {
  /** Every address found, `ip:port`, without duplicates, in the order of the seeds. */
  readonly addresses: string[];
  /** The seeds that gave nothing (a bad seed string, a name that does not resolve). */
  readonly failures: SeedFailure[];
}

const SRV_PREFIX = 'srv:';

function reason(error: unknown): string {
  return systemErrorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/** Every IP address of `host`: DNS A and AAAA records, or the system's lookup when DNS has none. */
async function resolveHost(host: string, resolver: SeedResolver, seed: string): Promise<string[]> {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [
    ...(v4.status === 'fulfilled' ? v4.value : []),
    ...(v6.status === 'fulfilled' ? v6.value : []),
  ];
  if (found.length > 0) return found;
  try {
    const looked = await resolver.lookup(host, { all: true });
    if (looked.length > 0) return looked.map((entry) => entry.address);
  } catch (error) {
    const dnsReason = v4.status === 'rejected' ? `; DNS: ${reason(v4.reason)}` : '';
    throw new NetworkError(
      'FDKIT_RESOLVE_FAILED',
      seed,
      `seed ${seed}: ${host} has no address (${reason(error)}${dnsReason})`,
      { cause: error },
    );
  }
  throw new NetworkError('FDKIT_RESOLVE_FAILED', seed, `seed ${seed}: ${host} has no address`);
}

/** The addresses of one seed. */
async function resolveSeed(seed: string, resolver: SeedResolver): Promise<string[]> {
  if (typeof seed === 'string' && seed.startsWith(SRV_PREFIX)) {
    const name = seed.slice(SRV_PREFIX.length);
    if (!isHostName(name)) {
      throw new NetworkError(
        'FDKIT_BAD_ADDRESS',
        seed,
        `seed ${JSON.stringify(seed)}: after "srv:" comes a DNS name, e.g. srv:_fdkit._udp.example.com`,
      );
    }
    let records: SrvRecord[];
    try {
      records = await resolver.resolveSrv(name);
    } catch (error) {
      throw new NetworkError(
        'FDKIT_RESOLVE_FAILED',
        seed,
        `seed ${seed}: no SRV records (${reason(error)})`,
        {
          cause: error,
        },
      );
    }
    // RFC 2782: a target of "." means the service is decidedly not available at this name.
    const usable = records
      .filter((record) => record.name !== '.' && record.name !== '')
      .sort((a, b) => a.priority - b.priority || b.weight - a.weight);
    const results = await Promise.allSettled(
      usable.map(async (record) => {
        const target = parseAddress(`${bracket(record.name)}:${record.port}`, {
          label: `SRV target of ${seed}`,
        });
        const hosts = target.kind === 'name' ? await resolveHost(target.host, resolver, seed) : [target.host];
        return hosts.map((host) => formatAddress(host, target.port));
      }),
    );
    const addresses = results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    if (addresses.length > 0) return addresses;
    const firstError = results.find((result) => result.status === 'rejected');
    throw new NetworkError(
      'FDKIT_RESOLVE_FAILED',
      seed,
      `seed ${seed}: ${records.length} SRV records but no usable target address`,
      firstError === undefined ? undefined : { cause: firstError.reason },
    );
  }
  const { host, port, kind } = parseAddress(seed, { label: 'seed' });
  if (kind !== 'name') return [formatAddress(host, port)];
  const hosts = await resolveHost(host, resolver, seed);
  return hosts.map((ip) => formatAddress(ip, port));
}

/**
 * Checks the syntax of a seed without resolving it: `host:port` (`[v6]:port` for IPv6) or `srv:NAME`.
 * Throws a `NetworkError` `FDKIT_BAD_ADDRESS` that says what a seed looks like.
 */
export function checkSeed(seed: string): void {
  const srvName =
    typeof seed === 'string' && seed.startsWith(SRV_PREFIX) ? seed.slice(SRV_PREFIX.length) : undefined;
  if (srvName !== undefined && isHostName(srvName)) return;
  try {
    if (srvName === undefined) {
      parseAddress(seed, { label: 'seed' });
      return;
    }
  } catch (error) {
    throw new NetworkError(
      'FDKIT_BAD_ADDRESS',
      String(seed),
      `seed ${JSON.stringify(seed)} must be host:port ([v6]:port for IPv6) or srv:NAME`,
      { cause: error },
    );
  }
  throw new NetworkError(
    'FDKIT_BAD_ADDRESS',
    seed,
    `seed ${JSON.stringify(seed)}: after "srv:" comes a DNS name, e.g. srv:_fdkit._udp.example.com`,
  );
}

/** An SRV target may be an IPv6 literal (unusual but seen in fakes and hosts files). */
function bracket(name: string): string {
  const target = name.endsWith('.') ? name.slice(0, -1) : name;
  return target.includes(':') ? `[${target}]` : target;
}

/**
 * Resolves every seed, all at once. A seed is `host:port` (a host name gives one address per A and AAAA
 * record; an IP literal passes through) or `srv:NAME` (each SRV target at its port).
 *
 * Resolves with the addresses and the seeds that failed, as long as at least one address was found (or
 * no seed was given). Rejects with a `NetworkError` `FDKIT_RESOLVE_FAILED` when every seed failed; its
 * `cause` is an `AggregateError` of the failures, its message lists them.
 *
 * @example
 * ```ts
 * const { addresses, failures } = await resolveSeeds(['10.0.0.1:7946', 'seeds.example.com:7946']);
 * for (const f of failures) log.warn({ seed: f.seed, err: f.error }, 'seed not resolved');
 * ```
 */
export async function resolveSeeds(
  seeds: readonly string[],
  resolver: SeedResolver = systemResolver,
): Promise<ResolvedSeeds> {
  const results = await Promise.allSettled(seeds.map((seed) => resolveSeed(seed, resolver)));
  const addresses = new Set<string>();
  const failures: SeedFailure[] = [];
  results.forEach((result, index) => {
    const seed = String(seeds[index]);
    if (result.status === 'fulfilled') {
      for (const address of result.value) addresses.add(address);
    } else {
      const error =
        result.reason instanceof NetworkError
          ? result.reason
          : new NetworkError('FDKIT_RESOLVE_FAILED', seed, `seed ${seed}: ${reason(result.reason)}`, {
              cause: result.reason,
            });
      failures.push({ seed, error });
    }
  });
  if (seeds.length > 0 && addresses.size === 0) {
    throw new NetworkError(
      'FDKIT_RESOLVE_FAILED',
      undefined,
      `no seed resolved to an address: ${failures.map((f) => f.error.message).join('; ')}`,
      { cause: new AggregateError(failures.map((f) => f.error)) },
    );
  }
  return { addresses: [...addresses], failures };
}

import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import { resolveSeeds, type SeedResolver, type SrvRecord } from '../../src/transport/resolve.js';

/** A DNS error as node:dns reports it. */
function dnsError(code: string, hostname: string): Error {
  return Object.assign(new Error(`query ${code} ${hostname}`), { code, hostname });
}

interface Zone {
  a?: Record<string, string[]>;
  aaaa?: Record<string, string[]>;
  srv?: Record<string, SrvRecord[]>;
  hosts?: Record<string, string[]>;
}

/** A resolver over fixed records that also logs every query, so tests can check what was asked. */
function fakeResolver(zone: Zone): SeedResolver & { queries: string[] } {
  const queries: string[] = [];
  const answer = async <T>(
    kind: string,
    table: Record<string, T[]> | undefined,
    name: string,
  ): Promise<T[]> => {
    queries.push(`${kind} ${name}`);
    const found = table?.[name];
    if (found === undefined) throw dnsError('ENOTFOUND', name);
    return found;
  };
  return {
    queries,
    resolve4: (name) => answer('A', zone.a, name),
    resolve6: (name) => answer('AAAA', zone.aaaa, name),
    resolveSrv: (name) => answer('SRV', zone.srv, name),
    lookup: async (name) => {
      const found = await answer('lookup', zone.hosts, name);
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

const srv = (name: string, port: number, priority = 10, weight = 10): SrvRecord => ({
  name,
  port,
  priority,
  weight,
});

describe('resolveSeeds', () => {
  it('passes IP literals through, canonical, without asking DNS', async () => {
    const resolver = fakeResolver({});
    const result = await resolveSeeds(
      ['10.0.0.1:7946', '[2001:DB8::1]:7946', '[::ffff:10.0.0.2]:1'],
      resolver,
    );
    expect(result).toEqual({
      addresses: ['10.0.0.1:7946', '[2001:db8::1]:7946', '10.0.0.2:1'],
      failures: [],
    });
    expect(resolver.queries).toEqual([]);
  });

  it('expands a host name to every A and AAAA record at the seed port', async () => {
    const resolver = fakeResolver({
      a: { 'seeds.example.com': ['10.0.0.1', '10.0.0.2'] },
      aaaa: { 'seeds.example.com': ['2001:db8::1'] },
    });
    const { addresses } = await resolveSeeds(['Seeds.Example.com:7946'], resolver);
    expect(addresses).toEqual(['10.0.0.1:7946', '10.0.0.2:7946', '[2001:db8::1]:7946']);
    expect(resolver.queries.sort()).toEqual(['A seeds.example.com', 'AAAA seeds.example.com']);
  });

  it('uses a name with only AAAA records, and falls back to the system lookup when DNS has none', async () => {
    const resolver = fakeResolver({
      aaaa: { v6only: ['fd00::7'] },
      hosts: { localhost: ['127.0.0.1', '::1'] },
    });
    const { addresses, failures } = await resolveSeeds(['v6only:1', 'localhost:2'], resolver);
    expect(addresses).toEqual(['[fd00::7]:1', '127.0.0.1:2', '[::1]:2']);
    expect(failures).toEqual([]);
    expect(resolver.queries).not.toContain('lookup v6only');
  });

  it('expands srv:NAME to each target at its port, in priority then weight order', async () => {
    const resolver = fakeResolver({
      srv: {
        '_fdkit._udp.example.com': [
          srv('backup.example.com', 7000, 20, 100),
          srv('b.example.com', 7002, 10, 5),
          srv('a.example.com', 7001, 10, 50),
          srv('10.9.9.9', 7003, 30),
        ],
      },
      a: { 'a.example.com': ['10.0.0.1'], 'b.example.com': ['10.0.0.2'], 'backup.example.com': ['10.0.0.3'] },
      aaaa: { 'b.example.com': ['fd00::2'] },
    });
    const { addresses, failures } = await resolveSeeds(['srv:_fdkit._udp.example.com'], resolver);
    expect(addresses).toEqual([
      '10.0.0.1:7001',
      '10.0.0.2:7002',
      '[fd00::2]:7002',
      '10.0.0.3:7000',
      '10.9.9.9:7003',
    ]);
    expect(failures).toEqual([]);
  });

  it('skips SRV targets that do not resolve, and "." (service not offered)', async () => {
    const resolver = fakeResolver({
      srv: { svc: [srv('gone.example.com', 1), srv('.', 2), srv('ok.example.com', 3)] },
      a: { 'ok.example.com': ['10.0.0.5'] },
    });
    expect((await resolveSeeds(['srv:svc'], resolver)).addresses).toEqual(['10.0.0.5:3']);
  });

  it('fails a seed, not the call, when some seeds do not resolve; deduplicates addresses', async () => {
    const resolver = fakeResolver({ a: { good: ['10.0.0.1'] } });
    const { addresses, failures } = await resolveSeeds(
      ['good:7946', 'missing.example.com:7946', '10.0.0.1:7946', 'bad seed', 'srv:nothing'],
      resolver,
    );
    expect(addresses).toEqual(['10.0.0.1:7946']);
    expect(failures.map((f) => [f.seed, f.error.code])).toEqual([
      ['missing.example.com:7946', 'FDKIT_RESOLVE_FAILED'],
      ['bad seed', 'FDKIT_BAD_ADDRESS'],
      ['srv:nothing', 'FDKIT_RESOLVE_FAILED'],
    ]);
    expect(failures[0]?.error.message).toContain('ENOTFOUND');
    expect(failures.every((f) => f.error instanceof NetworkError)).toBe(true);
  });

  it('rejects with FDKIT_RESOLVE_FAILED listing every failure when no seed resolves', async () => {
    const resolver = fakeResolver({ srv: { empty: [] } });
    const error = await resolveSeeds(['a.invalid:1', 'srv:empty', 'srv:bad name', 'x:0'], resolver).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    const network = error as NetworkError;
    expect(network.code).toBe('FDKIT_RESOLVE_FAILED');
    for (const part of ['a.invalid', 'srv:empty', 'srv:bad name', '"x:0"'])
      expect(network.message).toContain(part);
    expect(network.cause).toBeInstanceOf(AggregateError);
    expect((network.cause as AggregateError).errors).toHaveLength(4);
  });

  it('resolves an empty seed list to nothing, without error', async () => {
    expect(await resolveSeeds([], fakeResolver({}))).toEqual({ addresses: [], failures: [] });
  });

  it('reports a resolver that throws something odd as FDKIT_RESOLVE_FAILED', async () => {
    const resolver = fakeResolver({});
    resolver.resolveSrv = async () => {
      throw 'boom';
    };
    const { failures } = await resolveSeeds(['srv:svc', '10.0.0.1:1'], resolver);
    expect(failures[0]?.error.code).toBe('FDKIT_RESOLVE_FAILED');
    expect(failures[0]?.error.message).toContain('boom');
  });
});

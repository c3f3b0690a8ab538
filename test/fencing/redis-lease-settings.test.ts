/**
 * createRedisLeaseProvider's options (redis-lease-settings.ts): each checked, with a typed error naming
 * the function, the option and the value, before ioredis is loaded or anything connects; the defaults
 * RedisLeaseProviderOptions promises; and loading the optional peer dependency ioredis
 * (redis-client.ts): a missing package is a MissingDependencyError that says what to install.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadIoredis } from '../../src/fencing/redis-client.js';
import { createRedisLeaseProvider } from '../../src/fencing/redis-lease-provider.js';
import {
  type RedisLeaseProviderOptions,
  redisLeaseSettings,
} from '../../src/fencing/redis-lease-settings.js';
import { InvalidOptionError, MissingDependencyError } from '../../src/index.js';
import { systemClock } from '../../src/runtime/system.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { recordingLogger } from './etcd-fake.js';

const URL = 'redis://127.0.0.1:6379';

function refused(options: unknown, option: string): InvalidOptionError {
  let caught: unknown;
  try {
    redisLeaseSettings(options as RedisLeaseProviderOptions);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidOptionError);
  expect(caught).toMatchObject({ option });
  return caught as InvalidOptionError;
}

describe('Redis lease provider options: url', () => {
  it('takes a redis:// or rediss:// URL', () => {
    expect(redisLeaseSettings({ url: URL }).url).toBe(URL);
    expect(redisLeaseSettings({ url: 'rediss://:pw@cache.internal:6380/2' }).url).toBe(
      'rediss://:pw@cache.internal:6380/2',
    );
  });

  it.each([
    ['an empty string', '', '"" (a string)'],
    ['no scheme', '127.0.0.1:6379', '"127.0.0.1:6379" (a string)'],
    ['another scheme', 'http://127.0.0.1:6379', '"http://127.0.0.1:6379" (a string)'],
    ['no host', 'redis://', '"redis://" (a string)'],
    ['a space', 'redis://127.0.0.1 :6379', '"redis://127.0.0.1 :6379" (a string)'],
    ['a number', 6379, '6379 (a number)'],
    ['nothing', undefined, 'undefined'],
  ])('refuses %s, naming the value', (_what, url, received) => {
    expect(refused({ url }, 'url')).toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      message: `createRedisLeaseProvider: option url must be a Redis URL such as "redis://127.0.0.1:6379", got ${received}`,
    });
  });

  it('masks a password in the value it names', () => {
    expect(refused({ url: 'redis://user:secret@host:6379 x' }, 'url').message).toMatch(
      /got "redis:\/\/\*\*\*@host:6379 x" \(a string\)$/,
    );
  });
});

describe('Redis lease provider options: keyPrefix, owner, clock, logger', () => {
  it('defaults: keyPrefix fdkit:lease:, owner <hostname>/<pid>, the system clock', () => {
    const settings = redisLeaseSettings({ url: URL });
    expect(settings.keyPrefix).toBe('fdkit:lease:');
    expect(settings.owner).toBe(`${hostname()}/${process.pid}`);
    expect(settings.clock).toBe(systemClock);
  });

  it('keeps what is given', () => {
    const clock = new VirtualClock();
    const settings = redisLeaseSettings({ url: URL, keyPrefix: 'x:', owner: 'me', clock });
    expect([settings.keyPrefix, settings.owner, settings.clock]).toEqual(['x:', 'me', clock]);
  });

  it.each(['keyPrefix', 'owner'])('%s must be a non-empty string', (option) => {
    expect(refused({ url: URL, [option]: '' }, option).message).toBe(
      `createRedisLeaseProvider: option ${option} must be a non-empty string, got "" (a string)`,
    );
    expect(refused({ url: URL, [option]: 7 }, option).message).toBe(
      `createRedisLeaseProvider: option ${option} must be a non-empty string, got 7 (a number)`,
    );
  });

  it('refuses an unknown option, a null and a logger without its methods', () => {
    expect(refused({ url: URL, hosts: URL }, 'hosts').code).toBe('FDKIT_UNKNOWN_OPTION');
    expect(refused({ url: URL, owner: null }, 'owner').code).toBe('FDKIT_INVALID_OPTION');
    refused({ url: URL, logger: { info: () => undefined } }, 'logger');
  });

  it("logs through the caller's logger, as a child with component: 'lease'", () => {
    const { log, lines, bindings } = recordingLogger();
    const settings = redisLeaseSettings({ url: URL, logger: log });
    expect(bindings).toEqual([{ component: 'lease' }]);
    settings.log.info({ a: 1 }, 'hello');
    expect(lines).toEqual([{ level: 'info', fields: { a: 1 }, message: 'hello' }]);
  });
});

describe('createRedisLeaseProvider', () => {
  it('checks the options before it loads ioredis or connects', async () => {
    await expect(createRedisLeaseProvider({ url: 'nope' })).rejects.toMatchObject({
      name: 'InvalidOptionError',
      option: 'url',
    });
  });

  it('makes a provider without connecting (lazily), and closes it', async () => {
    const leases = await createRedisLeaseProvider({ url: 'redis://127.0.0.1:1' });
    await expect(leases.close()).resolves.toBeUndefined();
    await expect(leases.acquire('job', { ttlMs: 1000 })).rejects.toMatchObject({ code: 'FDKIT_STOPPED' });
  });
});

const PEER_RANGE = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { peerDependencies: { ioredis: string } }
).peerDependencies.ioredis;

describe('loadIoredis', () => {
  it('imports the ioredis package', async () => {
    expect((await loadIoredis()).Redis).toBe(Redis);
  });

  it.each(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'])(
    'a package not found (%s) is FDKIT_MISSING_DEPENDENCY, with the install command for the peer range',
    async (code) => {
      const cause = Object.assign(new Error("Cannot find package 'ioredis'"), { code });
      const error = await loadIoredis(() => Promise.reject(cause)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MissingDependencyError);
      expect(error).toMatchObject({
        code: 'FDKIT_MISSING_DEPENDENCY',
        dependency: 'ioredis',
        message: `createRedisLeaseProvider needs the ioredis package, an optional peer dependency of fdkit: npm install ioredis@${PEER_RANGE}`,
        cause,
      });
      expect(PEER_RANGE).toBe('^6.0.0');
    },
  );

  it('any other failure of the import is thrown as it is', async () => {
    const thrown = new SyntaxError('bad module');
    await expect(loadIoredis(() => Promise.reject(thrown))).rejects.toBe(thrown);
  });
});

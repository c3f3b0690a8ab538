/**
 * createEtcdQueueElection's options (etcd-queue-election-settings.ts): each checked, with a typed error
 * naming the option and the value received, before etcd3 is loaded or anything connects; the defaults
 * the TSDoc of EtcdQueueElectionOptions promises; and campaign()'s own options.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createEtcdQueueElection } from '../../src/fencing/etcd-queue-election.js';
import {
  type EtcdQueueElectionOptions,
  etcdQueueElectionSettings,
} from '../../src/fencing/etcd-queue-election-settings.js';
import { InvalidOptionError } from '../../src/index.js';
import { systemClock } from '../../src/runtime/system.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { recordingLogger } from './etcd-fake.js';

const HOST = 'http://127.0.0.1:2379';
const BASE = { hosts: HOST, prefix: 'fdkit/election/jobs/', ttlMs: 5000 };
/** Enough of an etcd3 client to pass the check; nothing here sends a request. */
const CLIENT = { leaseClient: {}, kv: {}, watch: () => undefined };

function refused(options: unknown, option: string): InvalidOptionError {
  let caught: unknown;
  try {
    etcdQueueElectionSettings(options as EtcdQueueElectionOptions);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidOptionError);
  expect(caught).toMatchObject({ option });
  return caught as InvalidOptionError;
}

describe('etcd queue election options: hosts or client', () => {
  it('takes hosts (one URL or several) and leaves client undefined, or a client and leaves hosts undefined', () => {
    expect(etcdQueueElectionSettings(BASE)).toMatchObject({ hosts: [HOST], client: undefined });
    const { hosts: _, ...rest } = BASE;
    const settings = etcdQueueElectionSettings({ ...rest, client: CLIENT } as never);
    expect(settings.hosts).toBeUndefined();
    expect(settings.client).toBe(CLIENT);
  });

  it('refuses both, and neither', () => {
    expect(refused({ ...BASE, client: CLIENT }, 'client').message).toBe(
      'createEtcdQueueElection: give exactly one of the options hosts and client, got both',
    );
    const { hosts: _, ...rest } = BASE;
    expect(refused(rest, 'hosts').message).toBe(
      'createEtcdQueueElection: give exactly one of the options hosts and client, got neither',
    );
  });

  it.each([
    ['no URL', 'localhost:2379', '"localhost:2379" (a string)'],
    ['an empty array', [], 'an empty array'],
    ['a non-string among the URLs', [HOST, 2379], 'an array whose entry 1 is 2379 (a number)'],
  ])('refuses hosts that are %s, in the lease provider words, for this function', (_what, hosts, got) => {
    expect(refused({ ...BASE, hosts }, 'hosts')).toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      message: `createEtcdQueueElection: option hosts must be an etcd URL such as "http://127.0.0.1:2379", or a non-empty array of them, got ${got}`,
    });
  });

  it.each([
    ['a string', HOST, `"${HOST}" (a string)`],
    ['an object without watch()', { leaseClient: {}, kv: {} }, 'an object'],
    ['an object without kv', { leaseClient: {}, watch: () => undefined }, 'an object'],
  ])('refuses a client that is %s', (_what, client, got) => {
    const { hosts: _, ...rest } = BASE;
    expect(refused({ ...rest, client }, 'client').message).toBe(
      `createEtcdQueueElection: option client must be an Etcd3 client from the etcd3 package, got ${got}`,
    );
  });
});

describe('etcd queue election options: prefix', () => {
  it('keeps a prefix that ends in "/"', () => {
    expect(etcdQueueElectionSettings({ ...BASE, prefix: 'a/' }).prefix).toBe('a/');
  });

  it.each([
    ['without the trailing slash', 'fdkit/election/jobs', '"fdkit/election/jobs" (a string)'],
    ['only a slash', '/', '"/" (a string)'],
    ['empty', '', '"" (a string)'],
    ['a number', 7, '7 (a number)'],
    ['left out', undefined, 'undefined'],
  ])('refuses a prefix %s', (_what, prefix, got) => {
    expect(refused({ ...BASE, prefix }, 'prefix').message).toBe(
      'createEtcdQueueElection: option prefix must be a key prefix ending in "/" such as "fdkit/election/billing/", ' +
        `of 2 to 512 bytes, got ${got}`,
    );
  });

  it('refuses a prefix over 512 bytes, counted in UTF-8', () => {
    const fits = `${'€'.repeat(170)}a/`; // 510 + 2 bytes
    expect(etcdQueueElectionSettings({ ...BASE, prefix: fits }).prefix).toBe(fits);
    refused({ ...BASE, prefix: `${'€'.repeat(170)}ab/` }, 'prefix');
  });
});

describe('etcd queue election options: timings, name, epoch, clock, logger', () => {
  it('defaults: name <hostname>/<pid>, epoch 0, the system clock, timings left to the granted TTL', () => {
    const settings = etcdQueueElectionSettings(BASE);
    expect(settings.name).toBe(`${hostname()}/${process.pid}`);
    expect(settings.epoch).toBe(0);
    expect(settings.clock).toBe(systemClock);
    expect(settings.timings).toEqual({
      ttlMs: 5000,
      safetyMarginMs: undefined,
      renewDeadlineMs: undefined,
      retryPeriodMs: undefined,
    });
  });

  it('keeps what is given', () => {
    const clock = new VirtualClock();
    const settings = etcdQueueElectionSettings({
      ...BASE,
      name: 'worker-7',
      epoch: 524_287,
      clock,
      renewDeadlineMs: 3000,
      retryPeriodMs: 1000,
      safetyMarginMs: 100,
    });
    expect([settings.name, settings.epoch, settings.clock]).toEqual(['worker-7', 524_287, clock]);
    expect(settings.timings).toEqual({
      ttlMs: 5000,
      safetyMarginMs: 100,
      renewDeadlineMs: 3000,
      retryPeriodMs: 1000,
    });
  });

  it('checks the timings as acquire does: ttlMs required, renewDeadlineMs below the TTL less the margin', () => {
    const { ttlMs: _, ...noTtl } = BASE;
    expect(refused(noTtl, 'ttlMs').message).toBe(
      'createEtcdQueueElection: option ttlMs must be an integer >= 1 and <= 86400000, got undefined',
    );
    expect(refused({ ...BASE, renewDeadlineMs: 5000 }, 'renewDeadlineMs').message).toMatch(
      /^createEtcdQueueElection: option renewDeadlineMs must be less than ttlMs - safetyMarginMs \(4948\), got 5000$/,
    );
    refused({ ...BASE, retryPeriodMs: 4000, renewDeadlineMs: 3000 }, 'retryPeriodMs');
    refused({ ...BASE, safetyMarginMs: 3000 }, 'safetyMarginMs');
  });

  it('name must be a non-empty string', () => {
    for (const [name, got] of [
      ['', '"" (a string)'],
      [7, '7 (a number)'],
    ] as const) {
      expect(refused({ ...BASE, name }, 'name').message).toBe(
        `createEtcdQueueElection: option name must be a non-empty string, got ${got}`,
      );
    }
  });

  it('epoch is an integer from 0 to 524,287', () => {
    for (const epoch of [-1, 1.5, 524_288]) {
      expect(refused({ ...BASE, epoch }, 'epoch').message).toMatch(/^createEtcdQueueElection: option epoch /);
    }
  });

  it('refuses an unknown option, a null one, and a logger without its methods', () => {
    expect(refused({ ...BASE, ttlSeconds: 5 }, 'ttlSeconds').code).toBe('FDKIT_UNKNOWN_OPTION');
    expect(refused({ ...BASE, name: null }, 'name').message).toMatch(/must not be null/);
    refused({ ...BASE, logger: { info: () => undefined } }, 'logger');
  });

  it("logs through the caller's logger, as a child with component: 'election'", () => {
    const { log, lines, bindings } = recordingLogger();
    const settings = etcdQueueElectionSettings({ ...BASE, logger: log });
    expect(bindings).toEqual([{ component: 'election' }]);
    settings.log.info({ a: 1 }, 'hello');
    expect(lines).toEqual([{ level: 'info', fields: { a: 1 }, message: 'hello' }]);
  });
});

describe('createEtcdQueueElection and campaign()', () => {
  it('checks the options before it loads etcd3 or connects', async () => {
    await expect(createEtcdQueueElection({ ...BASE, prefix: 'no-slash' })).rejects.toMatchObject({
      option: 'prefix',
    });
  });

  it('campaign() refuses an unknown option before it sends anything', async () => {
    const { hosts: _, ...rest } = BASE;
    const election = await createEtcdQueueElection({ ...rest, client: CLIENT } as never);
    await expect(election.campaign({ signal: undefined, ttlMs: 1 } as never)).rejects.toMatchObject({
      code: 'FDKIT_UNKNOWN_OPTION',
      option: 'ttlMs',
    });
    expect(election.stats()).toEqual({ watchEvents: 0, transactions: 0, ranges: 0, wakeUps: 0 });
    expect([election.lease, election.leading]).toEqual([undefined, false]);
    await election.close(); // the caller's client: not closed (this one has no close() to call)
  });
});

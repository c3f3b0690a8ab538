/**
 * createEtcdLeaseProvider's options (etcd-lease-settings.ts): each checked, with a typed error naming the
 * option, before etcd3 is loaded or anything connects; and the defaults the TSDoc of
 * EtcdLeaseProviderOptions promises. The one step after the checks, connecting to the hosts given, is
 * seen on a loopback listener that stands in for etcd.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createEtcdLeaseProvider } from '../../src/fencing/etcd-lease-provider.js';
import { type EtcdLeaseProviderOptions, etcdLeaseSettings } from '../../src/fencing/etcd-lease-settings.js';
import { InvalidOptionError } from '../../src/index.js';
import { systemClock } from '../../src/runtime/system.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { recordingLogger } from './etcd-fake.js';

const HOST = 'http://127.0.0.1:2379';
const HOSTS_MESSAGE =
  'createEtcdLeaseProvider: option hosts must be an etcd URL such as "http://127.0.0.1:2379", or a non-empty array of them';

function refused(options: unknown, option: string): InvalidOptionError {
  let caught: unknown;
  try {
    etcdLeaseSettings(options as EtcdLeaseProviderOptions);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidOptionError);
  expect(caught).toMatchObject({ option });
  return caught as InvalidOptionError;
}

describe('etcd lease provider options: hosts', () => {
  it('takes one URL or an array of http or https URLs', () => {
    expect(etcdLeaseSettings({ hosts: HOST }).hosts).toEqual([HOST]);
    const several = ['http://10.0.0.1:2379', 'https://etcd-2.internal:2379'];
    expect(etcdLeaseSettings({ hosts: several }).hosts).toEqual(several);
  });

  it.each([
    ['an empty string', '', '"" (a string)'],
    ['an empty array', [], 'an empty array'],
    ['no URL', 'localhost:2379', '"localhost:2379" (a string)'],
    ['another scheme', 'ftp://127.0.0.1:2379', '"ftp://127.0.0.1:2379" (a string)'],
    ['no host', 'http://', '"http://" (a string)'],
    ['text before the scheme', 'xhttp://127.0.0.1:2379', '"xhttp://127.0.0.1:2379" (a string)'],
    ['a space after the host', 'http://127.0.0.1:2379 x', '"http://127.0.0.1:2379 x" (a string)'],
    ['a space in the host', 'http:// 127.0.0.1', '"http:// 127.0.0.1" (a string)'],
    ['one bad URL among good ones', [HOST, 'nope'], 'an array whose entry 1 is "nope" (a string)'],
    ['a non-string among the URLs', [HOST, 2379], 'an array whose entry 1 is 2379 (a number)'],
    ['a String object', [new String(HOST)], 'an array whose entry 0 is an object'],
    ['neither a string nor an array', { url: HOST }, 'an object'],
    ['nothing', undefined, 'undefined'],
  ])('refuses %s, and names what it got', (_what, hosts, received) => {
    expect(refused({ hosts }, 'hosts')).toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      message: `${HOSTS_MESSAGE}, got ${received}`,
    });
  });
});

describe('etcd lease provider options: keyPrefix, owner, epoch, clock, logger', () => {
  it('defaults: keyPrefix fdkit/lease/, owner <hostname>/<pid>, epoch 0, the system clock', () => {
    const settings = etcdLeaseSettings({ hosts: HOST });
    expect(settings.keyPrefix).toBe('fdkit/lease/');
    expect(settings.owner).toBe(`${hostname()}/${process.pid}`);
    expect(settings.epoch).toBe(0);
    expect(settings.clock).toBe(systemClock);
  });

  it('keeps what is given', () => {
    const clock = new VirtualClock();
    const settings = etcdLeaseSettings({ hosts: HOST, keyPrefix: 'x/', owner: 'me', epoch: 524_287, clock });
    expect([settings.keyPrefix, settings.owner, settings.epoch, settings.clock]).toEqual([
      'x/',
      'me',
      524_287,
      clock,
    ]);
  });

  it.each(['keyPrefix', 'owner'])('%s must be a non-empty string', (option) => {
    for (const [value, received] of [
      ['', '"" (a string)'],
      [7, '7 (a number)'],
    ] as const) {
      expect(refused({ hosts: HOST, [option]: value }, option)).toMatchObject({
        code: 'FDKIT_INVALID_OPTION',
        message: `createEtcdLeaseProvider: option ${option} must be a non-empty string, got ${received}`,
      });
    }
  });

  it('epoch is an integer from 0 to 524,287', () => {
    for (const epoch of [-1, 1.5, 524_288]) {
      expect(refused({ hosts: HOST, epoch }, 'epoch').message).toMatch(
        /^createEtcdLeaseProvider: option epoch /,
      );
    }
    expect(etcdLeaseSettings({ hosts: HOST, epoch: 1 }).epoch).toBe(1);
  });

  it('refuses an unknown option and a logger without its methods', () => {
    expect(refused({ hosts: HOST, host: HOST }, 'host').code).toBe('FDKIT_UNKNOWN_OPTION');
    refused({ hosts: HOST, logger: { info: () => undefined } }, 'logger');
  });

  it("logs through the caller's logger, as a child with component: 'lease'", () => {
    const { log, lines, bindings } = recordingLogger();
    const settings = etcdLeaseSettings({ hosts: HOST, logger: log });
    expect(bindings).toEqual([{ component: 'lease' }]);
    settings.log.info({ a: 1 }, 'hello');
    expect(lines).toEqual([{ level: 'info', fields: { a: 1 }, message: 'hello' }]);
  });

  it('without a logger, logs nowhere (and does not fail)', () => {
    const { log } = etcdLeaseSettings({ hosts: HOST });
    expect(() => log.warn({}, 'dropped')).not.toThrow();
  });
});

describe('createEtcdLeaseProvider', () => {
  it('checks the options before it loads etcd3 or connects', async () => {
    await expect(createEtcdLeaseProvider({ hosts: 'nope' })).rejects.toMatchObject({ option: 'hosts' });
  });

  it('connects to the hosts given, on the first request', async () => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const leases = await createEtcdLeaseProvider({ hosts: `http://127.0.0.1:${address.port}` });
      const connected = once(server, 'connection');
      const controller = new AbortController();
      const acquiring = leases.acquire('job', { ttlMs: 5000, signal: controller.signal });
      acquiring.catch(() => undefined);
      await connected;
      controller.abort(new Error('seen'));
      await expect(acquiring).rejects.toMatchObject({ message: 'seen' });
      await leases.close();
    } finally {
      server.close();
    }
  });
});

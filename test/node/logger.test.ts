/**
 * The `logger` option of the public functions: `console`, a plain object without `child` and a pino
 * logger all work for `createNode` on the in-memory network, each line saying which component wrote it;
 * a logger that is not one is refused at construction by `createNode`, `createHeartbeatMonitor`,
 * `createEtcdLeaseProvider` and the transports, with a typed error that names the function, the option
 * and what it got.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createEtcdLeaseProvider } from '../../src/fencing/etcd-lease-provider.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { createNode } from '../../src/node/node.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { MemoryCluster, rejection, run, thrown } from '../support/node-harness.js';

const clusters: MemoryCluster[] = [];

afterEach(async () => {
  for (const cluster of clusters.splice(0)) await cluster.close();
  vi.restoreAllMocks();
});

function newCluster(seed: number): MemoryCluster {
  const cluster = new MemoryCluster(seed);
  clusters.push(cluster);
  return cluster;
}

/** console's four methods replaced by spies that print nothing. */
function spyOnConsole() {
  return {
    debug: vi.spyOn(console, 'debug').mockImplementation(() => {}),
    info: vi.spyOn(console, 'info').mockImplementation(() => {}),
    warn: vi.spyOn(console, 'warn').mockImplementation(() => {}),
    error: vi.spyOn(console, 'error').mockImplementation(() => {}),
  };
}

/**
 * Makes member `n1` log a node line and a transport line: a datagram that is not MessagePack (the node
 * drops it, `malformed`), then a second stream connection beyond `maxInboundStreams: 1` (the transport
 * refuses it, `connection-limit`).
 */
async function provoke(c: MemoryCluster, target: string): Promise<void> {
  const raw = await c.network.createTransport({ bind: '10.0.0.66:7946', clock: c.clock });
  raw.sendDatagram(target, Uint8Array.of(0xc1));
  await run(c.clock, 0);
  await raw.close();
  await c.network.connectRaw(target, '10.0.0.67');
  const refused = await c.network.connectRaw(target, '10.0.0.68');
  expect(await refused.outcome).toBe('reset');
}

describe('logger: console', () => {
  it('createNode logs through console, each line with its component in the fields', async () => {
    // Catches the bug of issue 15 (`.child` called on a logger without one: a TypeError at createNode),
    // a component logger that drops its bindings (lines without `component`), and a transport logger
    // derived from the node's that keeps `node` as its component.
    const spies = spyOnConsole();
    const c = newCluster(1);
    const member = await c.start(1, { logger: console, maxInboundStreams: 1 });
    await provoke(c, member.address);
    expect(spies.info).toHaveBeenCalledWith(
      expect.objectContaining({ component: 'node', name: 'n1', address: '10.0.0.1:7946' }),
      'started',
    );
    expect(spies.debug).toHaveBeenCalledWith(
      expect.objectContaining({ component: 'node', from: '10.0.0.66:7946', reason: 'malformed' }),
      'dropped datagram',
    );
    expect(spies.debug).toHaveBeenCalledWith(
      expect.objectContaining({
        component: 'transport',
        fromAddress: '10.0.0.68:49152',
        reason: 'connection-limit',
      }),
      'inbound bytes dropped',
    );
    // Nothing here is worth more than debug and info.
    expect(spies.warn).not.toHaveBeenCalled();
    expect(spies.error).not.toHaveBeenCalled();
  });
});

describe('a logger of your own', () => {
  it('a plain object without child gets the bindings merged into each line', async () => {
    // Catches a host that calls the logger's methods without the bindings, or that needs a `child`.
    const lines: [string, object, string][] = [];
    const logger = {
      debug: (fields: object, message: string) => lines.push(['debug', fields, message]),
      info: (fields: object, message: string) => lines.push(['info', fields, message]),
      warn: (fields: object, message: string) => lines.push(['warn', fields, message]),
      error: (fields: object, message: string) => lines.push(['error', fields, message]),
    };
    const c = newCluster(2);
    const member = await c.start(1, { logger, maxInboundStreams: 1 });
    await provoke(c, member.address);
    expect(lines).toContainEqual([
      'info',
      expect.objectContaining({ component: 'node', name: 'n1' }),
      'started',
    ]);
    expect(lines).toContainEqual([
      'debug',
      expect.objectContaining({ component: 'node', reason: 'malformed' }),
      'dropped datagram',
    ]);
    expect(lines).toContainEqual([
      'debug',
      expect.objectContaining({ component: 'transport', reason: 'connection-limit' }),
      'inbound bytes dropped',
    ]);
  });

  it("a pino logger has its own child called with the component, and writes the node's lines", async () => {
    // Catches a host that wraps every logger instead of using `child` when there is one (pino's child
    // keeps its serializers and level; a wrapper would not be what pino users expect).
    const written: string[] = [];
    const logger = pino(
      { level: 'debug', base: null, timestamp: false },
      { write: (s: string) => written.push(s) },
    );
    const child = vi.spyOn(logger, 'child');
    const c = newCluster(3);
    await c.start(1, { logger });
    expect(child).toHaveBeenCalledWith({ component: 'node' });
    const started = written.map((line) => JSON.parse(line)).find((line) => line.msg === 'started');
    expect(started).toMatchObject({ level: 30, component: 'node', name: 'n1', address: '10.0.0.1:7946' });
  });
});

describe('a logger that is not one', () => {
  const logs = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: () => {},
  };
  const { warn: _, ...withoutWarn } = logs;
  const EXPECTED = 'an object with the methods debug, info, warn and error (a pino logger, or console)';

  it.each([
    { what: 'a string', logger: 'console', got: 'got "console" (a string)' },
    { what: 'a number', logger: 1, got: 'got 1 (a number)' },
    { what: 'an object without warn', logger: withoutWarn, got: 'got an object whose warn is undefined' },
    {
      what: 'a warn that is text',
      logger: { ...logs, warn: 'loud' },
      got: 'got an object whose warn is "loud" (a string)',
    },
  ])(
    'createNode refuses $what with FDKIT_INVALID_OPTION, naming itself, the option and the value',
    ({ logger, got }) => {
      // Catches a missing check (the first line logged would throw a TypeError, long after the options
      // were given), and a message that does not say what was received.
      const error = thrown(() =>
        createNode({ bind: '10.0.0.1:7946', logger: logger as unknown as typeof console }),
      );
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'logger' });
      expect((error as Error).message).toBe(`createNode: option logger must be ${EXPECTED}, ${got}`);
    },
  );

  it('createNode refuses a child that is not a function', () => {
    // Catches a check that trusts any `child`: the host would call it and throw a TypeError at start.
    const error = thrown(() => createNode({ logger: { ...logs, child: true } as unknown as typeof console }));
    expect((error as Error).message).toBe(
      `createNode: option logger must be ${EXPECTED}, its child a method if present, got an object whose child is true (a boolean)`,
    );
  });

  it('createHeartbeatMonitor refuses a string, naming itself', () => {
    // Catches the monitor's options left unchecked (they are resolved apart from the node's).
    const error = thrown(() => createHeartbeatMonitor({ logger: 'pino' as unknown as typeof console }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'logger' });
    expect((error as Error).message).toBe(
      `createHeartbeatMonitor: option logger must be ${EXPECTED}, got "pino" (a string)`,
    );
  });

  it('createEtcdLeaseProvider refuses an object without warn before it loads etcd3 or connects', async () => {
    // Catches the lease provider left unchecked: etcd3 need not be installed nor etcd running for this
    // rejection, which comes before either is touched.
    const error = await rejection(
      createEtcdLeaseProvider({
        hosts: 'http://127.0.0.1:1',
        logger: withoutWarn as unknown as typeof console,
      }),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'logger' });
    expect((error as Error).message).toBe(
      `createEtcdLeaseProvider: option logger must be ${EXPECTED}, got an object whose warn is undefined`,
    );
  });

  it('a transport asks only for debug and warn, and refuses a logger without warn', async () => {
    // Catches a transport that demands the four levels it does not use, or that checks nothing.
    const network = new MemoryNetwork();
    const transport = await network.createTransport({
      bind: '10.0.0.1:1',
      logger: { debug: () => {}, warn: () => {} },
    });
    await transport.close();
    const error = await rejection(
      network.createTransport({
        bind: '10.0.0.2:1',
        logger: { debug: () => {} } as unknown as typeof console,
      }),
    );
    expect((error as Error).message).toBe(
      'MemoryNetwork.createTransport: option logger must be an object with the methods debug and warn (a pino logger, or console), got an object whose warn is undefined',
    );
  });
});

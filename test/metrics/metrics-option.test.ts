/**
 * The `metrics` option of `createNode` and `createHeartbeatMonitor`: checked by the factory, acted on by
 * `start()` (the metrics registered before anything binds, and taken back out when the start fails) and
 * undone by `shutdown()`. In-memory transports; the registry is scraped as Prometheus reads it.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, LifecycleError } from '../../src/errors.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { TransportFactory } from '../../src/node/node-options.js';
import { LeaderHint } from '../../src/omega/leader-hint.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { rejection, thrown } from '../support/node-harness.js';
import { scrape } from './prometheus-text.js';

const network = new MemoryNetwork();
const started: { shutdown(): Promise<void> }[] = [];
let port = 7000;

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.shutdown()));
});

/** A transport factory on the network that counts its calls: a call is a bind. */
function counted(): { transport: TransportFactory; binds: () => number } {
  let calls = 0;
  return {
    transport: (o) => {
      calls++;
      return network.createTransport(o);
    },
    binds: () => calls,
  };
}

function node(registry: Registry, transport: TransportFactory = (o) => network.createTransport(o)): SwimNode {
  const n = createNode({ name: `n${port}`, bind: `10.1.0.1:${port++}`, transport, metrics: { registry } });
  started.push(n);
  return n;
}

const names = (registry: Registry): string[] =>
  registry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name);

describe('the metrics option of createNode', () => {
  it('start() registers the metrics before binding; shutdown() unregisters them and stops listening', async () => {
    const registry = new Registry();
    const { transport, binds } = counted();
    const n = node(registry, transport);
    expect(names(registry)).toEqual([]);
    expect(n.listenerCount('alive')).toBe(0);
    await n.start();
    expect(binds()).toBe(1);
    const s = await scrape(registry);
    expect(s.value('fdkit_members', { state: 'alive' })).toBe(1);
    expect(s.types.get('fdkit_probe_rtt_seconds')).toBe('histogram');
    expect(s.value('fdkit_refutations_seen_total')).toBe(0);
    expect(names(registry)).toContain('fdkit_push_pull_duration_seconds');
    expect([n.listenerCount('alive'), n.listenerCount('rtt'), n.listenerCount('push-pull')]).toEqual([
      1, 1, 1,
    ]);
    await n.shutdown();
    expect(names(registry)).toEqual([]);
    expect([n.listenerCount('alive'), n.listenerCount('rtt'), n.listenerCount('push-pull')]).toEqual([
      0, 0, 0,
    ]);
  });

  it('a registry holding the names already rejects start() with nothing bound, and leaves the node startable', async () => {
    const registry = new Registry();
    const first = node(registry);
    await first.start();
    const { transport, binds } = counted();
    const second = node(registry, transport);
    const error = await rejection(second.start());
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'metrics.registry' });
    expect((error as Error).message).toMatch(
      /^createNode: option metrics\.registry already holds a metric named fdkit_members/,
    );
    expect(binds()).toBe(0);
    // The first node's metrics are untouched, and still read the first node.
    expect((await scrape(registry)).value('fdkit_members', { state: 'alive' })).toBe(1);
    await first.shutdown();
    await second.start();
    expect(binds()).toBe(1);
    expect(names(registry)).toContain('fdkit_members');
  });

  it('a start that fails to bind takes its metrics back out; a start before shutdown() resolves too', async () => {
    const registry = new Registry();
    const failing = node(registry, () => Promise.reject(new Error('no socket for you')));
    expect(await rejection(failing.start())).toMatchObject({ message: 'no socket for you' });
    expect(names(registry)).toEqual([]);

    const stopped = node(registry);
    const starting = stopped.start();
    const shutdown = stopped.shutdown();
    const error = await rejection(starting);
    await shutdown;
    expect(error).toBeInstanceOf(LifecycleError);
    expect(names(registry)).toEqual([]);
  });

  it('a second start() registers nothing twice: it rejects as a second start does', async () => {
    const registry = new Registry();
    const n = node(registry);
    const [a, b] = await Promise.allSettled([n.start(), n.start()]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: { code: 'FDKIT_ALREADY_STARTED' } });
    expect(await rejection(n.start())).toMatchObject({ code: 'FDKIT_ALREADY_STARTED' });
    expect(names(registry).filter((x) => x === 'fdkit_members')).toHaveLength(1);
    expect(n.listenerCount('alive')).toBe(1);
  });
});

describe('the metrics option of createHeartbeatMonitor', () => {
  it('start() registers the monitor metrics, shutdown() unregisters them', async () => {
    const registry = new Registry();
    const monitor = createHeartbeatMonitor({
      bind: `10.1.0.2:${port++}`,
      transport: (o) => network.createTransport(o),
      metrics: { registry, prefix: 'hb_' },
    });
    started.push(monitor);
    await monitor.start();
    const s = await scrape(registry);
    expect(s.value('hb_heartbeats_sent_total')).toBe(0);
    // A monitor measures no round trip: its heartbeats go one way.
    expect(names(registry)).not.toContain('hb_probe_rtt_seconds');
    await monitor.shutdown();
    expect(names(registry)).toEqual([]);
  });
});

describe('checked by the factory', () => {
  const factories = [
    ['createNode', (metrics: unknown) => createNode({ metrics } as never)],
    ['createHeartbeatMonitor', (metrics: unknown) => createHeartbeatMonitor({ metrics } as never)],
  ] as const;

  it.each(factories)('%s: a bad metrics option throws an InvalidOptionError naming it', (factory, make) => {
    const cases: [unknown, string, string, string][] = [
      ['yes', 'FDKIT_INVALID_OPTION', 'metrics', 'option metrics must be an object, got "yes" (a string)'],
      [
        { prefix: '9x' },
        'FDKIT_INVALID_OPTION',
        'metrics.prefix',
        'option metrics.prefix must be letters, digits, _ and : not starting with a digit, got "9x" (a string)',
      ],
      [
        { perMemberLabels: -1 },
        'FDKIT_INVALID_OPTION',
        'metrics.perMemberLabels',
        'option metrics.perMemberLabels must be an integer >= 0, got -1 (a number)',
      ],
      [
        { detectionBuckets: [2, 1] },
        'FDKIT_INVALID_OPTION',
        'metrics.detectionBuckets[1]',
        'option metrics.detectionBuckets[1] must be a finite number > 2, got 1 (a number)',
      ],
      [
        { registry: {} },
        'FDKIT_INVALID_OPTION',
        'metrics.registry',
        'option metrics.registry must be a prom-client',
      ],
      [
        { registery: new Registry() },
        'FDKIT_UNKNOWN_OPTION',
        'metrics.registery',
        'unknown option metrics.registery',
      ],
    ];
    for (const [value, code, option, message] of cases) {
      const error = thrown(() => make(value));
      expect(error, option).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ code, option });
      expect((error as Error).message).toContain(`${factory}: ${message}`);
    }
  });

  it('leader is not an option of the factories: the hint is made over the node, after it', () => {
    const source = createNode({ bind: '10.1.0.9:7946', transport: (o) => network.createTransport(o) });
    const leader = new LeaderHint(source, { self: { name: 'x' } });
    const error = thrown(() => createNode({ metrics: { leader } as never }));
    expect(error).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'metrics.leader' });
    leader.stop();
  });
});

/**
 * `fdkitMetrics` on real nodes over UDP and TCP on 127.0.0.1 (ephemeral ports, the system clock): the
 * issue's acceptance in miniature. Three nodes form a cluster, one is shut down without leaving (a
 * kill: its port then refuses connections), and a scrape of the survivor shows it dead and the death
 * counted. Waits poll with a deadline; the deadlines bound the test, they do not assert speed.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type FdkitMetrics, fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { holds, poll } from '../support/node-harness.js';
import { scrape } from './prometheus-text.js';

const FAST: Partial<SwimConfig> = Object.freeze({
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  gossipIntervalMs: 50,
  suspicionMult: 2,
  suspicionMaxTimeoutMult: 3,
  pushPullIntervalMs: 60_000,
  reconnectIntervalMs: 1000,
});

const nodes: SwimNode[] = [];
const handles: FdkitMetrics[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) handle.close();
  await Promise.all(nodes.splice(0).map((node) => node.shutdown()));
});

async function started(name: string): Promise<SwimNode> {
  const node = createNode({ name, bind: '127.0.0.1:0', config: FAST, localHealth: false });
  nodes.push(node);
  await node.start();
  return node;
}

describe('metrics over UDP and TCP', () => {
  it('three real nodes, one killed: the survivor scrape shows it dead, one death, and traffic both ways', async () => {
    const [a, b, c] = [await started('a'), await started('b'), await started('c')];
    const registry = new Registry();
    handles.push(await fdkitMetrics(a, { registry }));
    await b.join([a.localAddress]);
    await c.join([a.localAddress]);
    await poll(() => [a, b, c].every((n) => holds(n, ['a', 'b', 'c'], 'alive')), 'three alive', 10_000);
    const before = await scrape(registry);
    expect(before.value('fdkit_members', { state: 'alive' })).toBe(3);
    expect(before.value('fdkit_members', { state: 'dead' })).toBe(0);
    expect(before.value('fdkit_transitions_total', { state: 'alive', cause: 'joined' })).toBe(2);
    // The joins were push-pulls over TCP, answered by a: two replies at least.
    expect(before.value('fdkit_push_pulls_total')).toBeGreaterThanOrEqual(2);
    expect(before.value('fdkit_messages_received_total', { transport: 'tcp' })).toBeGreaterThanOrEqual(2);
    expect(before.value('fdkit_bytes_received_total', { transport: 'tcp' })).toBeGreaterThan(0);

    const probed = a.counters().probes;
    await c.shutdown();
    // The death watch can convict c before a's next probe period: wait for one, so that probe traffic
    // has something to show.
    await poll(
      () => holds(a, ['c'], 'dead') && a.counters().probes > probed,
      'a holds c dead, and probed',
      10_000,
    );
    const after = await scrape(registry);
    expect(after.value('fdkit_members', { state: 'dead' })).toBe(1);
    expect(after.value('fdkit_members', { state: 'alive' })).toBe(2);
    expect(after.sum('fdkit_deaths_total')).toBe(1);
    const [death] = after.series('fdkit_deaths_total').filter((s) => s.value === 1);
    expect(['suspicion-timeout', 'dead-gossip', 'connection-refused']).toContain(death!.labels.cause);
    // Probes went out and acks came back over real sockets all along.
    expect(after.value('fdkit_probes_total')).toBeGreaterThan(before.value('fdkit_probes_total'));
    for (const name of [
      'fdkit_messages_sent_total',
      'fdkit_messages_received_total',
      'fdkit_bytes_sent_total',
    ]) {
      expect(after.value(name, { transport: 'udp' }), name).toBeGreaterThan(
        before.value(name, { transport: 'udp' }),
      );
    }
    expect(after.sum('fdkit_dropped_total')).toBe(0);
  });
});

/**
 * The duration histograms of a node: `probe_rtt_seconds` and `push_pull_duration_seconds`, scraped as
 * Prometheus reads them, on `SwimNode`s over an in-memory network with a fixed one-way latency and a
 * virtual clock. A probe's round trip is then two latencies exactly, which is what each sample must be;
 * the push-pull samples are compared bucket by bucket with the `push-pull` events the node emitted, and
 * bounded both ways by the latency.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type FdkitMetrics, fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { holds, MEMORY_CONFIG, run, runUntil, settleWhileRunning } from '../support/node-harness.js';
import { type Scrape, scrape } from './prometheus-text.js';

/** One-way latency of every delivery. */
const LATENCY_MS = 7;
const RTT_BOUNDS = [
  '0.0005',
  '0.001',
  '0.002',
  '0.005',
  '0.01',
  '0.02',
  '0.05',
  '0.1',
  '0.2',
  '0.5',
  '1',
  '2',
  '5',
];

const nodes: SwimNode[] = [];
const handles: FdkitMetrics[] = [];
let clock = new VirtualClock();

afterEach(async () => {
  for (const handle of handles.splice(0)) handle.close();
  await settleWhileRunning(clock, Promise.all(nodes.splice(0).map((n) => n.shutdown())), 60_000);
});

/** `n` nodes on a network of LATENCY_MS, joined through the first, all holding all alive. */
async function cluster(seed: number, n: number): Promise<SwimNode[]> {
  clock = new VirtualClock();
  const network = new MemoryNetwork({ clock, latencyMs: LATENCY_MS });
  const members: SwimNode[] = [];
  for (let i = 1; i <= n; i++) {
    const node = createNode({
      name: `n${i}`,
      bind: `10.0.0.${i}:7946`,
      transport: (o) => network.createTransport(o),
      clock,
      random: new Random(seed * 100 + i),
      config: MEMORY_CONFIG,
      localHealth: false,
    });
    nodes.push(node);
    members.push(node);
    await node.start();
  }
  for (const node of members.slice(1)) {
    const joined = await settleWhileRunning(clock, node.join(['10.0.0.1:7946']), 30_000);
    expect(joined).toEqual({ ok: true, value: 1 });
  }
  const names = members.map((_, i) => `n${i + 1}`);
  await runUntil(clock, () => members.every((m) => holds(m, names, 'alive')), 30_000, 'all alive');
  return members;
}

async function metered(node: SwimNode): Promise<() => Promise<Scrape>> {
  const registry = new Registry();
  handles.push(await fdkitMetrics(node, { registry }));
  return () => scrape(registry);
}

/** The cumulative count of `samples` (in ms) at or under `le` seconds, as a histogram bucket holds it. */
function atOrUnder(samples: readonly number[], le: string): number {
  const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
  return samples.filter((ms) => ms / 1000 <= bound).length;
}

describe('duration histograms', () => {
  it('probe_rtt_seconds: every direct probe is two latencies, in the bucket up to 0.02 s and none below', async () => {
    const [n1] = await cluster(1, 4);
    const read = await metered(n1!);
    const rtts: number[] = [];
    n1!.on('rtt', (ms) => rtts.push(ms));
    const periods = 30;
    await run(clock, periods * MEMORY_CONFIG.probeIntervalMs!);
    // One probe a period, every one acked on a loss-free network.
    expect(rtts.length).toBeGreaterThanOrEqual(periods - 1);
    expect(rtts.length).toBeLessThanOrEqual(periods + 1);
    for (const ms of rtts) expect(ms).toBeCloseTo(2 * LATENCY_MS, 6);
    const s = await read();
    expect(s.types.get('fdkit_probe_rtt_seconds')).toBe('histogram');
    // The histogram saw the probes from its creation on, the same ones the listener did.
    expect(s.value('fdkit_probe_rtt_seconds_count')).toBe(rtts.length);
    expect(s.value('fdkit_probe_rtt_seconds_sum')).toBeCloseTo((rtts.length * 2 * LATENCY_MS) / 1000, 6);
    for (const le of [...RTT_BOUNDS, '+Inf']) {
      const expected = Number(le === '+Inf' ? Infinity : le) >= (2 * LATENCY_MS) / 1000 ? rtts.length : 0;
      expect(s.value('fdkit_probe_rtt_seconds_bucket', { le }), `le=${le}`).toBe(expected);
    }
    // Each peer's smoothed round trip, from samples that are all two latencies, is two latencies.
    for (const m of n1!.members().filter((x) => x.name !== 'n1')) {
      expect(m.rttMs, m.name).toBeCloseTo(2 * LATENCY_MS, 3);
    }
    expect(n1!.localMember.rttMs).toBeUndefined();
  });

  it('push_pull_duration_seconds: one sample per push-pull n1 started, each at least a round trip', async () => {
    const [n1] = await cluster(2, 3);
    const read = await metered(n1!);
    const durations: number[] = [];
    n1!.on('push-pull', (ms) => durations.push(ms));
    // n1 starts one every 10 s (MEMORY_CONFIG) with a random live peer.
    await run(clock, 60_000);
    expect(durations.length).toBeGreaterThanOrEqual(5);
    expect(durations.length).toBeLessThanOrEqual(7);
    // The request crosses the network and the reply comes back: two latencies at least; connecting
    // adds latencies, not protocol periods.
    for (const ms of durations) {
      expect(ms).toBeGreaterThanOrEqual(2 * LATENCY_MS);
      expect(ms).toBeLessThanOrEqual(8 * LATENCY_MS);
    }
    const s = await read();
    expect(s.value('fdkit_push_pull_duration_seconds_count')).toBe(durations.length);
    const sum = durations.reduce((a, b) => a + b, 0) / 1000;
    expect(s.value('fdkit_push_pull_duration_seconds_sum')).toBeCloseTo(sum, 6);
    const buckets = s.series('fdkit_push_pull_duration_seconds_bucket');
    expect(buckets.length).toBe(15);
    for (const b of buckets) expect(b.value, `le=${b.labels.le}`).toBe(atOrUnder(durations, b.labels.le!));
    // Between 2 × 7 ms and 8 × 7 ms: none at or under 0.01 s, all at or under 0.1 s.
    expect(s.value('fdkit_push_pull_duration_seconds_bucket', { le: '0.01' })).toBe(0);
    expect(s.value('fdkit_push_pull_duration_seconds_bucket', { le: '0.1' })).toBe(durations.length);
  });

  it('no listener, no event: the node measures for whoever listens, and close() stops listening', async () => {
    const [n1] = await cluster(3, 2);
    expect(n1!.listenerCount('rtt')).toBe(0);
    const registry = new Registry();
    const handle = await fdkitMetrics(n1!, { registry });
    expect([n1!.listenerCount('rtt'), n1!.listenerCount('push-pull')]).toEqual([1, 1]);
    handle.close();
    expect([n1!.listenerCount('rtt'), n1!.listenerCount('push-pull')]).toEqual([0, 0]);
  });
});

/**
 * `fdkitMetrics` on heartbeat monitors: real `HeartbeatMonitor`s on the in-memory network and a virtual
 * clock, scraped through prom-client's text output. The defaults (a beat a second, suspicion at phi 5,
 * a 4 s suspicion timeout) give the expected values; the monitor's own events give the detection time.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { type FdkitMetrics, fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { FdkitMetricsOptions } from '../../src/metrics/metrics-options.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { run } from '../support/node-harness.js';
import { type Scrape, scrape } from './prometheus-text.js';

const address = (i: number): string => `10.0.0.${i}:7947`;
const INTERVAL_MS = 1000;
const SUSPICION_TIMEOUT_MS = 4000;

class World {
  readonly clock = new VirtualClock();
  readonly network = new MemoryNetwork({ clock: this.clock });
  readonly monitors: HeartbeatMonitor[] = [];
  readonly handles: FdkitMetrics[] = [];

  /** Monitors m1..mn, each watching all the others. */
  async start(n: number): Promise<HeartbeatMonitor[]> {
    const peers = Array.from({ length: n }, (_, i) => ({ name: `m${i + 1}`, address: address(i + 1) }));
    for (let i = 1; i <= n; i++) {
      const monitor = createHeartbeatMonitor({
        name: `m${i}`,
        bind: address(i),
        peers,
        transport: (o) => this.network.createTransport(o),
        clock: this.clock,
        random: new Random(i),
        localHealth: false,
      });
      await monitor.start();
      this.monitors.push(monitor);
    }
    return this.monitors;
  }

  async meter(monitor: HeartbeatMonitor, options: FdkitMetricsOptions = {}): Promise<() => Promise<Scrape>> {
    const registry = new Registry();
    this.handles.push(await fdkitMetrics(monitor, { registry, ...options }));
    return () => scrape(registry);
  }

  async close(): Promise<void> {
    for (const handle of this.handles) handle.close();
    await Promise.all(this.monitors.map((m) => m.shutdown()));
  }
}

const worlds: World[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

function newWorld(): World {
  const world = new World();
  worlds.push(world);
  return world;
}

describe('heartbeat monitor metrics', () => {
  it('a peer that stops: suspected, then dead by the timeout 4 s later; the gauges, counters and detection time show it', async () => {
    const world = newWorld();
    const [m1, , m3] = await world.start(3);
    const read = await world.meter(m1!);
    const events: MemberEvent[] = [];
    for (const type of ['suspect', 'dead'] as const) m1!.on(type, (e) => events.push(e));
    await run(world.clock, 5000);
    const s0 = await read();
    expect(s0.value('fdkit_members', { state: 'alive' })).toBe(2);
    for (const state of ['unknown', 'suspect', 'dead']) expect(s0.value('fdkit_members', { state })).toBe(0);
    for (const cause of ['phi-threshold', 'suspicion-timeout']) {
      expect(s0.value('fdkit_deaths_total', { cause })).toBe(0);
    }

    // Ten intervals: a beat to each of two peers per interval, and one from each.
    await run(world.clock, 10 * INTERVAL_MS);
    const s1 = await read();
    const sent = s1.value('fdkit_heartbeats_sent_total') - s0.value('fdkit_heartbeats_sent_total');
    const received =
      s1.value('fdkit_heartbeats_received_total') - s0.value('fdkit_heartbeats_received_total');
    expect(sent).toBe(20);
    expect(received).toBeGreaterThanOrEqual(19);
    expect(received).toBeLessThanOrEqual(21);
    expect(
      s1.value('fdkit_messages_sent_total', { transport: 'udp' }) -
        s0.value('fdkit_messages_sent_total', { transport: 'udp' }),
    ).toBe(20);
    expect(s1.value('fdkit_bytes_sent_total', { transport: 'udp' })).toBeGreaterThan(
      s0.value('fdkit_bytes_sent_total', { transport: 'udp' }),
    );
    expect(s1.series('fdkit_messages_sent_total', { transport: 'tcp' })).toEqual([]);

    await m3!.shutdown();
    await run(world.clock, 15_000);
    const s2 = await read();
    expect(s2.value('fdkit_members', { state: 'dead' })).toBe(1);
    expect(s2.value('fdkit_members', { state: 'alive' })).toBe(1);
    expect(s2.value('fdkit_deaths_total', { cause: 'suspicion-timeout' })).toBe(1);
    expect(s2.sum('fdkit_deaths_total')).toBe(1);
    expect(s2.value('fdkit_suspicions_raised_total')).toBe(1);
    expect(s2.value('fdkit_transitions_total', { state: 'suspect', cause: 'phi-threshold' })).toBe(1);
    const [suspect, dead] = events;
    expect([suspect?.type, dead?.type]).toEqual(['suspect', 'dead']);
    expect(s2.value('fdkit_detection_seconds_count')).toBe(1);
    const seconds = s2.value('fdkit_detection_seconds_sum');
    expect(seconds).toBeCloseTo((dead!.atMs - suspect!.atMs) / 1000, 9);
    // The suspicion timeout, checked once an interval at the latest.
    expect(seconds).toBeGreaterThanOrEqual(SUSPICION_TIMEOUT_MS / 1000);
    expect(seconds).toBeLessThanOrEqual((SUSPICION_TIMEOUT_MS + INTERVAL_MS) / 1000);
    // A 5 s bucket holds it, a 3 s one does not.
    expect(s2.value('fdkit_detection_seconds_bucket', { le: '5' })).toBe(1);
    expect(s2.value('fdkit_detection_seconds_bucket', { le: '3' })).toBe(0);
    expect(s2.value('fdkit_local_health_score')).toBe(0);
    // No per-peer series unless asked for.
    expect(s2.series('fdkit_member_phi')).toEqual([]);
    expect(s2.samples.filter((s) => 'member' in s.labels)).toEqual([]);
  });

  it('phi per peer on request: at most N series, the highest phi first, dead peers left out', async () => {
    const world = newWorld();
    const monitors = await world.start(5);
    const top1 = await world.meter(monitors[0]!, { perMemberLabels: 1 });
    const all = await world.meter(monitors[1]!, { perMemberLabels: true, prefix: 'hb_' });
    await run(world.clock, 5000);
    expect(
      (await all())
        .series('hb_member_phi')
        .map((s) => s.labels.member)
        .sort(),
    ).toEqual(['m1', 'm3', 'm4', 'm5']);
    // m5 stops: 4.5 s later (past the 3 s acceptable pause) its silence has the highest phi of m1's
    // peers, the others' at 0, still short of suspicion.
    await monitors[4]!.shutdown();
    await run(world.clock, 4500);
    const silent = await top1();
    expect(silent.series('fdkit_member_phi').map((s) => s.labels.member)).toEqual(['m5']);
    expect(silent.value('fdkit_member_phi', { member: 'm5' })).toBeGreaterThan(1);
    expect(silent.value('fdkit_members', { state: 'suspect' })).toBe(0);
    // Once dead, its phi is no longer worth a series: another peer takes the place.
    await run(world.clock, 15_000);
    const after = await top1();
    expect(after.value('fdkit_members', { state: 'dead' })).toBe(1);
    const [only] = after.series('fdkit_member_phi');
    expect(after.series('fdkit_member_phi')).toHaveLength(1);
    expect(['m2', 'm3', 'm4']).toContain(only!.labels.member);
    expect(only!.value).toBeLessThan(1);
    expect(
      (await all())
        .series('hb_member_phi')
        .map((s) => s.labels.member)
        .sort(),
    ).toEqual(['m1', 'm3', 'm4']);
  });
});

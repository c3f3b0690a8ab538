/**
 * Which counter each metric reads: a fake node and a fake monitor whose every counter holds a value of
 * its own (distinct primes), so that a metric reading the wrong field (nacks sent for nacks received,
 * TCP bytes for UDP ones) shows another field's value. The scenario suites show the values move with the
 * protocol; this one pins the wiring, which they cannot tell apart when two counters move together.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { MonitorMetricsSource } from '../../src/metrics/monitor-metrics.js';
import type { NodeMeasurement, NodeMetricsSource } from '../../src/metrics/node-metrics.js';
import type { HeartbeatMonitorCounters } from '../../src/node/heartbeat-monitor-counters.js';
import type { NodeCounters } from '../../src/node/node-counters.js';
import { scrape } from './prometheus-text.js';

const PRIMES = [
  2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103,
  107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199,
];

/** `fields` numbered with distinct primes, in order. */
function distinct<K extends string>(fields: readonly K[], from = 0): Record<K, number> {
  return Object.fromEntries(fields.map((f, i) => [f, PRIMES[from + i]!])) as Record<K, number>;
}

// `never`: a listener of member events and one of durations both fit.
const quiet = {
  on: (_: MemberEvent['type'] | NodeMeasurement, __: (e: never) => void) => undefined,
  off: (_: MemberEvent['type'] | NodeMeasurement, __: (e: never) => void) => undefined,
};

describe('the counter behind each metric', () => {
  it('a node: each metric shows its own counter', async () => {
    const drops = distinct(['malformed', 'decrypt-failed', 'truncated'] as const, 30);
    const counters = {
      ...distinct([
        'packetsIn',
        'packetsOut',
        'bytesIn',
        'bytesOut',
        'sendErrors',
        'streamsIn',
        'streamsOut',
        'streamBytesIn',
        'streamBytesOut',
        'streamSendErrors',
        'pushPulls',
        'probes',
        'probesFailed',
        'indirectProbes',
        'nacksSent',
        'nacksReceived',
        'suspicions',
        'refutations',
        'refutationsSeen',
        'nameConflicts',
        'incarnationJumps',
        'deaths',
        'lateTimers',
        'busySpells',
        'busyExcused',
      ] as const),
      drops,
    } as unknown as NodeCounters;
    const node: NodeMetricsSource = {
      ...quiet,
      counters: () => counters,
      members: () => [
        { name: 'a', state: 'alive', phi: 0.5 },
        { name: 'b', state: 'suspect', phi: 3 },
        { name: 'c', state: 'dead', phi: 40 },
      ],
      localHealth: 3,
      pendingBroadcasts: 9,
    };
    const registry = new Registry();
    const handle = await fdkitMetrics(node, { registry, prefix: 'x_', perMemberLabels: 1 });
    const s = await scrape(registry);
    const c = counters as unknown as Record<string, number>;
    const expected: [string, Record<string, string>, number][] = [
      ['x_probes_total', {}, c.probes!],
      ['x_probes_failed_total', {}, c.probesFailed!],
      ['x_indirect_probes_total', {}, c.indirectProbes!],
      ['x_nacks_sent_total', {}, c.nacksSent!],
      ['x_nacks_received_total', {}, c.nacksReceived!],
      ['x_suspicions_raised_total', {}, c.suspicions!],
      ['x_refutations_total', {}, c.refutations!],
      ['x_refutations_seen_total', {}, c.refutationsSeen!],
      ['x_name_conflicts_total', {}, c.nameConflicts!],
      ['x_incarnation_jumps_total', {}, c.incarnationJumps!],
      ['x_push_pulls_total', {}, c.pushPulls!],
      ['x_late_timers_total', {}, c.lateTimers!],
      ['x_busy_spells_total', {}, c.busySpells!],
      ['x_busy_excused_total', {}, c.busyExcused!],
      ['x_messages_sent_total', { transport: 'udp' }, c.packetsOut!],
      ['x_messages_sent_total', { transport: 'tcp' }, c.streamsOut!],
      ['x_messages_received_total', { transport: 'udp' }, c.packetsIn!],
      ['x_messages_received_total', { transport: 'tcp' }, c.streamsIn!],
      ['x_bytes_sent_total', { transport: 'udp' }, c.bytesOut!],
      ['x_bytes_sent_total', { transport: 'tcp' }, c.streamBytesOut!],
      ['x_bytes_received_total', { transport: 'udp' }, c.bytesIn!],
      ['x_bytes_received_total', { transport: 'tcp' }, c.streamBytesIn!],
      ['x_send_errors_total', { transport: 'udp' }, c.sendErrors!],
      ['x_send_errors_total', { transport: 'tcp' }, c.streamSendErrors!],
      ['x_dropped_total', { reason: 'malformed' }, drops.malformed],
      ['x_dropped_total', { reason: 'decrypt-failed' }, drops['decrypt-failed']],
      ['x_dropped_total', { reason: 'truncated' }, drops.truncated],
      ['x_decrypt_failures_total', {}, drops['decrypt-failed']],
      ['x_local_health_score', {}, 3],
      ['x_broadcast_queue_depth', {}, 9],
      ['x_members', { state: 'alive' }, 1],
      ['x_members', { state: 'suspect' }, 1],
      ['x_members', { state: 'dead' }, 1],
      ['x_members', { state: 'left' }, 0],
      // The dead member's phi is the highest, but only alive and suspect members get a series.
      ['x_member_phi', { member: 'b' }, 3],
    ];
    for (const [name, labels, value] of expected)
      expect(s.value(name, labels), `${name}${JSON.stringify(labels)}`).toBe(value);
    expect(s.series('x_member_phi')).toHaveLength(1);
    handle.close();
  });

  it('a heartbeat monitor: each metric shows its own counter', async () => {
    const drops = distinct(['malformed', 'decrypt-failed', 'unknown-sender', 'stale'] as const, 30);
    const counters = {
      ...distinct([
        'packetsIn',
        'packetsOut',
        'bytesIn',
        'bytesOut',
        'sendErrors',
        'heartbeatsIn',
        'heartbeatsOut',
        'suspicions',
        'deaths',
        'restarts',
        'lateTimers',
        'freezes',
      ] as const),
      drops,
    } as unknown as HeartbeatMonitorCounters;
    const monitor: MonitorMetricsSource = {
      ...quiet,
      counters: () => counters,
      peers: () => [
        { name: '10.0.0.9:7947', state: 'unknown', phi: 0 },
        { name: 'p', state: 'alive', phi: 0.1 },
      ],
      localHealth: 2,
    };
    const registry = new Registry();
    const handle = await fdkitMetrics(monitor, { registry, prefix: 'y_' });
    const s = await scrape(registry);
    const c = counters as unknown as Record<string, number>;
    const expected: [string, Record<string, string>, number][] = [
      ['y_heartbeats_sent_total', {}, c.heartbeatsOut!],
      ['y_heartbeats_received_total', {}, c.heartbeatsIn!],
      ['y_suspicions_raised_total', {}, c.suspicions!],
      ['y_peer_restarts_total', {}, c.restarts!],
      ['y_late_timers_total', {}, c.lateTimers!],
      ['y_freezes_total', {}, c.freezes!],
      ['y_messages_sent_total', { transport: 'udp' }, c.packetsOut!],
      ['y_messages_received_total', { transport: 'udp' }, c.packetsIn!],
      ['y_bytes_sent_total', { transport: 'udp' }, c.bytesOut!],
      ['y_bytes_received_total', { transport: 'udp' }, c.bytesIn!],
      ['y_send_errors_total', { transport: 'udp' }, c.sendErrors!],
      ['y_dropped_total', { reason: 'stale' }, drops.stale],
      ['y_dropped_total', { reason: 'unknown-sender' }, drops['unknown-sender']],
      ['y_decrypt_failures_total', {}, drops['decrypt-failed']],
      ['y_local_health_score', {}, 2],
      ['y_members', { state: 'unknown' }, 1],
      ['y_members', { state: 'alive' }, 1],
    ];
    for (const [name, labels, value] of expected)
      expect(s.value(name, labels), `${name}${JSON.stringify(labels)}`).toBe(value);
    expect(s.series('y_member_phi')).toEqual([]);
    handle.close();
  });
});

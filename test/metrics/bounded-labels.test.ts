/**
 * Label cardinality is bounded by design: a node of a 50-member cluster (in-memory network, virtual
 * time) exports no series per member unless asked, as many series as a node of 3 does, and every label
 * value comes from a closed set. With `perMemberLabels` the per-member series are exactly as many as
 * asked for.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FdkitMetrics, fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { FdkitMetricsOptions } from '../../src/metrics/metrics-options.js';
import { DROP_REASONS } from '../../src/wire/drop-reason.js';
import { holds, type Member, MemoryCluster } from '../support/node-harness.js';
import { type Scrape, scrape } from './prometheus-text.js';

/** Every label a node's metrics may carry without perMemberLabels, and the values each may take. */
const CLOSED_LABELS: Record<string, readonly string[]> = {
  state: ['alive', 'suspect', 'dead', 'left', 'update'],
  cause: [
    'joined',
    'probe-failed',
    'suspect-gossip',
    'suspicion-timeout',
    'refuted',
    'dead-gossip',
    'left',
    'rejoined',
    'metadata',
    'connection-refused',
  ],
  transport: ['udp', 'tcp'],
  reason: [...DROP_REASONS, 'truncated', 'timeout', 'connection-limit', 'no-handler', 'handler-error'],
  // The histograms' bucket bounds: detection, probe round trips, push-pulls.
  le: [
    ...['0.5', '1', '2', '3', '5', '8', '13', '20', '30', '60', '120', '+Inf'],
    ...['0.0005', '0.001', '0.002', '0.005', '0.01', '0.02', '0.05', '0.1', '0.2'],
    ...['0.0025', '0.025', '0.25', '2.5', '10'],
  ],
};

async function formed(seed: number, n: number): Promise<{ c: MemoryCluster; members: Member[] }> {
  const c = new MemoryCluster(seed);
  const members: Member[] = [];
  for (let i = 1; i <= n; i++) members.push(await c.start(i));
  for (const m of members.slice(1)) await m.node.join([members[0]!.address]);
  const names = members.map((m) => m.name);
  await c.runUntil(() => members.every((m) => holds(m.node, names, 'alive')), 60_000, `${n} alive`);
  return { c, members };
}

const handles: FdkitMetrics[] = [];
async function scrapeOf(member: Member, options: FdkitMetricsOptions = {}): Promise<Scrape> {
  const registry = new Registry();
  handles.push(await fdkitMetrics(member.node, { registry, ...options }));
  return scrape(registry);
}

let big: { c: MemoryCluster; members: Member[] };
let small: { c: MemoryCluster; members: Member[] };
beforeAll(async () => {
  big = await formed(11, 50);
  small = await formed(12, 3);
});
afterAll(async () => {
  for (const handle of handles) handle.close();
  await big.c.close();
  await small.c.close();
});

describe('label cardinality', () => {
  it('a node of 50 members exports no member name in any label, and as many series as a node of 3', async () => {
    const s = await scrapeOf(big.members[0]!);
    expect(s.value('fdkit_members', { state: 'alive' })).toBe(50);
    const names = new Set(big.members.map((m) => m.name));
    for (const sample of s.samples) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(CLOSED_LABELS[label], `${sample.name} label ${label}`).toBeDefined();
        expect(CLOSED_LABELS[label], `${sample.name}{${label}="${value}"}`).toContain(value);
        expect(names.has(value)).toBe(false);
      }
    }
    const keys = (x: Scrape) => x.samples.map((m) => `${m.name}${JSON.stringify(m.labels)}`).sort();
    expect(keys(s)).toEqual(keys(await scrapeOf(small.members[0]!)));
  });

  it('perMemberLabels: 10 gives ten member_phi series; true one per member held alive', async () => {
    const ten = await scrapeOf(big.members[1]!, { perMemberLabels: 10 });
    expect(ten.series('fdkit_member_phi')).toHaveLength(10);
    const every = await scrapeOf(big.members[2]!, { perMemberLabels: true });
    expect(new Set(every.series('fdkit_member_phi').map((s) => s.labels.member))).toEqual(
      new Set(big.members.map((m) => m.name)),
    );
  });
});

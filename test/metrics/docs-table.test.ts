/**
 * docs/metrics.md lists exactly the metrics the code registers: the table is read from the markdown and
 * compared, name by name, with what `fdkitMetrics` puts in a registry for a node and for a heartbeat
 * monitor, with and without the opt-in parts; types, labels and the "from" column included.
 */
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { FdkitMetricsOptions } from '../../src/metrics/metrics-options.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { createNode } from '../../src/node/node.js';
import { LeaderHint } from '../../src/omega/leader-hint.js';
import { MemoryNetwork } from '../../src/transport/memory.js';

interface Row {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly from: string;
}

/** The rows of the table under "## Metrics" in docs/metrics.md. */
function documented(): Row[] {
  const text = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
  const section = text.split('\n## Metrics\n')[1]!.split('\n## ')[0]!;
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const unquote = (s: string) => s.replace(/`/g, '');
    return {
      name: unquote(cells[0]!),
      type: cells[1]!,
      labels: cells[2] === '' ? [] : cells[2]!.split(',').map((l) => unquote(l.trim())),
      from: cells[3]!,
    };
  });
}

const network = new MemoryNetwork();
type Source = Parameters<typeof fdkitMetrics>[0];

/** What one call registers: name → [type, label names]. */
async function registered(source: Source, options: FdkitMetricsOptions = {}): Promise<Map<string, Row>> {
  const registry = new Registry();
  const handle = await fdkitMetrics(source, { registry, ...options });
  const out = new Map<string, Row>();
  for (const metric of registry.getMetricsAsArray()) {
    const m = metric as unknown as { name: string; type: string; labelNames: string[] };
    out.set(m.name, { name: m.name, type: m.type, labels: m.labelNames, from: '' });
  }
  handle.close();
  return out;
}

describe('docs/metrics.md', () => {
  it('its table lists exactly the metrics registered, each with its type and labels, from the sources it names', async () => {
    const node = createNode({ bind: '10.0.0.1:7946', transport: (o) => network.createTransport(o) });
    const monitor = createHeartbeatMonitor({
      bind: '10.0.0.2:7947',
      transport: (o) => network.createTransport(o),
    });
    const everything = (source: Source) => ({
      perMemberLabels: true,
      leader: new LeaderHint(source as never, { self: { name: 'self' } }),
    });
    const nodeBase = await registered(node);
    const monitorBase = await registered(monitor);
    const nodeAll = await registered(node, everything(node));
    const monitorAll = await registered(monitor, everything(monitor));

    const rows = documented();
    expect(rows.length).toBeGreaterThan(20);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    const all = new Map([...nodeAll, ...monitorAll]);
    expect(rows.map((r) => r.name).sort()).toEqual([...all.keys()].sort());
    for (const row of rows) {
      const metric = all.get(row.name)!;
      expect(row.type, row.name).toBe(metric.type);
      expect(row.labels, row.name).toEqual(metric.labels);
      const optional = row.from.includes('opt-in') || row.from.includes('leader');
      expect(nodeBase.has(row.name), `${row.name} from a node`).toBe(row.from.includes('node') && !optional);
      expect(monitorBase.has(row.name), `${row.name} from a monitor`).toBe(
        row.from.includes('monitor') && !optional,
      );
      expect(nodeAll.has(row.name), `${row.name} from a node with every option`).toBe(
        row.from.includes('node') || row.from.includes('leader'),
      );
    }
  });
});

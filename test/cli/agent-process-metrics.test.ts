/**
 * `fdkit agent --http` exports its process's own figures beside the member's: heap, RSS, handles, timers
 * and event-loop delay, which the soak (bench/soak/) samples to find leaks. In process, on 127.0.0.1 with
 * ephemeral ports: the process measured is this test's own, so the expected values come from
 * `process.memoryUsage()` here, not from the exporter.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentHttp, startAgentHttp } from '../../src/cli/agent-http.js';
import { createNode, type SwimNode } from '../../src/node/node.js';

const nodes: SwimNode[] = [];
const servers: AgentHttp[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(nodes.splice(0).map((n) => n.shutdown()));
});

/** The value of the one sample of `name` (labels included) in a Prometheus text exposition. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('fdkit agent --http /metrics', () => {
  it('carries the process heap, RSS, handles, timers and event-loop delay beside the member metrics', async () => {
    const logger = pino({ level: 'silent' });
    const node = createNode({ name: 'p1', bind: '127.0.0.1:0', profile: 'local', logger });
    nodes.push(node);
    await node.start();
    const http = await startAgentHttp(
      node,
      { host: '127.0.0.1', port: 0, token: undefined },
      { logger, joined: () => true, left: () => {} },
    );
    servers.push(http);
    // A timer that keeps the loop alive, so that at least one `Timeout` resource is counted.
    const keep = setTimeout(() => {}, 60_000);
    try {
      const text = await (await fetch(`${http.url}/metrics`)).text();
      const memory = process.memoryUsage();
      const heap = sample(text, 'nodejs_heap_size_used_bytes');
      const rss = sample(text, 'process_resident_memory_bytes');
      expect(heap).toBeGreaterThan(memory.heapUsed / 2);
      expect(heap).toBeLessThan(memory.heapUsed * 2);
      expect(rss).toBeGreaterThan(memory.rss / 2);
      expect(rss).toBeLessThan(memory.rss * 2);
      expect(sample(text, 'nodejs_active_handles_total')).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'nodejs_active_resources{type="Timeout"}')).toBeGreaterThanOrEqual(1);
      const lagMax = sample(text, 'nodejs_eventloop_lag_max_seconds');
      expect(lagMax).toBeGreaterThanOrEqual(0);
      expect(lagMax).toBeLessThan(60);
      // The member's own metrics are still there.
      expect(sample(text, 'fdkit_members{state="alive"}')).toBe(1);
    } finally {
      clearTimeout(keep);
    }
  });
});

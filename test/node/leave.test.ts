/**
 * What `leave()` waits for and returns, on the memory network and virtual time: it resolves once every
 * member live at the leave has echoed the leave back, well before `leaveTimeoutMs`, at once when nobody
 * else is live, and at the timeout (saying so) when a member cannot answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCluster, settleWhileRunning } from '../support/node-harness.js';

const clusters: MemoryCluster[] = [];

function newCluster(seed: number): MemoryCluster {
  const cluster = new MemoryCluster(seed);
  clusters.push(cluster);
  return cluster;
}

afterEach(async () => {
  for (const cluster of clusters.splice(0)) await cluster.close();
});

describe('leave', () => {
  it('resolves once every live member acknowledged, long before the timeout, and each holds it left', async () => {
    const c = newCluster(1);
    const members = await c.form(5);
    const leaver = members[4]!;
    const startedAt = c.clock.now();
    const outcome = await settleWhileRunning(c.clock, leaver.node.leave({ timeoutMs: 60_000 }), 60_000);
    const tookMs = c.clock.now() - startedAt;
    expect(outcome).toEqual({ ok: true, value: { acknowledged: 4, live: 4, timedOut: false } });
    expect(tookMs).toBeLessThan(10_000);
    for (const m of members.slice(0, 4)) {
      expect(m.node.members().find((x) => x.name === leaver.name)?.state, m.name).toBe('left');
    }
  });

  it('resolves at once when nobody else is live', async () => {
    const c = newCluster(2);
    const alone = await c.start(1);
    const startedAt = c.clock.now();
    expect(await alone.node.leave()).toEqual({ acknowledged: 0, live: 0, timedOut: false });
    expect(c.clock.now()).toBe(startedAt);
  });

  it('times out, not before timeoutMs, when a live member is cut off and cannot acknowledge', async () => {
    const c = newCluster(3);
    const members = await c.form(3);
    const [a, b, leaver] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]];
    c.network.partition([leaver.address], [b.address]);
    const startedAt = c.clock.now();
    const outcome = await settleWhileRunning(c.clock, leaver.node.leave({ timeoutMs: 4000 }), 10_000);
    expect(c.clock.now() - startedAt).toBe(4000);
    expect(outcome).toEqual({ ok: true, value: { acknowledged: 1, live: 2, timedOut: true } });
    expect(a.node.members().find((x) => x.name === leaver.name)?.state).toBe('left');
  });
});

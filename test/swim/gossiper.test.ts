import { describe, expect, it } from 'vitest';
import { Gossiper } from '../../src/swim/gossiper.js';
import { harness, run } from './swim-context.js';

describe('Gossiper, over the shared context', () => {
  it('sleeps while nothing waits, then gossips to gossipNodes members per interval until the queue is spent', () => {
    const h = harness();
    for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
    const gossiper = new Gossiper(h.ctx);
    gossiper.start();
    run(h.clock, 10 * h.ctx.config.gossipIntervalMs);
    expect(h.packets).toEqual([]);
    h.ctx.outbox.enqueue({ kind: 'dead', name: 'f', incarnation: 1, from: 'self' }, h.id('f'));
    gossiper.wake();
    run(h.clock, h.ctx.config.gossipIntervalMs);
    const first = h.packets.filter((p) => p.packet.type === 'gossip');
    expect(first).toHaveLength(h.ctx.config.gossipNodes);
    expect(new Set(first.map((p) => p.to)).size).toBe(h.ctx.config.gossipNodes);
    run(h.clock, 100 * h.ctx.config.gossipIntervalMs);
    expect(h.ctx.outbox.pending).toBe(0);
    const sent = h.packets.length;
    run(h.clock, 10 * h.ctx.config.gossipIntervalMs);
    expect(h.packets.length).toBe(sent);
  });
});

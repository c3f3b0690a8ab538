/**
 * `Prober.check`, the split-brain resolver's question "does this member answer now": a direct ping, then
 * ping-reqs through helpers, with no suspicion and no health change following, whatever the answer.
 */
import { describe, expect, it } from 'vitest';
import type { PingReq } from '../../src/swim/messages.js';
import { Prober } from '../../src/swim/prober.js';
import { fakePort } from './prober-fakes.js';
import { addressOf, harness, run } from './swim-context.js';

function checking() {
  const h = harness();
  const b = h.know('b');
  for (const helper of ['c', 'd', 'e', 'f']) h.know(helper);
  const { port, calls } = fakePort();
  const prober = new Prober(h.ctx, port, undefined);
  const done: Array<[number, boolean]> = [];
  prober.check(b, 300, (acked) => done.push([h.clock.now(), acked]));
  return { h, prober, done, calls, score: () => h.ctx.health.awareness.score };
}

describe('Prober.check', () => {
  it('answers true on the direct ack, sending no ping-req', () => {
    const { h, prober, done } = checking();
    expect(h.packets.map((p) => [p.to, p.packet.type])).toEqual([[addressOf('b'), 'ping']]);
    const ping = h.packets[0]!.packet;
    run(h.clock, 40);
    prober.handleAck(ping.type === 'ping' ? ping.seq : -1);
    run(h.clock, 2_000);
    expect(done).toEqual([[40, true]]);
    expect(h.packets).toHaveLength(1);
  });

  it('asks indirectChecks helpers at the timeout, not before, and answers true on a relayed ack', () => {
    const { h, prober, done } = checking();
    run(h.clock, 299);
    expect(h.packets).toHaveLength(1);
    run(h.clock, 1);
    const reqs = h.packets.slice(1).map((p) => p.packet as PingReq);
    expect(reqs).toHaveLength(h.ctx.config.indirectChecks);
    // Each to a distinct helper, never to the target or to this member, and asking for no nack.
    const to = h.packets.slice(1).map((p) => p.to);
    expect(new Set(to).size).toBe(reqs.length);
    expect(to).not.toContain(addressOf('b'));
    expect(to).not.toContain(addressOf('self'));
    for (const req of reqs) {
      expect(req).toMatchObject({
        type: 'ping-req',
        target: 'b',
        targetAddress: addressOf('b'),
        nack: false,
      });
    }
    run(h.clock, 100);
    prober.handleAck(reqs[0]!.seq);
    expect(done).toEqual([[400, true]]);
  });

  it('answers false once the helpers had as long again, not before, and raises no suspicion or health score', () => {
    const { h, done, calls, score } = checking();
    run(h.clock, 599);
    expect(done).toEqual([]);
    run(h.clock, 1);
    expect(done).toEqual([[600, false]]);
    run(h.clock, 5_000);
    expect(done).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
    expect(score()).toBe(0);
  });

  it('with no helper to ask, answers false after the second timeout', () => {
    const h = harness();
    const b = h.know('b');
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    const done: Array<[number, boolean]> = [];
    prober.check(b, 300, (acked) => done.push([h.clock.now(), acked]));
    run(h.clock, 2_000);
    expect(h.packets.map((p) => p.packet.type)).toEqual(['ping']);
    expect(done).toEqual([[600, false]]);
  });

  it('a late direct ack, after the ping-reqs left, does not answer twice', () => {
    const { h, prober, done } = checking();
    const ping = h.packets[0]!.packet;
    run(h.clock, 350);
    prober.handleAck(ping.type === 'ping' ? ping.seq : -1);
    const req = h.packets[1]!.packet as PingReq;
    prober.handleAck(req.seq);
    prober.handleAck(req.seq);
    run(h.clock, 2_000);
    expect(done).toEqual([[350, true]]);
  });
});

import { describe, expect, it } from 'vitest';
import { DEAD } from '../../src/membership/member-state.js';
import type { MemberList } from '../../src/swim/messages.js';
import { StateSync, type StateSyncPort } from '../../src/swim/state-sync.js';
import { addressOf, harness, run } from './swim-context.js';

function port(answers: boolean) {
  const merged: Array<{ members: MemberList; from: string }> = [];
  const pinged: Array<{ id: number; timeoutMs: number }> = [];
  const p: StateSyncPort = {
    incarnation: 1,
    merge: (members, from) => merged.push({ members, from }),
    pruneTombstones: () => {},
    pingOnce: (id, timeoutMs, done) => {
      pinged.push({ id, timeoutMs });
      done(answers);
    },
  };
  return { p, merged, pinged };
}

describe('StateSync, over a fake port', () => {
  it('merges a push-pull request, then replies with its full state', () => {
    const h = harness();
    h.know('b');
    const { p, merged } = port(true);
    const sync = new StateSync(h.ctx, p);
    const members: MemberList = {
      names: ['c'],
      addresses: [addressOf('c')],
      incarnations: Uint32Array.of(1),
      states: Uint8Array.of(0),
      metas: [new Uint8Array(0)],
    };
    sync.handlePushPull(addressOf('c'), { type: 'push-pull', from: 'c', join: false, reply: false, members });
    expect(merged).toEqual([{ members, from: 'c' }]);
    const reply = h.streams.at(-1)!;
    expect(reply.to).toBe(addressOf('c'));
    expect(reply.message).toMatchObject({ type: 'push-pull', from: 'self', reply: true, join: false });
    expect(reply.message.type === 'push-pull' ? [...reply.message.members.names].sort() : []).toEqual([
      'b',
      'self',
    ]);
    expect(h.ctx.counters.streamsSent).toBe(1);
  });

  it('pings a member held dead every reconnect interval, and exchanges state with it once it answers', () => {
    const h = harness();
    h.know('b');
    const x = h.know('x', DEAD);
    const { p, pinged } = port(true);
    const sync = new StateSync(h.ctx, p);
    sync.start();
    run(h.clock, h.ctx.config.reconnectIntervalMs);
    expect(pinged).toEqual([{ id: x, timeoutMs: 2 * h.ctx.config.probeTimeoutMs }]);
    expect(
      h.streams.some((s) => s.to === addressOf('x') && s.message.type === 'push-pull' && s.message.join),
    ).toBe(true);
  });
});

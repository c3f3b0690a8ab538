import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import type { MemberList } from '../../src/swim/messages.js';
import { StateSync, type StateSyncPort } from '../../src/swim/state-sync.js';
import { encodeStream } from '../../src/wire/encode.js';
import { EMPTY_LIST, pushPull, syncHarness } from './state-sync-harness.js';
import { addressOf, harness, run } from './swim-context.js';

function port(answers: boolean) {
  const merged: Array<{ members: MemberList; from: string }> = [];
  const pinged: Array<{ id: number; timeoutMs: number }> = [];
  const p: StateSyncPort = {
    incarnation: 1,
    merge: (members, from) => {
      merged.push({ members, from });
      return undefined;
    },
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

describe('StateSync: what an exchange carries', () => {
  it('lists every member the view holds, in id order, skips ids it does not hold, and gives its encoded size', () => {
    const s = syncHarness();
    s.h.know('b');
    s.ctx.view.directory.intern('ghost', addressOf('ghost')); // in the directory, not in the view
    const c = s.h.know('c', SUSPECT, 7);
    s.ctx.view.table.setMetadata(c, Uint8Array.of(1, 2, 3));
    s.sync.handlePushPull(addressOf('c'), pushPull('c', false));
    expect(s.merged).toEqual([{ members: EMPTY_LIST, from: 'c', join: false }]);
    expect(s.streams).toHaveLength(1);
    const { to, message, bytes } = s.streams[0]!;
    expect(to).toBe(addressOf('c'));
    expect(message).toEqual({
      type: 'push-pull',
      from: 'self',
      join: false,
      reply: true,
      members: {
        names: ['self', 'b', 'c'],
        addresses: [addressOf('self'), addressOf('b'), addressOf('c')],
        incarnations: Uint32Array.of(1, 1, 7),
        states: Uint8Array.of(ALIVE, ALIVE, SUSPECT),
        metas: [new Uint8Array(0), new Uint8Array(0), Uint8Array.of(1, 2, 3)],
      },
    });
    expect(bytes).toBe(encodeStream(message).length);
  });

  it('answers a reply that made this member refute with its new state, once, as a request', () => {
    const s = syncHarness();
    s.sync.handlePushPull(addressOf('b'), pushPull('b', true));
    expect(s.streams).toEqual([]); // nothing changed here: nothing to send back
    s.onMerge = () => {
      s.port.incarnation = 2;
    };
    s.sync.handlePushPull(addressOf('b'), pushPull('b', true));
    expect(s.streams.map((x) => [x.to, x.message.type === 'push-pull' && x.message.reply])).toEqual([
      [addressOf('b'), false],
    ]);
    expect(s.streams[0]!.message).toMatchObject({ join: false });
    expect(s.merged).toHaveLength(2);
  });

  it('exchanges with a stranger that probed it at most once a probe interval, not as a join', () => {
    const s = syncHarness();
    const P = s.ctx.config.probeIntervalMs; // 1000
    s.h.clock.advance(5000);
    s.sync.meetStranger(addressOf('x'));
    s.h.clock.advance(P - 1);
    s.sync.meetStranger(addressOf('y')); // 999 ms after: refused
    s.h.clock.advance(1);
    s.sync.meetStranger(addressOf('z')); // a probe interval after: taken
    expect(s.streams.map((x) => [x.atMs, x.to])).toEqual([
      [5000, addressOf('x')],
      [5000 + P, addressOf('z')],
    ]);
    for (const x of s.streams) expect(x.message).toMatchObject({ join: false, reply: false });
  });
});

describe('StateSync: the periodic push-pull', () => {
  /** Self, b, c, d and e known to the view, all in the probe order, self included (a warm start). */
  function formed() {
    const s = syncHarness();
    for (const n of ['b', 'c', 'd', 'e']) s.ctx.view.directory.intern(n, addressOf(n));
    s.ctx.view.assumeDirectoryMembers(1, [], s.ctx.random);
    s.h.know('c', SUSPECT);
    s.h.know('d', DEAD);
    s.h.know('e', LEFT);
    return s;
  }

  it('goes to a live member other than itself, first at half the interval (the phase), then every interval', () => {
    const s = formed();
    s.sync.start();
    const interval = s.ctx.config.pushPullIntervalMs; // 30 s, 5 members
    s.h.clock.advance(interval / 2 - 1);
    expect(s.streams).toEqual([]);
    run(s.h.clock, 1 + 19 * interval);
    const exchanges = s.streams.filter((x) => x.message.type === 'push-pull' && !x.message.join);
    const ticks = Array.from({ length: 20 }, (_, k) => interval / 2 + k * interval);
    expect(exchanges[0]?.atMs).toBe(interval / 2);
    for (const x of exchanges) expect(ticks).toContain(x.atMs);
    // A tick draws 3 × 5 times among self, b, c, d, e, and misses b with probability (4/5)^15 ≈ 3.5 %.
    expect(exchanges.length).toBeGreaterThanOrEqual(17);
    // Only b is alive and someone else.
    for (const x of exchanges) expect([x.to, x.message]).toMatchObject([addressOf('b'), { reply: false }]);
  });

  it('sends nothing while it knows no live member but itself', () => {
    const s = syncHarness();
    s.h.know('d', DEAD);
    s.answers = false;
    s.sync.start();
    run(s.h.clock, 5 * s.ctx.config.pushPullIntervalMs);
    expect(s.streams).toEqual([]);
  });

  it('does nothing once the member no longer runs, even with its timers still set', () => {
    const s = syncHarness();
    s.h.know('b');
    s.h.know('x', DEAD);
    s.answers = true;
    s.sync.join([addressOf('seed')]);
    s.sync.start();
    s.streams.length = 0;
    s.ctx.lifecycle.phase = 'stopped';
    run(s.h.clock, 2 * s.ctx.config.pushPullIntervalMs);
    expect([s.streams, s.pings]).toEqual([[], []]);
  });

  it('stop() cancels its timers, and may come before start()', () => {
    const s = syncHarness();
    s.sync.stop();
    s.h.know('b');
    s.h.know('x', DEAD);
    s.answers = true;
    s.sync.start();
    s.sync.stop();
    run(s.h.clock, 2 * s.ctx.config.pushPullIntervalMs);
    expect([s.streams, s.pings]).toEqual([[], []]);
  });
});

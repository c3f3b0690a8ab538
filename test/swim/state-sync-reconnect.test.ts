/**
 * State sync's ways back to a cluster: the seeds a member joins through, retried while it is alone, and
 * the reconnection to members it holds dead, with its per-member backoff. Over a fake port, timer
 * phases at half their range (`state-sync-harness.ts`): with `lan`, a probe interval P = 1 s and a
 * reconnect interval R = 10 s, the reconnection ticks come at 5 s + k × R.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import { memberlistLan } from '../../src/swim/profiles.js';
import { type SyncHarness, syncHarness } from './state-sync-harness.js';
import { addressOf, run } from './swim-context.js';

const P = memberlistLan.probeIntervalMs;
const R = memberlistLan.reconnectIntervalMs;

/** The streams sent to `name`: time, and whether each was a join. */
function streamsTo(s: SyncHarness, name: string): Array<[number, boolean]> {
  return s.streams
    .filter((x) => x.to === addressOf(name))
    .map((x) => [x.atMs, x.message.type === 'push-pull' && x.message.join]);
}

describe('StateSync: joining through seeds', () => {
  it('exchanges with each seed but itself, as joins, and retries them at P, 3P, 7P, 15P, then every R', () => {
    const s = syncHarness();
    s.sync.start();
    s.sync.join([addressOf('self'), addressOf('s1'), addressOf('s2')]);
    run(s.h.clock, 40_000);
    // Waits of P, 2P, 4P, 8P, then 16P capped at R: retries at 1, 3, 7, 15, 25 and 35 s.
    const times = [0, 1000, 3000, 7000, 15_000, 25_000, 35_000];
    expect(streamsTo(s, 's1')).toEqual(times.map((t) => [t, true]));
    expect(streamsTo(s, 's2')).toEqual(times.map((t) => [t, true]));
    expect(s.streams).toHaveLength(2 * times.length); // none to itself, no reconnection while retrying
  });

  it('stops retrying once it knows another live member, a suspect included', () => {
    const s = syncHarness();
    s.sync.start();
    s.sync.join([addressOf('s1')]);
    s.h.clock.advance(P / 2);
    s.h.know('m', SUSPECT); // self alive and m suspect: two live members
    run(s.h.clock, 40_000);
    expect(streamsTo(s, 's1')).toEqual([[0, true]]);
    expect(s.streams).toHaveLength(1);
  });

  it('alone again after its retries ended, it exchanges with a seed at the next reconnection tick', () => {
    const s = syncHarness();
    s.sync.start();
    s.sync.join([addressOf('s1')]);
    s.h.clock.advance(P / 2);
    s.h.know('b');
    s.h.clock.advance(P); // the retry at P found b: no more retries
    s.h.know('b', DEAD); // alone again
    s.answers = false;
    s.h.clock.advance(R / 2 - 1.5 * P - 1);
    expect(streamsTo(s, 's1')).toEqual([[0, true]]);
    s.h.clock.advance(1); // 5 s: the first reconnection tick
    expect(streamsTo(s, 's1')).toEqual([
      [0, true],
      [R / 2, true],
    ]);
  });
});

describe('StateSync: reconnecting to members held dead', () => {
  it('pings a dead member with backoff 2R, 4R, then 4R: at 5, 25, 65, 105 and 145 s; never one that left', () => {
    const s = syncHarness();
    const x = s.h.know('x', DEAD);
    s.h.know('y', LEFT);
    s.answers = false;
    s.sync.start();
    s.h.clock.advance(R / 2 - 1);
    expect(s.pings).toEqual([]);
    run(s.h.clock, 150_000);
    expect(s.pings.map((p) => [p.atMs, p.id, p.timeoutMs])).toEqual(
      [5000, 25_000, 65_000, 105_000, 145_000].map((t) => [t, x, 2 * memberlistLan.probeTimeoutMs]),
    );
    expect(s.streams).toEqual([]); // no answer, no exchange
  });

  it('starts the backoff afresh for a member that was alive in between', () => {
    const s = syncHarness();
    s.h.know('x', DEAD);
    s.answers = false;
    s.sync.start();
    run(s.h.clock, 10_000); // failed at 5 s: next at 25 s
    s.h.know('x', ALIVE);
    run(s.h.clock, 10_000); // the tick at 15 s drops its backoff
    s.h.know('x', DEAD);
    run(s.h.clock, 30_000); // a first failure again at 25 s: next at 45 s (not 65 s)
    expect(s.pings.map((p) => p.atMs)).toEqual([5000, 25_000, 45_000]);
  });

  it('exchanges state with a dead member that answers, as a join, unless it stopped meanwhile', () => {
    const s = syncHarness();
    s.h.know('x', DEAD);
    s.sync.start();
    run(s.h.clock, R / 2);
    s.pings[0]!.answer(true);
    expect(streamsTo(s, 'x')).toEqual([[R / 2, true]]);
    run(s.h.clock, R);
    expect(s.pings).toHaveLength(2); // answered: no backoff, tried again at the next tick
    s.ctx.lifecycle.phase = 'stopped';
    s.pings[1]!.answer(true);
    expect(streamsTo(s, 'x')).toHaveLength(1);
  });
});

/**
 * How state sync times the exchanges it starts (the context's `measured`, `push-pull`): from its request
 * to the reply merged, whatever else goes to or comes from that address meanwhile, and only while the
 * request is younger than a push-pull interval at a tick. Over a fake port (`state-sync-harness.ts`):
 * alone, this member's push-pull interval is 30 s and its first tick comes at 15 s.
 */
import { describe, expect, it } from 'vitest';
import { StateSync } from '../../src/swim/state-sync.js';
import { pushPull, syncHarness } from './state-sync-harness.js';
import { addressOf, run } from './swim-context.js';

/** State sync over the harness, with what it measured: `[what, ms, at]`. */
function timed() {
  const s = syncHarness();
  const measures: Array<[string, number, number]> = [];
  const sync = new StateSync(
    { ...s.ctx, measured: (what, ms) => measures.push([what, ms, s.h.clock.now()]) },
    s.port,
  );
  return { s, sync, measures };
}

describe('StateSync: the duration of an exchange it started', () => {
  it('runs from the request to the reply, not from the start of time', () => {
    const { s, sync, measures } = timed();
    s.h.clock.advance(5000);
    sync.meetStranger(addressOf('x'));
    s.h.clock.advance(37);
    sync.handlePushPull(addressOf('x'), pushPull('x', true));
    expect(measures).toEqual([['push-pull', 37, 5037]]);
  });

  it('is not restarted by a reply this member sends that address meanwhile (the requests crossed)', () => {
    const { s, sync, measures } = timed();
    s.h.clock.advance(5000);
    sync.meetStranger(addressOf('b'));
    s.h.clock.advance(10);
    sync.handlePushPull(addressOf('b'), pushPull('b', false)); // b's own request, answered
    expect(s.streams.map((x) => x.message.type === 'push-pull' && x.message.reply)).toEqual([false, true]);
    s.h.clock.advance(27);
    sync.handlePushPull(addressOf('b'), pushPull('b', true));
    expect(measures).toEqual([['push-pull', 37, 5037]]);
  });

  it('outlives the push-pull ticks that find its request at most an interval old, and no later one', () => {
    const { s, sync, measures } = timed();
    const to = (atMs: number) => run(s.h.clock, atMs - s.h.clock.now());
    sync.start();
    to(10_000);
    sync.meetStranger(addressOf('x')); // kept through the tick at 15 s
    to(16_000);
    sync.handlePushPull(addressOf('x'), pushPull('x', true));
    to(45_000); // the tick at 45 s
    sync.meetStranger(addressOf('y')); // exactly an interval before the tick at 75 s
    to(46_000);
    sync.meetStranger(addressOf('z')); // unanswered through the ticks at 75 s and 105 s
    to(75_001); // the tick at 75 s found y's request an interval old, not more
    sync.handlePushPull(addressOf('y'), pushPull('y', true));
    to(105_000); // the tick at 105 s forgets z's, 59 s old
    sync.handlePushPull(addressOf('z'), pushPull('z', true));
    expect(measures).toEqual([
      ['push-pull', 6000, 16_000],
      ['push-pull', 30_001, 75_001],
    ]);
    expect(s.streams.map((x) => [x.atMs, x.to])).toEqual([
      [10_000, addressOf('x')],
      [45_000, addressOf('y')],
      [46_000, addressOf('z')],
    ]);
  });
});

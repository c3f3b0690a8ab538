/**
 * What the name conflicts mechanism (src/swim/conflicts.ts) remembers, and for how long: the reports
 * and the votes it keeps to suppress repeats are bounded (256 each, the oldest forgotten first), and a
 * check or a vote that ends after the member stopped does nothing.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE } from '../../src/membership/member-state.js';
import type { SwimConfig } from '../../src/swim/config.js';
import type { ConflictPolicy } from '../../src/swim/conflict-policy.js';
import { NameConflicts } from '../../src/swim/conflicts.js';
import type { ConflictEvent } from '../../src/swim/events.js';
import type { AliveUpdate } from '../../src/swim/messages.js';
import { addressOf, harness, run } from './swim-context.js';

const KEPT = 256;

function setUp(policy: ConflictPolicy, config: Partial<SwimConfig> = {}) {
  const h = harness({ config });
  const events: ConflictEvent[] = [];
  const pings: Array<(acked: boolean) => void> = [];
  const moved: AliveUpdate[] = [];
  const conflicts = new NameConflicts(h.ctx, policy, (e) => events.push(e), {
    pingOnce: (_id, _timeoutMs, done) => pings.push(done),
    moved: (a) => moved.push(a),
    yieldName: () => {},
  });
  const queries = () => h.packets.filter(({ packet }) => packet.type === 'name-query').length;
  return { h, conflicts, events, pings, moved, queries };
}

const claim = (name: string, address: string): AliveUpdate => ({
  kind: 'alive',
  name,
  address,
  incarnation: 5,
  meta: new Uint8Array(0),
});

describe('NameConflicts reports remembered', () => {
  it('forgets the oldest report past 256, which is then reported again within the window', () => {
    const s = setUp('holder');
    const held = addressOf('x');
    for (let i = 0; i < KEPT; i++) s.conflicts.seen('x', held, `other-${i}:1`);
    s.conflicts.seen('x', held, 'other-0:1');
    expect(s.events).toHaveLength(KEPT); // all 256 remembered: the repeat is suppressed
    s.conflicts.seen('x', held, `other-${KEPT}:1`); // the 257th forgets other-0
    s.conflicts.seen('x', held, 'other-1:1');
    expect(s.events).toHaveLength(KEPT + 1);
    s.conflicts.seen('x', held, 'other-0:1');
    expect(s.events).toHaveLength(KEPT + 2);
    expect(s.events.at(-1)?.otherAddress).toBe('other-0:1');
  });

  it('a report made again after the window counts as the newest, not the oldest', () => {
    const s = setUp('holder');
    const window = s.h.ctx.config.pushPullIntervalMs;
    const held = addressOf('x');
    s.conflicts.seen('x', held, 'first:1');
    s.conflicts.seen('x', held, 'second:1');
    s.h.clock.advance(window);
    s.conflicts.seen('x', held, 'first:1'); // again, now the newest
    for (let i = 0; i < KEPT - 2; i++) s.conflicts.seen('x', held, `other-${i}:1`);
    s.conflicts.seen('x', held, 'last:1'); // full: forgets second, the oldest
    const before = s.events.length;
    s.conflicts.seen('x', held, 'first:1');
    expect(s.events.length).toBe(before); // still remembered, within its window
    s.conflicts.seen('x', held, 'second:1');
    expect(s.events.length).toBe(before + 1);
  });
});

describe('NameConflicts votes remembered', () => {
  it('forgets the oldest vote past 256, which may then be held again within the window', () => {
    // A window longer than 257 votes, so that only forgetting lets a vote about the same claim again.
    const s = setUp('majority', { pushPullIntervalMs: 3_600_000 });
    s.h.know('voter', ALIVE, 1);
    const voteMs = 2 * s.h.ctx.config.probeIntervalMs;
    for (let i = 0; i < KEPT; i++) {
      s.conflicts.claimedSelf(`other-${i}:1`);
      run(s.h.clock, voteMs);
    }
    expect(s.queries()).toBe(KEPT);
    s.conflicts.claimedSelf('other-0:1');
    expect(s.queries()).toBe(KEPT); // remembered
    s.conflicts.claimedSelf(`other-${KEPT}:1`);
    run(s.h.clock, voteMs); // the 257th forgets other-0
    s.conflicts.claimedSelf('other-1:1');
    expect(s.queries()).toBe(KEPT + 1);
    s.conflicts.claimedSelf('other-0:1');
    expect(s.queries()).toBe(KEPT + 2);
  });

  it('a vote is remembered for one push-pull interval from its end', () => {
    const s = setUp('majority');
    s.h.know('voter', ALIVE, 1);
    const voteMs = 2 * s.h.ctx.config.probeIntervalMs;
    s.conflicts.claimedSelf('other:1');
    run(s.h.clock, voteMs);
    run(s.h.clock, s.h.ctx.config.pushPullIntervalMs - 1);
    s.conflicts.claimedSelf('other:1');
    expect(s.queries()).toBe(1);
    run(s.h.clock, 1);
    s.conflicts.claimedSelf('other:1');
    expect(s.queries()).toBe(2);
  });
});

describe('NameConflicts after the member stopped', () => {
  it('a check answered after the member stopped neither reports nor moves', () => {
    for (const acked of [true, false]) {
      const s = setUp('holder');
      const x = s.h.know('x', ALIVE, 4);
      s.conflicts.claimed(x, claim('x', 'x.other:1'));
      s.h.ctx.lifecycle.phase = 'stopped';
      s.pings[0]!(acked);
      expect([s.events.length, s.moved.length, s.h.packets.length]).toEqual([0, 0, 0]);
      // The check is over: a claim after a restart pings again.
      s.h.ctx.lifecycle.phase = 'running';
      s.conflicts.claimed(x, claim('x', 'x.other:1'));
      expect(s.pings).toHaveLength(2);
    }
  });
});

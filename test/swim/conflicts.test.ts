/**
 * The name conflicts mechanism alone (src/swim/conflicts.ts), its port faked: the check of the holder,
 * the reports and their suppression, the notices to both claimants, and the majority vote.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD } from '../../src/membership/member-state.js';
import type { ConflictPolicy } from '../../src/swim/conflict-policy.js';
import { NameConflicts } from '../../src/swim/conflicts.js';
import type { NameConflict } from '../../src/swim/delegates.js';
import type { ConflictEvent } from '../../src/swim/events.js';
import type { AliveUpdate } from '../../src/swim/messages.js';
import { IMPOSTOR, notice, OWN, report } from './conflicts-fixture.js';
import { addressOf, harness, run } from './swim-context.js';

function setUp(policy: ConflictPolicy = 'holder') {
  const h = harness();
  const events: ConflictEvent[] = [];
  const pings: Array<{ id: number; timeoutMs: number; done: (acked: boolean) => void }> = [];
  const moved: AliveUpdate[] = [];
  const told: NameConflict[] = [];
  let yielded = 0;
  const conflicts = new NameConflicts(h.ctx, policy, (e) => events.push(e), {
    pingOnce: (id, timeoutMs, done) => pings.push({ id, timeoutMs, done }),
    moved: (a) => moved.push(a),
    yieldName: () => yielded++,
    notifyConflict: (c) => told.push(c),
  });
  const notices = () =>
    h.packets.flatMap(({ to, packet }) =>
      packet.type === 'conflict'
        ? [`${to}: ${packet.name} ${packet.holderAddress} ${packet.otherAddress}`]
        : [],
    );
  return { h, conflicts, events, pings, moved, told, notices, report, yielded: () => yielded };
}

const claimOf = (name: string, address: string, incarnation = 5): AliveUpdate => ({
  kind: 'alive',
  name,
  address,
  incarnation,
  meta: new Uint8Array(0),
});

describe('NameConflicts at a member holding the name', () => {
  it('pings the holder once; an ack makes it a conflict, reported, counted and told to both', () => {
    const s = setUp();
    const x = s.h.know('x', ALIVE, 4);
    s.conflicts.claimed(x, claimOf('x', 'x.other:1'));
    s.conflicts.claimed(x, claimOf('x', 'x.other:1', 6)); // while the check runs: no second ping
    expect(s.pings.map((p) => [p.id, p.timeoutMs])).toEqual([[x, 2 * s.h.ctx.config.probeTimeoutMs]]);
    expect(s.events).toEqual([]);
    s.pings[0]!.done(true);
    const held = addressOf('x');
    expect(s.events.map(s.report)).toEqual([`x ${held} x.other:1 ${held} false`]);
    expect(s.events[0]).toMatchObject({
      type: 'conflict',
      atMs: s.h.clock.now(),
      wallMs: s.h.clock.wallNow(),
    });
    expect(s.h.ctx.counters.nameConflicts).toBe(1);
    expect(s.told).toEqual([
      { name: 'x', existingAddress: held, otherAddress: 'x.other:1', holderAddress: held, self: false },
    ]);
    expect(s.notices()).toEqual([`${held}: x ${held} x.other:1`, `x.other:1: x ${held} x.other:1`]);
    expect(s.moved).toEqual([]);
  });

  it('a silent holder means the member moved: the latest claim is applied', () => {
    const s = setUp();
    const x = s.h.know('x', ALIVE, 4);
    s.conflicts.claimed(x, claimOf('x', 'x.other:1', 5));
    s.conflicts.claimed(x, claimOf('x', 'x.other:1', 6));
    s.pings[0]!.done(false);
    expect(s.moved.map((a) => a.incarnation)).toEqual([6]);
    expect(s.events).toEqual([]);
    expect(s.h.ctx.counters.nameConflicts).toBe(0);
  });

  it('reports the same conflict once a push-pull interval, and sends no notices in between', () => {
    const s = setUp();
    const window = s.h.ctx.config.pushPullIntervalMs;
    s.conflicts.seen('x', addressOf('x'), 'x.other:1');
    s.h.clock.advance(window - 1);
    s.conflicts.seen('x', addressOf('x'), 'x.other:1');
    expect([s.events.length, s.notices().length]).toEqual([1, 2]);
    s.conflicts.seen('x', addressOf('x'), 'x.third:1'); // another claimant is another conflict
    expect(s.events.length).toBe(2);
    s.h.clock.advance(1);
    s.conflicts.seen('x', addressOf('x'), 'x.other:1');
    expect([s.events.length, s.h.ctx.counters.nameConflicts]).toEqual([3, 3]);
  });

  it('a throwing conflict delegate does not stop the protocol', () => {
    const h = harness();
    const events: ConflictEvent[] = [];
    const conflicts = new NameConflicts(h.ctx, 'holder', (e) => events.push(e), {
      pingOnce: () => {},
      moved: () => {},
      yieldName: () => {},
      notifyConflict: () => {
        throw new Error('application bug');
      },
    });
    expect(() => conflicts.seen('x', addressOf('x'), 'x.other:1')).not.toThrow();
    expect(events).toHaveLength(1);
    expect(h.packets).toHaveLength(2);
  });
});

describe('NameConflicts at a claimant, holder policy', () => {
  it('the holder hearing its name claimed keeps it, and tells the newcomer', () => {
    const s = setUp();
    s.conflicts.claimedSelf(IMPOSTOR);
    expect(s.events.map(s.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
    expect(s.notices()).toEqual([`${IMPOSTOR}: self ${OWN} ${IMPOSTOR}`]);
  });

  it('told by a third member: the holder learns it keeps the name, the newcomer that it does not', () => {
    const holder = setUp();
    holder.conflicts.handleNotice(notice('t', OWN, IMPOSTOR));
    expect(holder.events.map(holder.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
    const newcomer = setUp();
    newcomer.conflicts.handleNotice(notice('t', 'holder:1', OWN));
    expect(newcomer.events.map(newcomer.report)).toEqual([`self holder:1 ${OWN} holder:1 true`]);
    expect(newcomer.yielded()).toBe(0);
  });

  it('ignores notices about other names, and a vote for its own address', () => {
    const s = setUp();
    s.conflicts.handleNotice(notice('t', 'a:1', 'b:1', 'someone'));
    s.conflicts.handleNotice(notice('t', OWN, OWN));
    expect(s.events).toEqual([]);
  });
});

describe('NameConflicts, majority policy', () => {
  /** A claimant that knows `voters` alive and one dead member, told of a conflict with `other`. */
  function voting(voters: string[]) {
    const s = setUp('majority');
    for (const v of voters) s.h.know(v, ALIVE, 1);
    s.h.know('gone', DEAD, 1);
    s.conflicts.handleNotice(notice(voters[0] ?? 't', OWN, IMPOSTOR));
    return s;
  }
  const queried = (s: ReturnType<typeof setUp>) =>
    s.h.packets.flatMap(({ to, packet }) => (packet.type === 'name-query' ? [to] : []));
  const voteMs = (s: ReturnType<typeof setUp>) => 2 * s.h.ctx.config.probeIntervalMs;

  it('asks every live member, and keeps the name when most hold it here', () => {
    const s = voting(['a', 'b', 'c']);
    expect(queried(s)).toEqual(['a', 'b', 'c'].map(addressOf));
    s.conflicts.handleNotice(notice('b', OWN, OWN));
    s.conflicts.handleNotice(notice('c', IMPOSTOR, OWN));
    run(s.h.clock, voteMs(s) - 1);
    expect(s.events).toEqual([]);
    run(s.h.clock, 1);
    expect(s.events.map(s.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
    expect(s.yielded()).toBe(0);
  });

  it('yields the name when most hold it at the other address, and reports the winner', () => {
    const s = voting(['a', 'b', 'c']);
    s.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('c', IMPOSTOR, OWN));
    run(s.h.clock, voteMs(s));
    expect(s.yielded()).toBe(1);
    expect(s.events.map(s.report)).toEqual([`self ${IMPOSTOR} ${OWN} ${IMPOSTOR} true`]);
  });

  it('the other claimant has no vote, and a voter counts once (its last word)', () => {
    const s = voting(['a', 'b']);
    // a voted for us in the notice that started the vote; the impostor's notices speak for itself.
    s.conflicts.handleNotice(notice('self', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('self', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('b', OWN, OWN));
    run(s.h.clock, voteMs(s));
    expect(s.yielded()).toBe(0);
  });

  it('a tie, or nobody to ask, keeps the name', () => {
    const tie = voting(['a', 'b']);
    tie.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    run(tie.h.clock, voteMs(tie));
    expect(tie.yielded()).toBe(0);
    const alone = setUp('majority');
    alone.conflicts.claimedSelf(IMPOSTOR);
    expect(queried(alone)).toEqual([]);
    expect(alone.notices()).toEqual([`${IMPOSTOR}: self ${OWN} ${IMPOSTOR}`]);
    run(alone.h.clock, voteMs(alone));
    expect([alone.yielded(), alone.events.length]).toEqual([0, 1]);
  });

  it('one vote at a time, none again about the same claim within the window', () => {
    const s = voting(['a']);
    s.conflicts.claimedSelf(IMPOSTOR);
    run(s.h.clock, voteMs(s));
    s.conflicts.claimedSelf(IMPOSTOR);
    expect(queried(s)).toHaveLength(1);
    run(s.h.clock, s.h.ctx.config.pushPullIntervalMs);
    s.conflicts.claimedSelf(IMPOSTOR);
    expect(queried(s)).toHaveLength(2);
  });

  it('stop() ends a vote without a decision, and so does a member stopped otherwise', () => {
    const stopped = voting(['a', 'b']);
    stopped.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    stopped.conflicts.stop();
    expect(stopped.h.clock.nextDueMs()).toBeUndefined();
    run(stopped.h.clock, voteMs(stopped));
    expect([stopped.yielded(), stopped.events.length]).toEqual([0, 0]);
    const s = voting(['a', 'b', 'c']);
    s.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('c', IMPOSTOR, OWN));
    s.h.ctx.lifecycle.phase = 'stopped';
    run(s.h.clock, voteMs(s));
    expect([s.yielded(), s.events.length]).toEqual([0, 0]);
  });
});

describe('NameConflicts answering a query', () => {
  it('answers with the address it holds a live member at, and not for the dead or the unknown', () => {
    const s = setUp();
    s.h.know('x', ALIVE, 1);
    s.h.know('gone', DEAD, 1);
    for (const name of ['x', 'gone', 'nobody', 'self']) {
      s.conflicts.handleQuery('asker:1', { type: 'name-query', from: name, name, updates: [] });
    }
    expect(s.notices()).toEqual([`asker:1: x ${addressOf('x')} asker:1`, `asker:1: self ${OWN} asker:1`]);
  });
});

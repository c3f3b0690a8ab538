/**
 * The name conflicts mechanism's (src/swim/conflicts.ts) notices and votes in the cases that tell its
 * branches apart: who counts as a voter, which address is the other claimant, a vote for this member's
 * own address arriving during a vote, suspect members as voters and holders, and the datagrams' shape.
 */
import { describe, expect, it } from 'vitest';
import { SUSPECT } from '../../src/membership/member-state.js';
import { CONFLICT_POLICIES, type ConflictPolicy } from '../../src/swim/conflict-policy.js';
import { NameConflicts } from '../../src/swim/conflicts.js';
import type { NameConflict } from '../../src/swim/delegates.js';
import type { ConflictEvent } from '../../src/swim/events.js';
import { IMPOSTOR, notice, OWN, report } from './conflicts-fixture.js';
import { addressOf, harness, run } from './swim-context.js';

function setUp(policy: ConflictPolicy, notifyConflict?: (c: NameConflict) => void) {
  const h = harness();
  const events: ConflictEvent[] = [];
  let yielded = 0;
  const conflicts = new NameConflicts(h.ctx, policy, (e) => events.push(e), {
    pingOnce: () => {},
    moved: () => {},
    yieldName: () => yielded++,
    ...(notifyConflict === undefined ? {} : { notifyConflict }),
  });
  const sent = (type: string) =>
    h.packets.flatMap(({ to, packet }) => (packet.type === type ? [{ to, packet }] : []));
  const voteMs = 2 * h.ctx.config.probeIntervalMs;
  return { h, conflicts, events, sent, report, voteMs, yielded: () => yielded };
}

describe('the conflict policies', () => {
  it('are holder and majority, in that order; only holder refuses a newcomer’s join', () => {
    expect(CONFLICT_POLICIES).toEqual(['holder', 'majority']);
    expect(setUp('holder').conflicts.refusesJoin).toBe(true);
    expect(setUp('majority').conflicts.refusesJoin).toBe(false);
  });
});

describe('NameConflicts.handle', () => {
  it('takes a conflict datagram as a notice and a name query as a query', () => {
    const s = setUp('holder');
    s.conflicts.handle('t:1', notice('t', OWN, IMPOSTOR));
    expect(s.events.map(s.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
    s.conflicts.handle('asker:1', { type: 'name-query', from: 'q', name: 'self', updates: [] });
    expect(
      s.sent('conflict').map(({ to, packet }) => [to, packet.type === 'conflict' && packet.holderAddress]),
    ).toEqual([['asker:1', OWN]]);
  });
});

describe('NameConflicts notices, holder policy', () => {
  it('told that a third address claims the name held elsewhere, names itself as the other claimant', () => {
    const s = setUp('holder');
    s.conflicts.handleNotice(notice('t', 'holder:1', 'third:1'));
    expect(s.events.map(s.report)).toEqual([`self holder:1 ${OWN} holder:1 true`]);
  });

  it('counts a conflict delegate that throws, and none when there is no delegate', () => {
    const throwing = setUp('holder', () => {
      throw new Error('application bug');
    });
    throwing.conflicts.claimedSelf(IMPOSTOR);
    expect(throwing.h.ctx.counters.delegateErrors).toBe(1);
    const none = setUp('holder');
    none.conflicts.claimedSelf(IMPOSTOR);
    expect([none.events.length, none.h.ctx.counters.delegateErrors]).toEqual([1, 0]);
  });

  it('answers a query about a suspect member, and sends its notices with no updates of its own', () => {
    const s = setUp('holder');
    s.h.know('x', SUSPECT, 1);
    s.conflicts.handleQuery('asker:1', { type: 'name-query', from: 'q', name: 'x', updates: [] });
    s.conflicts.claimedSelf(IMPOSTOR);
    expect(s.sent('conflict').map(({ to }) => to)).toEqual(['asker:1', IMPOSTOR]);
    expect(s.h.packets.map(({ packet }) => packet.updates)).toEqual([[], []]);
  });
});

describe('NameConflicts votes, majority policy', () => {
  it('gives the other claimant’s own notices no ballot, even the one that starts the vote', () => {
    const s = setUp('majority');
    s.h.know('a');
    s.conflicts.handleNotice(notice('self', IMPOSTOR, OWN)); // the impostor speaks for itself
    run(s.h.clock, s.voteMs);
    expect(s.yielded()).toBe(0);
    const during = setUp('majority');
    during.h.know('a');
    during.h.know('b');
    during.conflicts.handleNotice(notice('a', OWN, IMPOSTOR));
    during.conflicts.handleNotice(notice('self', IMPOSTOR, OWN));
    during.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    run(during.h.clock, during.voteMs); // a tie between a and b: the name stays
    expect(during.yielded()).toBe(0);
  });

  it('counts a ballot for its own address that arrives during the vote', () => {
    const s = setUp('majority');
    s.h.know('b');
    s.h.know('c');
    s.conflicts.claimedSelf(IMPOSTOR);
    s.conflicts.handleNotice(notice('c', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('b', OWN, OWN));
    run(s.h.clock, s.voteMs);
    expect(s.yielded()).toBe(0);
  });

  it('a tie keeps the name whichever address was voted for first', () => {
    const s = setUp('majority');
    s.h.know('a');
    s.h.know('b');
    s.conflicts.claimedSelf(IMPOSTOR);
    s.conflicts.handleNotice(notice('b', IMPOSTOR, OWN));
    s.conflicts.handleNotice(notice('a', OWN, OWN));
    run(s.h.clock, s.voteMs);
    expect(s.yielded()).toBe(0);
    expect(s.events.map(s.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
  });

  it('a third member’s notice names the other claimant, whichever side this member is on', () => {
    const s = setUp('majority');
    s.h.know('a');
    s.h.know('b');
    s.conflicts.handleNotice(notice('t', IMPOSTOR, OWN)); // t holds the name at the impostor
    s.conflicts.handleNotice(notice('a', OWN, OWN));
    s.conflicts.handleNotice(notice('b', OWN, OWN));
    run(s.h.clock, s.voteMs);
    expect(s.events.map(s.report)).toEqual([`self ${OWN} ${IMPOSTOR} ${OWN} true`]);
  });

  it('a notice about a claim voted on lately starts nothing, and a second claim waits for the vote', () => {
    const s = setUp('majority');
    s.h.know('a');
    s.conflicts.claimedSelf(IMPOSTOR);
    s.conflicts.claimedSelf(IMPOSTOR); // a vote under way: no second notice to the claimant
    expect(s.sent('conflict')).toHaveLength(1);
    run(s.h.clock, s.voteMs);
    expect(() => s.conflicts.handleNotice(notice('a', IMPOSTOR, OWN))).not.toThrow();
    expect(s.sent('name-query')).toHaveLength(1);
    run(s.h.clock, s.voteMs);
    expect(s.yielded()).toBe(0);
  });

  it('asks suspect members too, with a query of its own name and no updates', () => {
    const s = setUp('majority');
    s.h.know('a', SUSPECT, 1);
    s.conflicts.claimedSelf(IMPOSTOR);
    expect(s.sent('name-query').map(({ to, packet }) => [to, packet])).toEqual([
      [addressOf('a'), { type: 'name-query', from: 'self', name: 'self', updates: [] }],
    ]);
  });
});

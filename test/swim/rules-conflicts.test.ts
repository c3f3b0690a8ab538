/**
 * The membership rules' side of name conflicts and of this member's own death: what they hand the
 * conflicts port, what they refuse, and what they no longer refute (src/swim/rules.ts).
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import { aliveOf, list, memberEvents, rules } from './rules-fixture.js';
import { addressOf, harness } from './swim-context.js';

const ELSEWHERE = 'x.elsewhere:1';

describe('MembershipRules.alive: another address for a member held alive', () => {
  it('at or above the held incarnation goes to the conflicts port, and changes nothing yet', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r, conflicts } = rules(h);
    r.alive(aliveOf('x', 4, { address: ELSEWHERE }));
    r.alive(aliveOf('x', 9, { address: ELSEWHERE }));
    expect(conflicts).toEqual([`claimed x ${ELSEWHERE}`, `claimed x ${ELSEWHERE}`]);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(addressOf('x'));
    expect(h.ctx.view.table.incarnationOf(h.id('x'))).toBe(4);
    expect(memberEvents(h)).toEqual([]);
  });

  it('below the held incarnation is stale news of an older life there: ignored', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r, conflicts } = rules(h);
    r.alive(aliveOf('x', 3, { address: ELSEWHERE }));
    expect(conflicts).toEqual([]);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(addressOf('x'));
  });

  it('for a suspect the holder does not answer: a newer life elsewhere is a move, told as such', () => {
    const h = harness();
    h.know('x', SUSPECT, 4);
    const { rules: r, conflicts, calls } = rules(h);
    r.alive(aliveOf('x', 5, { address: ELSEWHERE }));
    expect(conflicts).toEqual([]);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(ELSEWHERE);
    expect(calls.addressChanged).toBe(1);
    expect(memberEvents(h)).toEqual(['alive x address-changed']);
  });

  it('a suspect refuting at its own address is still `refuted`; a dead one back elsewhere `rejoined`', () => {
    const h = harness();
    h.know('x', SUSPECT, 4);
    h.know('y', DEAD, 4);
    const { rules: r } = rules(h);
    r.alive(aliveOf('x', 5));
    r.alive(aliveOf('y', 5, { address: 'y.elsewhere:1' }));
    expect(memberEvents(h)).toEqual(['alive x refuted', 'alive y rejoined']);
  });
});

describe('MembershipRules.merge: a sender that claims a name held elsewhere', () => {
  const claim = (join: boolean, refuses: boolean) => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r, conflicts } = rules(h, {}, refuses);
    const members = {
      ...list([
        ['x', 7, ALIVE],
        ['y', 1, ALIVE],
      ]),
      addresses: [ELSEWHERE, addressOf('y')],
    };
    const refusal = r.merge(members, 'x', join);
    return { h, refusal, conflicts };
  };

  it('refuses a joiner, merging nothing, under the holder policy', () => {
    const { h, refusal, conflicts } = claim(true, true);
    expect(refusal).toEqual({
      code: 'FDKIT_JOIN_NAME_CONFLICT',
      reason: `the name x is held by a live member at ${addressOf('x')}`,
    });
    expect(conflicts).toEqual([`seen x ${addressOf('x')} ${ELSEWHERE}`]);
    expect(h.ctx.view.directory.find('y')).toBeUndefined();
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(addressOf('x'));
  });

  it('merges the rest, but not the claim, when the sender is not joining or the policy is majority', () => {
    for (const [join, refuses] of [
      [false, true],
      [true, false],
    ] as const) {
      const { h, refusal, conflicts } = claim(join, refuses);
      expect(refusal).toBeUndefined();
      expect(conflicts).toEqual([`seen x ${addressOf('x')} ${ELSEWHERE}`]);
      expect(h.ctx.view.table.stateOf(h.id('y'))).toBe(ALIVE);
      expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(addressOf('x'));
      expect(h.ctx.view.table.incarnationOf(h.id('x'))).toBe(4);
    }
  });

  it('a joiner under this member own name is refused, and this member keeps its incarnation', () => {
    const h = harness();
    const { rules: r, conflicts, self } = rules(h);
    const refusal = r.merge({ ...list([['self', 9, ALIVE]]), addresses: ['impostor:1'] }, 'self', true);
    expect(refusal?.code).toBe('FDKIT_JOIN_NAME_CONFLICT');
    expect(conflicts).toEqual(['self impostor:1']);
    expect([self.incarnation, h.ctx.counters.refutations]).toEqual([1, 0]);
  });

  it('a sender held suspect, or at the address it lists, is no conflict', () => {
    const h = harness();
    h.know('x', SUSPECT, 4);
    h.know('y', ALIVE, 4);
    const { rules: r, conflicts } = rules(h);
    expect(r.merge({ ...list([['x', 5, ALIVE]]), addresses: [ELSEWHERE] }, 'x', true)).toBeUndefined();
    expect(r.merge(list([['y', 5, ALIVE]]), 'y', true)).toBeUndefined();
    expect(conflicts).toEqual([]);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe(ELSEWHERE);
  });
});

describe('MembershipRules.merge: a member listed at another address than the one held', () => {
  it('alive at the life held or above is a claim for the conflicts port; below it, or suspect, nothing', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    h.know('y', ALIVE, 4);
    h.know('s', SUSPECT, 4);
    const { rules: r, conflicts } = rules(h);
    const members = list([
      ['x', 4, ALIVE],
      ['y', 3, ALIVE],
      ['s', 4, ALIVE],
    ]);
    r.merge({ ...members, addresses: [ELSEWHERE, 'y.elsewhere:1', 's.elsewhere:1'] }, 'peer', false);
    expect(conflicts).toEqual([`claimed x ${ELSEWHERE}`]);
    const { directory, table } = h.ctx.view;
    expect(['x', 'y', 's'].map((n) => [directory.addressOf(h.id(n)), table.incarnationOf(h.id(n))])).toEqual([
      [addressOf('x'), 4],
      [addressOf('y'), 4],
      [addressOf('s'), 4],
    ]);
    expect(memberEvents(h)).toEqual([]);
  });

  it('a state exchange from this member itself (a seed it was by another name) is no conflict', () => {
    const h = harness();
    const { rules: r, conflicts, self } = rules(h);
    const members = list([
      ['self', 1, ALIVE],
      ['y', 1, ALIVE],
    ]);
    expect(r.merge(members, 'self', true)).toBeUndefined();
    expect(conflicts).toEqual([]);
    expect(self.incarnation).toBe(1);
    expect(h.ctx.view.table.stateOf(h.id('y'))).toBe(ALIVE);
  });

  it('only the sender own alive entry, within the shortest column, claims its name', () => {
    const leaving = harness();
    leaving.know('x', ALIVE, 4);
    const left = rules(leaving);
    // x lists itself left, at another address: its leave, no claim.
    expect(
      left.rules.merge({ ...list([['x', 4, LEFT]]), addresses: [ELSEWHERE] }, 'x', true),
    ).toBeUndefined();
    expect(leaving.ctx.view.table.stateOf(leaving.id('x'))).toBe(LEFT);
    const short = harness();
    short.know('x', ALIVE, 4);
    const past = rules(short);
    const members = list([
      ['y', 1, ALIVE],
      ['x', 7, ALIVE],
    ]);
    // The metas column holds one entry: the list is read as one entry long.
    const claim = { ...members, addresses: [addressOf('y'), ELSEWHERE], metas: [members.metas[0]!] };
    expect(past.rules.merge(claim, 'x', true)).toBeUndefined();
    expect(short.ctx.view.table.stateOf(short.id('y'))).toBe(ALIVE);
    expect([left.conflicts, past.conflicts]).toEqual([[], []]);
  });
});

describe('MembershipRules.dead: this member declared dead', () => {
  const declared = (h: ReturnType<typeof harness>) =>
    h.events.flatMap((e) => (e.type === 'declared-dead' ? [e] : []));

  it('refutes, and reports it once per incarnation declared, with the accuser', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    r.dead({ kind: 'dead', name: 'self', incarnation: 1, from: 'peer' });
    expect(self.incarnation).toBe(2);
    // The same death again, below our incarnation now: the refutation is sent again, nothing reported.
    r.dead({ kind: 'dead', name: 'self', incarnation: 1, from: 'other' });
    expect(declared(h)).toEqual([
      {
        type: 'declared-dead',
        member: 'self',
        accuser: 'peer',
        incarnation: 1,
        refuted: true,
        atMs: h.clock.now(),
        wallMs: h.clock.wallNow(),
      },
    ]);
    // A death of the refuting life is news again.
    r.dead({ kind: 'dead', name: 'self', incarnation: 2, from: 'peer' });
    expect(declared(h).map((e) => [e.incarnation, e.refuted])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(self.incarnation).toBe(3);
  });

  it('a death of a life it already refuted (a suspicion came first) is still reported, as refuted', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    self.accused(1, 'suspect', 'peer'); // the suspicion, read first
    r.dead({ kind: 'dead', name: 'self', incarnation: 1, from: 'peer' });
    expect(self.incarnation).toBe(2);
    expect(declared(h).map((e) => [e.incarnation, e.refuted])).toEqual([[1, true]]);
  });

  it('a leaving member cannot refute, and says so', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    h.ctx.lifecycle.phase = 'leaving';
    r.dead({ kind: 'dead', name: 'self', incarnation: 3, from: 'peer' });
    expect(self.incarnation).toBe(1);
    expect(declared(h).map((e) => [e.accuser, e.incarnation, e.refuted])).toEqual([['peer', 3, false]]);
  });

  it('its own leave coming back is no accusation', () => {
    const h = harness();
    const { rules: r } = rules(h);
    h.ctx.lifecycle.phase = 'leaving';
    r.dead({ kind: 'dead', name: 'self', incarnation: 1, from: 'self' });
    expect(declared(h)).toEqual([]);
  });

  it("an earlier life's leave at this life's incarnation is refuted, with no declared-dead event", () => {
    // A member restarted at the incarnation its previous life left at: the cluster holds that life left,
    // and only a higher incarnation brings this one in.
    const h = harness();
    const { rules: r, self } = rules(h);
    r.dead({ kind: 'dead', name: 'self', incarnation: 1, from: 'self' });
    expect(self.incarnation).toBe(2);
    expect(declared(h)).toEqual([]);
  });
});

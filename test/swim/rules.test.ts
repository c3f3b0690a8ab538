import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT, UNKNOWN } from '../../src/membership/member-state.js';
import { isMemberEvent } from '../../src/swim/events.js';
import type { Update } from '../../src/swim/messages.js';
import type { Suspicion } from '../../src/swim/suspicion.js';
import { aliveOf, list, memberEvents, NO_META, rules } from './rules-fixture.js';
import { addressOf, harness } from './swim-context.js';

describe('MembershipRules, over a fake port', () => {
  it('merging a state exchange that lists a member dead suspects it, never declares it dead on hearsay', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r, suspected } = rules(h);
    r.merge(list([['x', 4, DEAD]]), 'peer', false);
    expect(suspected).toEqual([{ kind: 'suspect', name: 'x', incarnation: 4, from: 'peer' }]);
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(ALIVE);
  });

  it('merging a left member applies the leave; an alive stranger joins', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r } = rules(h);
    r.merge(
      list([
        ['x', 4, LEFT],
        ['y', 2, ALIVE],
      ]),
      'peer',
      false,
    );
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(LEFT);
    expect(h.ctx.view.table.stateOf(h.id('y'))).toBe(ALIVE);
    expect(h.events.map((e) => (!isMemberEvent(e) ? e.type : `${e.type} ${e.member} ${e.cause}`))).toEqual([
      'left x left',
      'alive y joined',
    ]);
  });

  it('a member heard alive again after a suspicion or a death is remembered for 10 probe intervals (flapping links)', () => {
    // memberlist-lan's probe interval is 1 s: the memory runs out 10 s after the comeback, not before.
    const h = harness();
    h.know('s', SUSPECT, 3);
    h.know('d', DEAD, 3);
    h.know('a', ALIVE, 3);
    const { rules: r } = rules(h);
    const alive = (name: string) =>
      r.alive({ kind: 'alive', name, address: addressOf(name), meta: new Uint8Array(0), incarnation: 4 });
    expect([h.id('s'), h.id('d'), h.id('a')].map((id) => r.cameBackRecently(id))).toEqual([
      false,
      false,
      false,
    ]);
    alive('s');
    alive('d');
    alive('a');
    // An alive member's newer incarnation is no comeback.
    expect([h.id('s'), h.id('d'), h.id('a')].map((id) => r.cameBackRecently(id))).toEqual([
      true,
      true,
      false,
    ]);
    h.clock.advance(10_000 - 1);
    expect(r.cameBackRecently(h.id('s'))).toBe(true);
    h.clock.advance(1);
    expect([h.id('s'), h.id('d')].map((id) => r.cameBackRecently(id))).toEqual([false, false]);
  });

  it('an alive statement at the incarnation of a death does not override it; a higher one does', () => {
    const h = harness();
    h.know('x', DEAD, 5);
    const { rules: r } = rules(h);
    const alive = { kind: 'alive', name: 'x', address: addressOf('x'), meta: new Uint8Array(0) } as const;
    r.alive({ ...alive, incarnation: 5 });
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(DEAD);
    r.alive({ ...alive, incarnation: 6 });
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(ALIVE);
  });

  it('a death declared by a member held dead or left is a suspicion of a member held alive, found by the chaos bench', () => {
    // bench/chaos, seed 4: a member isolated for 42 s declared the others dead; at the heal its freshest
    // deaths reached two of them by gossip to the recently dead, and every member then declared those
    // two dead, though they had never been cut off from anyone else.
    for (const accuserState of [DEAD, LEFT] as const) {
      const h = harness();
      h.know('x', ALIVE, 4);
      h.know('y', SUSPECT, 4);
      h.know('isolated', accuserState, 2);
      const { rules: r, suspected } = rules(h);
      r.dead({ kind: 'dead', name: 'x', incarnation: 4, from: 'isolated' });
      r.dead({ kind: 'dead', name: 'y', incarnation: 4, from: 'isolated' });
      expect(suspected).toEqual([{ kind: 'suspect', name: 'x', incarnation: 4, from: 'isolated' }]);
      expect([h.ctx.view.table.stateOf(h.id('x')), h.ctx.view.table.stateOf(h.id('y'))]).toEqual([
        ALIVE,
        SUSPECT,
      ]);
      expect(memberEvents(h)).toEqual([]);
    }
  });

  it('a death declared by a member back from the dead is a suspicion for gossipToTheDeadMs, found by the chaos bench', () => {
    // bench/chaos, seed 2: a member isolated for 39 s was alive again in two views 0.2 s before its
    // verdict on a healthy member reached them, which they believed.
    const h = harness();
    h.know('x', ALIVE, 4);
    h.know('back', DEAD, 2);
    const { rules: r, suspected } = rules(h);
    r.alive(aliveOf('back', 3));
    r.dead({ kind: 'dead', name: 'x', incarnation: 4, from: 'back' });
    expect(suspected.map((s) => `${s.name} ${s.from}`)).toEqual(['x back']);
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(ALIVE);
    // Once gossipToTheDeadMs has passed, its word is believed again.
    h.clock.advance(h.ctx.config.gossipToTheDeadMs);
    r.dead({ kind: 'dead', name: 'x', incarnation: 4, from: 'back' });
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(DEAD);
  });

  it('a death declared by a member held alive or suspect, or unknown, is believed as before', () => {
    for (const accuser of ['live', 'suspected', 'stranger']) {
      const h = harness();
      h.know('x', ALIVE, 4);
      h.know('live', ALIVE, 1);
      h.know('suspected', SUSPECT, 1);
      const { rules: r, suspected } = rules(h);
      r.dead({ kind: 'dead', name: 'x', incarnation: 4, from: accuser });
      expect(suspected).toEqual([]);
      expect(h.ctx.view.table.stateOf(h.id('x')), accuser).toBe(DEAD);
    }
  });

  it('held dead, this member withdraws the deaths it declared that wait to be gossiped, found by the chaos bench', () => {
    // bench/chaos, seed 1: a member isolated for 33 s came back and, on its word, five members declared
    // a healthy one dead: its verdict, reached while cut off, was still in its queue at the heal.
    const h = harness();
    h.know('x', DEAD, 4);
    h.know('y', DEAD, 4);
    const { rules: r, self } = rules(h);
    h.ctx.outbox.enqueue({ kind: 'dead', name: 'x', incarnation: 4, from: 'self' }, h.id('x'));
    h.ctx.outbox.enqueue({ kind: 'dead', name: 'y', incarnation: 4, from: 'peer' }, h.id('y'));
    self.accused(self.incarnation, 'suspect', 'peer');
    expect(queued(h).sort()).toEqual(['alive self', 'dead x', 'dead y']);
    r.dead({ kind: 'dead', name: 'self', incarnation: self.incarnation, from: 'peer' });
    expect(queued(h).sort()).toEqual(['alive self', 'dead y']);
    // Its view keeps its verdict: the accused refute when they hear of it.
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(DEAD);
    // A state exchange that lists it dead withdraws them too.
    h.ctx.outbox.enqueue({ kind: 'dead', name: 'x', incarnation: 4, from: 'self' }, h.id('x'));
    r.merge(list([['self', self.incarnation, SUSPECT]]), 'peer', false);
    expect(queued(h)).toContain('dead x');
    r.merge(list([['self', self.incarnation, DEAD]]), 'peer', false);
    expect(queued(h)).not.toContain('dead x');
  });

  it('a dead statement about this member makes it refute above it', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    r.dead({ kind: 'dead', name: 'self', incarnation: 3, from: 'peer' });
    expect(self.incarnation).toBe(4);
    expect(h.ctx.counters.refutations).toBe(1);
    expect(h.ctx.outbox.pending).toBe(1);
    expect(h.ctx.view.table.stateOf(h.ctx.view.selfId)).not.toBe(SUSPECT);
  });
});

/** What the member's next packet carries: the queued updates, each `kind name`. */
function queued(h: ReturnType<typeof harness>): string[] {
  h.ctx.outbox.sendPacket('peer', { type: 'gossip', from: 'self', updates: [] });
  const updates: readonly Update[] = h.packets.at(-1)!.packet.updates;
  return updates.map((u) => `${u.kind} ${u.kind === 'user' ? u.origin : u.name}`);
}

describe('MembershipRules.alive', () => {
  it('a stranger joins and its statement is gossiped on, unless learnt quietly while joining', () => {
    const h = harness();
    const { rules: r } = rules(h);
    r.alive(aliveOf('x', 1));
    r.alive(aliveOf('y', 1), true);
    expect([h.ctx.view.table.stateOf(h.id('x')), h.ctx.view.table.stateOf(h.id('y'))]).toEqual([
      ALIVE,
      ALIVE,
    ]);
    expect(queued(h)).toEqual(['alive x']);
  });

  it.each([
    { incarnation: 5, address: 'self.test:7946', refutes: 6, why: 'a newer life of ours: refuted above it' },
    {
      incarnation: 1,
      address: 'elsewhere:1',
      refutes: undefined,
      why: 'our name at another address: a conflict, not refuted',
    },
    {
      incarnation: 9,
      address: 'elsewhere:1',
      refutes: undefined,
      why: 'a newer claim elsewhere: a conflict, not refuted',
    },
    { incarnation: 1, address: 'self.test:7946', refutes: undefined, why: 'our own statement: nothing' },
    { incarnation: 0, address: 'elsewhere:1', refutes: undefined, why: 'an older life elsewhere: nothing' },
  ])('a statement about this member (incarnation 1): $why', ({ incarnation, address, refutes, why }) => {
    const h = harness();
    const { rules: r, self, conflicts } = rules(h);
    r.alive(aliveOf('self', incarnation, { address }));
    expect(conflicts).toEqual(why.includes('conflict') ? ['self elsewhere:1'] : []);
    expect(self.incarnation).toBe(refutes ?? 1);
    expect(h.ctx.counters.refutations).toBe(refutes === undefined ? 0 : 1);
    expect(h.ctx.view.table.stateOf(h.ctx.view.selfId)).toBe(ALIVE);
    expect(h.ctx.view.directory.addressOf(h.ctx.view.selfId)).toBe('self.test:7946');
  });

  it('the ceiling of forgotten lives holds back only members the view does not know', () => {
    const h = harness();
    h.know('x', ALIVE, 2);
    h.ctx.view.directory.intern('y', addressOf('y')); // named in the directory, unknown to the view
    const { rules: r } = rules(h, { ceilingOf: () => 10 });
    r.alive(aliveOf('x', 5));
    r.alive(aliveOf('y', 5));
    r.alive(aliveOf('z', 5));
    r.alive(aliveOf('w', 11));
    const { table } = h.ctx.view;
    expect(table.incarnationOf(h.id('x'))).toBe(5);
    expect([table.stateOf(h.id('y')), h.ctx.view.directory.find('z')]).toEqual([UNKNOWN, undefined]);
    expect(table.stateOf(h.id('w'))).toBe(ALIVE);
  });

  it('a newer life at another address, the old one silent, moves the member there and tells the port', () => {
    const h = harness();
    h.know('x', ALIVE, 1);
    const { rules: r, calls } = rules(h);
    r.alive(aliveOf('x', 2));
    expect(calls.addressChanged).toBe(0);
    r.alive(aliveOf('x', 3, { address: 'x.moved:7946' }), false, false, true);
    expect(calls.addressChanged).toBe(1);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe('x.moved:7946');
    expect(memberEvents(h)).toEqual(['update x address-changed']);
    expect(h.events[0]).toMatchObject({ previous: 'alive', address: 'x.moved:7946', incarnation: 3 });
  });

  it('reports new metadata of a live member, byte by byte, and only when it changed', () => {
    const h = harness();
    h.know('x', ALIVE, 1);
    const { rules: r } = rules(h);
    r.alive(aliveOf('x', 2, { meta: new Uint8Array([1, 2]) })); // none before: changed
    r.alive(aliveOf('x', 3, { meta: new Uint8Array([1, 2]) })); // the same bytes
    r.alive(aliveOf('x', 4, { meta: new Uint8Array([1, 3]) })); // same length, one byte differs
    r.alive(aliveOf('x', 5, { meta: new Uint8Array([1, 3, 0]) })); // one byte longer
    expect(memberEvents(h)).toEqual(['update x metadata', 'update x metadata', 'update x metadata']);
  });
});

describe('MembershipRules.dead', () => {
  it('a death or a leave of a member the view does not know changes nothing', () => {
    const h = harness();
    h.ctx.view.directory.intern('y', addressOf('y')); // named in the directory, unknown to the view
    const { rules: r } = rules(h);
    r.dead({ kind: 'dead', name: 'nobody', incarnation: 5, from: 'peer' });
    r.dead({ kind: 'dead', name: 'y', incarnation: 5, from: 'peer' });
    r.dead({ kind: 'dead', name: 'y', incarnation: 5, from: 'y' }); // its own leave
    expect(h.ctx.view.table.stateOf(h.ctx.view.selfId)).toBe(ALIVE);
    expect([h.ctx.view.table.stateOf(h.id('y')), h.ctx.view.directory.find('nobody')]).toEqual([
      UNKNOWN,
      undefined,
    ]);
    expect([h.ctx.outbox.pending, h.events.length]).toEqual([0, 0]);
  });

  it('a death ends the suspicion held of the member, reported with it', () => {
    const h = harness();
    h.know('x', SUSPECT, 3);
    let cancelled = 0;
    const held = { accuser: 'z', confirmations: 2, cancel: () => cancelled++ } as unknown as Suspicion;
    const { rules: r } = rules(h, { takeSuspicion: () => held });
    r.dead({ kind: 'dead', name: 'x', incarnation: 3, from: 'peer' });
    expect(cancelled).toBe(1);
    expect(h.events.flatMap((e) => (e.type === 'dead' ? [e.confirmations] : []))).toEqual([2]);
  });
});

describe('MembershipRules.merge', () => {
  it('a member that knew nobody learns members quietly; one that knew some gossips them on', () => {
    const joining = harness();
    rules(joining).rules.merge(list([['y', 2, ALIVE]]), 'peer', false);
    expect(joining.ctx.view.table.stateOf(joining.id('y'))).toBe(ALIVE);
    expect(queued(joining)).toEqual([]);
    const member = harness();
    member.know('x', ALIVE, 1);
    rules(member).rules.merge(
      list([
        ['y', 2, ALIVE],
        ['z', 2, LEFT],
      ]),
      'peer',
      false,
    );
    expect(queued(member)).toEqual(['alive y']);
    member.know('z', ALIVE, 1);
    rules(member).rules.merge(list([['z', 2, LEFT]]), 'peer', false);
    expect(queued(member)[0]).toBe('dead z'); // unsent: first
  });

  it('reads no further than its shortest column', () => {
    const h = harness();
    const members = list([['y', 2, ALIVE]]);
    rules(h).rules.merge(
      {
        ...members,
        addresses: [...members.addresses, addressOf('q')],
        incarnations: Uint32Array.of(2, 2),
        states: Uint8Array.of(ALIVE, ALIVE),
        metas: [NO_META, NO_META],
      },
      'peer',
      false,
    );
    expect(h.ctx.view.clusterSize).toBe(2);
    expect(h.ctx.view.directory.size).toBe(2);
  });

  it('this member listed at another address is a conflict, never refuted', () => {
    const h = harness();
    const { rules: r, self, conflicts } = rules(h);
    r.merge({ ...list([['self', 1, ALIVE]]), addresses: ['elsewhere:1'] }, 'peer', false);
    expect(self.incarnation).toBe(1);
    expect(h.ctx.counters.refutations).toBe(0);
    expect(conflicts).toEqual(['self elsewhere:1']);
  });

  it('a member held dead at or above the listed life is told of its death; a newer life revives it', () => {
    const h = harness();
    h.know('a', ALIVE, 1);
    h.know('x', DEAD, 5);
    h.know('l', LEFT, 5);
    h.know('n', DEAD, 5);
    const { rules: r } = rules(h, { ceilingOf: () => 10 });
    r.merge(
      list([
        ['x', 5, ALIVE],
        ['l', 5, ALIVE],
        ['n', 6, ALIVE],
      ]),
      'peer',
      false,
    );
    // The notice leads its packet (which the outbox fills with what waits, the revival of n among them).
    expect(h.packets.map(({ to, packet }) => [to, packet.type, packet.updates[0]])).toEqual([
      [addressOf('x'), 'gossip', { kind: 'dead', name: 'x', incarnation: 5, from: 'self' }],
    ]);
    const { table } = h.ctx.view;
    expect([table.stateOf(h.id('x')), table.stateOf(h.id('l')), table.stateOf(h.id('n'))]).toEqual([
      DEAD,
      LEFT,
      ALIVE,
    ]);
  });

  it('a death listed of a member the view does not know is not suspected', () => {
    const h = harness();
    const { rules: r, suspected } = rules(h);
    r.merge(list([['z', 3, DEAD]]), 'peer', false);
    expect(suspected).toEqual([]);
    expect(h.ctx.view.directory.find('z')).toBeUndefined();
  });
});

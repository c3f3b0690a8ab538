/**
 * The `refuted` event and the joiner's notice (src/swim/self.ts, rules.ts): a member that hears itself
 * held suspect, dead or left, of this life or an older one, answers and reports it once per incarnation
 * accused; a seed that held a joiner's older life suspect, dead or left tells the joiner so, since the
 * reply to its join, built after the merge, holds it alive.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import type { RefutedEvent } from '../../src/swim/events.js';
import { list, rules } from './rules-fixture.js';
import { suspicions } from './suspicions-fixture.js';
import { addressOf, harness } from './swim-context.js';

const refuted = (h: ReturnType<typeof harness>): RefutedEvent[] =>
  h.events.flatMap((e) => (e.type === 'refuted' ? [e] : []));

describe('the refuted event', () => {
  it('reports a suspicion of itself once per incarnation, with the accuser, and refutes it', () => {
    const h = harness();
    const { s, self } = suspicions(h);
    h.clock.advance(1234);
    s.suspect({ kind: 'suspect', name: 'self', incarnation: 1, from: 'peer' });
    s.suspect({ kind: 'suspect', name: 'self', incarnation: 1, from: 'other' });
    expect(self.incarnation).toBe(2);
    expect(refuted(h)).toEqual([
      {
        type: 'refuted',
        member: 'self',
        accuser: 'peer',
        held: 'suspect',
        incarnation: 1,
        atMs: 1234,
        wallMs: h.clock.wallNow(),
      },
    ]);
    // Suspected again at the refuting life: a new accusation.
    s.suspect({ kind: 'suspect', name: 'self', incarnation: 2, from: 'other' });
    expect(refuted(h).map((e) => [e.accuser, e.incarnation])).toEqual([
      ['peer', 1],
      ['other', 2],
    ]);
    expect(self.incarnation).toBe(3);
  });

  it('reports a death, and an older life leave, below its incarnation too (a restart)', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    self.incarnation = 10;
    r.dead({ kind: 'dead', name: 'self', incarnation: 4, from: 'self' });
    expect(refuted(h).map((e) => [e.held, e.accuser, e.incarnation])).toEqual([['left', 'self', 4]]);
    r.dead({ kind: 'dead', name: 'self', incarnation: 7, from: 'peer' });
    // Copies of an accusation at or below the one reported stay quiet.
    r.dead({ kind: 'dead', name: 'self', incarnation: 7, from: 'other' });
    r.dead({ kind: 'dead', name: 'self', incarnation: 5, from: 'other' });
    expect(refuted(h).map((e) => [e.held, e.accuser, e.incarnation])).toEqual([
      ['left', 'self', 4],
      ['dead', 'peer', 7],
    ]);
    // Below its own life it announces itself again instead of raising its incarnation.
    expect(self.incarnation).toBe(10);
  });

  it('a leaving member neither refutes nor reports', () => {
    const h = harness();
    const { rules: r, self } = rules(h);
    h.ctx.lifecycle.phase = 'leaving';
    r.dead({ kind: 'dead', name: 'self', incarnation: 3, from: 'peer' });
    expect(refuted(h)).toEqual([]);
    expect(self.incarnation).toBe(1);
  });
});

describe('a join from a member whose older life this member held suspect, dead or left', () => {
  it.each([
    ['suspect', SUSPECT],
    ['dead', DEAD],
    ['left', LEFT],
  ] as const)(
    'held %s: the joiner is told of that life by a suspicion, and comes back alive here',
    (_, state) => {
      const h = harness();
      h.know('j', state, 5);
      const { rules: r } = rules(h);
      expect(r.merge(list([['j', 9, ALIVE]]), 'j', true)).toBeUndefined();
      expect(h.ctx.view.table.stateOf(h.id('j'))).toBe(ALIVE);
      const told = h.packets.filter(({ to }) => to === addressOf('j'));
      expect(told.map(({ packet }) => [packet.type, packet.updates[0]])).toEqual([
        ['gossip', { kind: 'suspect', name: 'j', incarnation: 5, from: 'self' }],
      ]);
    },
  );

  it('says nothing to a joiner it held alive, to a first join, or outside a join', () => {
    const h = harness();
    h.know('a', ALIVE, 5);
    h.know('d', DEAD, 5);
    const { rules: r } = rules(h);
    r.merge(list([['a', 9, ALIVE]]), 'a', true);
    r.merge(list([['new', 1, ALIVE]]), 'new', true);
    // Not a join: a state exchange with a member back from a partition, which gossip revives anyway.
    r.merge(list([['d', 9, ALIVE]]), 'd', false);
    expect(h.packets).toEqual([]);
  });
});

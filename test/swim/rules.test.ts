import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import type { MemberList, SuspectUpdate } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { MembershipRules, type RulesPort } from '../../src/swim/rules.js';
import { SelfState } from '../../src/swim/self.js';
import { addressOf, harness } from './swim-context.js';

function rules(h: ReturnType<typeof harness>) {
  const suspected: SuspectUpdate[] = [];
  const port: RulesPort = {
    takeSuspicion: () => undefined,
    suspect: (s) => suspected.push(s),
    ceilingOf: () => -1,
    pruneTombstones: () => {},
    addressChanged: () => {},
  };
  const self = new SelfState(h.ctx, 1, new Uint8Array(0));
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  return { rules: new MembershipRules(h.ctx, self, reporter, port), suspected, self };
}

function list(entries: Array<[string, number, number]>): MemberList {
  return {
    names: entries.map(([n]) => n),
    addresses: entries.map(([n]) => addressOf(n)),
    incarnations: Uint32Array.from(entries.map(([, i]) => i)),
    states: Uint8Array.from(entries.map(([, , s]) => s)),
    metas: entries.map(() => new Uint8Array(0)),
  };
}

describe('MembershipRules, over a fake port', () => {
  it('merging a state exchange that lists a member dead suspects it, never declares it dead on hearsay', () => {
    const h = harness();
    h.know('x', ALIVE, 4);
    const { rules: r, suspected } = rules(h);
    r.merge(list([['x', 4, DEAD]]), 'peer');
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
    );
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(LEFT);
    expect(h.ctx.view.table.stateOf(h.id('y'))).toBe(ALIVE);
    expect(h.events.map((e) => (e.type === 'message' ? e.type : `${e.type} ${e.member} ${e.cause}`))).toEqual(
      ['left x left', 'alive y joined'],
    );
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

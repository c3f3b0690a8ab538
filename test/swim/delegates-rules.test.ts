/**
 * The membership rules with the application's filters: the alive filter vets strangers and live members
 * that move or change their metadata (never this member, never a repeat), a refused joiner refuses its
 * whole join, and the merge filter refuses a whole exchange before anything of it is merged.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, UNKNOWN } from '../../src/membership/member-state.js';
import { DelegateGuard } from '../../src/swim/delegate-guard.js';
import type { CandidateMember, SwimDelegates } from '../../src/swim/delegates.js';
import type { MemberList } from '../../src/swim/messages.js';
import { Reporter } from '../../src/swim/reporter.js';
import { MembershipRules } from '../../src/swim/rules.js';
import { SelfState } from '../../src/swim/self.js';
import { addressOf, harness } from './swim-context.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const NO_META = new Uint8Array(0);

/**
 * Rules over a fake port, with `delegates`; `ceiling`: the incarnation forgotten lives must exceed;
 * `refusesJoin`: the conflict policy is `holder` (true) or `majority`.
 */
function rules(delegates: SwimDelegates, { ceiling = -1, refusesJoin = true } = {}) {
  const h = harness();
  const reporter = new Reporter(
    h.ctx,
    (e) => h.events.push(e),
    () => {},
  );
  const port = {
    takeSuspicion: () => undefined,
    suspect: () => {},
    ceilingOf: () => ceiling,
    pruneTombstones: () => {},
    addressChanged: () => {},
    // Conflicts are `rules-conflicts.test.ts`'s; here a claim of a held name only has to be told apart.
    conflicts: {
      claimed: () => {},
      seen: () => {},
      claimedSelf: () => {},
      refusesJoin,
    },
  };
  const self = new SelfState(h.ctx, reporter, 1, NO_META);
  const ctx = { ...h.ctx, delegates: new DelegateGuard(delegates, h.ctx.counters) };
  const r = new MembershipRules(ctx, self, reporter, port);
  return { h, r };
}

/** An alive filter that admits only `cluster=a`, and records what it was asked. */
function clusterFilter() {
  const asked: CandidateMember[] = [];
  const delegates: SwimDelegates = {
    filterAlive: (m) => {
      asked.push(m);
      const cluster = new TextDecoder().decode(m.meta);
      return cluster === 'cluster=a' ? undefined : `${m.name} is in ${cluster || 'no cluster'}`;
    },
  };
  return { asked, delegates };
}

const alive = (name: string, incarnation: number, meta = text('cluster=a'), address = addressOf(name)) =>
  ({ kind: 'alive', name, address, incarnation, meta }) as const;

function list(
  entries: Array<{ name: string; incarnation: number; state?: number; meta?: string }>,
): MemberList {
  return {
    names: entries.map((e) => e.name),
    addresses: entries.map((e) => addressOf(e.name)),
    incarnations: Uint32Array.from(entries.map((e) => e.incarnation)),
    states: Uint8Array.from(entries.map((e) => e.state ?? ALIVE)),
    metas: entries.map((e) => text(e.meta ?? 'cluster=a')),
  };
}

describe('the alive filter in the membership rules', () => {
  it('keeps out a stranger it refuses, takes no slot of the directory for it, and counts it', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    r.alive(alive('x', 1, text('cluster=b')));
    expect(h.ctx.view.directory.find('x')).toBeUndefined();
    expect(h.ctx.outbox.pending).toBe(0);
    expect(h.events).toEqual([]);
    expect(h.ctx.counters.aliveRefused).toBe(1);
    expect(asked).toEqual([{ name: 'x', address: addressOf('x'), meta: text('cluster=b'), incarnation: 1 }]);
  });

  it('admits a stranger it accepts, and is not asked again about the same life', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    r.alive(alive('x', 1));
    r.alive(alive('x', 1));
    r.alive(alive('x', 2)); // a refutation-like bump at the same address and metadata
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(ALIVE);
    expect(h.ctx.view.table.incarnationOf(h.id('x'))).toBe(2);
    expect(asked.map((m) => m.incarnation)).toEqual([1]);
    expect(h.ctx.counters.aliveRefused).toBe(0);
  });

  it('vets a live member that changes its metadata or its address, and keeps the old life when it refuses', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    r.alive(alive('x', 1));
    r.alive(alive('x', 2, text('cluster=b')));
    expect(h.ctx.view.table.incarnationOf(h.id('x'))).toBe(1);
    expect(h.ctx.view.table.metadataOf(h.id('x'))).toEqual(text('cluster=a'));
    // A move (the old address found silent), not a conflict: the conflicts mechanism calls it so.
    r.alive(alive('x', 3, text('cluster=a'), 'elsewhere:1'), false, false, true);
    expect(h.ctx.view.directory.addressOf(h.id('x'))).toBe('elsewhere:1');
    expect(asked.map((m) => [m.incarnation, m.address])).toEqual([
      [1, addressOf('x')],
      [2, addressOf('x')],
      [3, 'elsewhere:1'],
    ]);
    expect(h.ctx.counters.aliveRefused).toBe(1);
  });

  it('is not asked about a statement that would not be believed anyway, nor about this member', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    r.alive(alive('x', 5));
    r.alive(alive('x', 4, text('cluster=b'))); // older: loses whatever the filter says
    r.alive(alive('self', 1, text('cluster=b'))); // this member itself
    expect(asked.map((m) => `${m.name} ${m.incarnation}`)).toEqual(['x 5']);
    expect(h.ctx.counters.aliveRefused).toBe(0);
  });

  it('fails closed: a filter that throws refuses, and the error is counted', () => {
    const { h, r } = rules({
      filterAlive: () => {
        throw new Error('bug');
      },
    });
    r.alive(alive('x', 1));
    expect(h.ctx.view.directory.find('x')).toBeUndefined();
    expect(h.ctx.counters.delegateErrors).toBe(1);
    expect(h.ctx.counters.aliveRefused).toBe(1);
  });
});

describe('the filters in a merge', () => {
  it('refuses a join whose joiner the alive filter refuses, with its reason, and merges nothing of it', () => {
    const { delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    const members = list([
      { name: 'j', incarnation: 1, meta: 'cluster=b' },
      { name: 'friend', incarnation: 1 },
    ]);
    expect(r.merge(members, 'j', true)).toEqual({ code: 'FDKIT_JOIN_REJECTED', reason: 'j is in cluster=b' });
    expect(h.ctx.view.directory.find('friend')).toBeUndefined();
    expect(h.ctx.counters.aliveRefused).toBe(1);
  });

  it('outside a join, skips only the refused entries and merges the rest', () => {
    const { delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    const members = list([
      { name: 'j', incarnation: 1, meta: 'cluster=b' },
      { name: 'friend', incarnation: 1 },
    ]);
    expect(r.merge(members, 'j', false)).toBeUndefined();
    expect(h.ctx.view.directory.find('j')).toBeUndefined();
    expect(h.ctx.view.table.stateOf(h.id('friend'))).toBe(ALIVE);
  });

  it('asks the alive filter once about an accepted joiner', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    expect(r.merge(list([{ name: 'j', incarnation: 1 }]), 'j', true)).toBeUndefined();
    expect(h.ctx.view.table.stateOf(h.id('j'))).toBe(ALIVE);
    expect(asked.map((m) => m.name)).toEqual(['j']);
  });

  it('hands the merge filter every entry and the join flag, and merges nothing when it refuses', () => {
    const calls: Array<{ names: string[]; states: number; join: boolean }> = [];
    const { h, r } = rules({
      filterMerge: (members, join) => {
        calls.push({ names: members.map((m) => m.name), states: members.length, join });
        return members.some((m) => new TextDecoder().decode(m.meta) === 'cluster=b')
          ? 'another cluster'
          : undefined;
      },
    });
    h.know('x', ALIVE, 4);
    const refused = list([
      { name: 'x', incarnation: 4, state: DEAD },
      { name: 'y', incarnation: 1, state: LEFT },
      { name: 'z', incarnation: 1, meta: 'cluster=b' },
    ]);
    expect(r.merge(refused, 'z', false)).toEqual({ code: 'FDKIT_JOIN_REJECTED', reason: 'another cluster' });
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(ALIVE);
    expect(h.ctx.view.directory.find('z')).toBeUndefined();
    expect(h.ctx.counters.mergesRefused).toBe(1);
    expect(r.merge(list([{ name: 'w', incarnation: 1 }]), 'w', true)).toBeUndefined();
    expect(h.ctx.view.table.stateOf(h.id('w'))).toBe(ALIVE);
    expect(calls).toEqual([
      { names: ['x', 'y', 'z'], states: 3, join: false },
      { names: ['w'], states: 1, join: true },
    ]);
    expect(h.ctx.counters.mergesRefused).toBe(1);
  });

  it('a merge filter that throws refuses the exchange', () => {
    const { h, r } = rules({
      filterMerge: () => {
        throw new Error('bug');
      },
    });
    expect(r.merge(list([{ name: 'w', incarnation: 1 }]), 'w', true)).toEqual({
      code: 'FDKIT_JOIN_REJECTED',
      reason: 'the merge filter failed',
    });
    expect(h.ctx.view.directory.find('w')).toBeUndefined();
    expect(h.ctx.counters.delegateErrors).toBe(1);
    expect(h.ctx.counters.mergesRefused).toBe(1);
  });
});

describe('the alive filter in a join', () => {
  it('vets the joiner once as such, and every other entry as outside a join', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    const members = list([
      { name: 'j', incarnation: 1 },
      { name: 'other', incarnation: 1, meta: 'cluster=b' },
    ]);
    expect(r.merge(members, 'j', true)).toBeUndefined();
    expect(h.ctx.view.table.stateOf(h.id('j'))).toBe(ALIVE);
    expect(h.ctx.view.directory.find('other')).toBeUndefined();
    expect(asked.map((m) => m.name)).toEqual(['j', 'other']);
    expect(h.ctx.counters.aliveRefused).toBe(1);
  });

  it('refuses no join over the joiner own entry when it is not alive, or lies past the shortest column', () => {
    const { delegates } = clusterFilter();
    const left = rules(delegates);
    const leaving = list([{ name: 'j', incarnation: 1, state: LEFT, meta: 'cluster=b' }]);
    expect(left.r.merge(leaving, 'j', true)).toBeUndefined();
    const past = rules(delegates);
    const members = list([
      { name: 'friend', incarnation: 1 },
      { name: 'j', incarnation: 1, meta: 'cluster=b' },
    ]);
    // The addresses column holds one entry: the list is read as one entry long.
    expect(past.r.merge({ ...members, addresses: [addressOf('friend')] }, 'j', true)).toBeUndefined();
    expect(past.h.ctx.view.table.stateOf(past.h.id('friend'))).toBe(ALIVE);
    expect(past.h.ctx.view.directory.find('j')).toBeUndefined();
    expect([left.h.ctx.counters.aliveRefused, past.h.ctx.counters.aliveRefused]).toEqual([0, 0]);
  });

  it('is not asked about a joiner at or below the ceiling of forgotten lives: it is told of its death', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates, { ceiling: 3 });
    expect(r.merge(list([{ name: 'j', incarnation: 3 }]), 'j', true)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(h.ctx.view.directory.find('j')).toBeUndefined();
    expect(h.packets.map(({ to, packet }) => [to, packet.updates[0]])).toEqual([
      [addressOf('j'), { kind: 'dead', name: 'j', incarnation: 3, from: 'self' }],
    ]);
  });

  it('is never asked about this member, even when a joiner elsewhere claims its name (majority policy)', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates, { refusesJoin: false });
    const members = list([
      { name: 'self', incarnation: 5, meta: 'cluster=b' },
      { name: 'friend', incarnation: 1 },
    ]);
    const claim = { ...members, addresses: ['impostor:1', addressOf('friend')] };
    expect(r.merge(claim, 'self', true)).toBeUndefined();
    expect(asked.map((m) => m.name)).toEqual(['friend']);
    expect(h.ctx.view.table.stateOf(h.id('friend'))).toBe(ALIVE);
    expect(h.ctx.counters.aliveRefused).toBe(0);
  });
});

describe('the alive filter and a member the view forgot', () => {
  it('vets it as a stranger, even back at its old address with its old (empty) metadata', () => {
    const { asked, delegates } = clusterFilter();
    const { h, r } = rules(delegates);
    h.ctx.view.directory.intern('x', addressOf('x')); // named in the directory, unknown to the view
    r.alive(alive('x', 1, NO_META));
    expect(asked.map((m) => m.name)).toEqual(['x']);
    expect(h.ctx.view.table.stateOf(h.id('x'))).toBe(UNKNOWN);
    expect(h.ctx.counters.aliveRefused).toBe(1);
  });
});

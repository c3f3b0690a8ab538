/**
 * The downing core on virtual time: a decision exactly `stableAfterMs` after the last change, not
 * before; the majority downs the unreachable and the minority itself; a refutation before the wait ends
 * decides nothing; an unsettled view downs all at `stableAfterMs + downAllWhenUnstableMs`; a member that
 * keeps coming back is held indirectly connected and downed; lease-majority races with the minority
 * delayed.
 */
import { describe, expect, it } from 'vitest';
import { DowningCore } from '../../src/downing/downing-core.js';
import type { DowningDecision, DowningStrategy } from '../../src/downing/downing-types.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

const STABLE = 5_000;
const EXTRA = 3_750;

function core(strategy: DowningStrategy, others: readonly string[], downAll: number | 'off' = EXTRA) {
  const clock = new VirtualClock();
  const decisions: DowningDecision[] = [];
  const c = new DowningCore(
    {
      self: { name: 'a', age: 1 },
      strategy,
      stableAfterMs: STABLE,
      downAllWhenUnstableMs: downAll === 'off' ? undefined : downAll,
    },
    clock,
    (d) => decisions.push(d),
  );
  for (const [i, name] of others.entries()) c.observe(name, 'alive', 2 + i);
  // Joining is a change too: let the view settle before the test's cut.
  clock.advance(STABLE);
  return { c, clock, decisions };
}

describe('DowningCore', () => {
  it('the majority downs the unreachable exactly stableAfterMs after the last change, not before', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    expect(decisions).toEqual([]);
    c.observe('d', 'suspect', 5);
    clock.advance(1_000);
    c.observe('e', 'suspect', 6);
    c.observe('d', 'dead', 5); // suspect to dead: still unreachable, no change
    clock.advance(STABLE - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toEqual([
      {
        kind: 'down',
        members: ['d', 'e'],
        strategy: 'keep-majority',
        reason: 'majority: 3 of 5 reachable',
        atMs: clock.now(),
      },
    ]);
    expect(c.sides().reachable.map((m) => m.name)).toEqual(['a', 'b', 'c']);
    // The downed are gone: the unstable timer is off, nothing more is decided.
    clock.advance(10 * STABLE);
    expect(decisions).toHaveLength(1);
  });

  it('the minority downs itself, once, and decides nothing after', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    for (const name of ['c', 'd', 'e']) c.observe(name, 'suspect', 0);
    clock.advance(STABLE);
    expect(decisions).toEqual([
      {
        kind: 'downed-self',
        strategy: 'keep-majority',
        reason: 'minority: 2 of 5 reachable',
        atMs: clock.now(),
        reachable: ['a', 'b'],
        unreachable: ['c', 'd', 'e'],
      },
    ]);
    expect(c.downedSelf).toBe(true);
    c.observe('c', 'alive', 0);
    c.observe('f', 'alive', 9);
    clock.advance(10 * STABLE);
    expect(decisions).toHaveLength(1);
  });

  it('decides nothing when the suspect refutes before the wait ends, and a left member is no failure', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c']);
    c.observe('b', 'suspect', 2);
    clock.advance(STABLE - 1);
    c.observe('b', 'alive', 2);
    c.observe('c', 'left', 3);
    clock.advance(10 * STABLE);
    expect(decisions).toEqual([]);
    expect(c.sides()).toEqual({
      reachable: [
        { name: 'a', age: 1 },
        { name: 'b', age: 2 },
      ],
      unreachable: [],
    });
  });

  it('downs all when the view does not settle for stableAfterMs + downAllWhenUnstableMs', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    c.observe('e', 'suspect', 0);
    const since = clock.now();
    // Members come and go every second: the wait starts again each time, so no strategy decides.
    for (let i = 0; clock.now() - since < STABLE + EXTRA - 1_000; i++) {
      clock.advance(1_000);
      c.observe(`x${i}`, 'alive', 100 + i);
    }
    expect(decisions).toEqual([]);
    clock.advance(since + STABLE + EXTRA - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([
      { kind: 'downed-self', strategy: 'unstable', atMs: since + STABLE + EXTRA },
    ]);
  });

  it('without down-all-when-unstable, an unsettled view waits for as long as it takes', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e'], 'off');
    c.observe('e', 'suspect', 0);
    for (let i = 0; i < 20; i++) {
      clock.advance(1_000);
      c.observe(`x${i}`, 'alive', 100 + i);
    }
    expect(decisions).toEqual([]);
    clock.advance(STABLE);
    expect(decisions).toMatchObject([{ kind: 'down', members: ['e'] }]);
  });

  it('holds a member that keeps coming back indirectly connected, and the majority downs it', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    // e is seen by some and not by others: suspected here, refuted, suspected again, again and again.
    for (let i = 0; i < 6; i++) {
      c.observe('e', i % 2 === 0 ? 'suspect' : 'alive', 5);
      clock.advance(1_000);
    }
    // Its second return (3 s into the flapping) made it indirectly connected, so it has counted as
    // unreachable since its second suspicion (2 s in): the last change that counted, since that return
    // changed nothing and its flips after it no longer reset the wait.
    const lastCounted = clock.now() - 4_000;
    clock.advance(lastCounted + STABLE - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([{ kind: 'down', members: ['e'], reason: 'majority: 4 of 5 reachable' }]);
  });

  it('crashes one after the other: each is downed by the members still counted', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    c.observe('d', 'dead', 0);
    clock.advance(STABLE);
    c.observe('e', 'dead', 0);
    clock.advance(STABLE);
    c.observe('c', 'dead', 0);
    clock.advance(STABLE);
    // Without the earlier downs, 2 of 5 would be a minority: the last two would down themselves.
    expect(decisions.map((d) => [d.kind, d.reason])).toEqual([
      ['down', 'majority: 4 of 5 reachable'],
      ['down', 'majority: 3 of 4 reachable'],
      ['down', 'majority: 2 of 3 reachable'],
    ]);
  });

  it('takes a downed member back when a new life of it is alive', () => {
    const { c, clock, decisions } = core({ name: 'keep-majority' }, ['b', 'c']);
    c.observe('c', 'dead', 3);
    clock.advance(STABLE);
    expect(decisions).toMatchObject([{ kind: 'down', members: ['c'] }]);
    c.observe('c', 'alive', 50);
    expect(c.sides().reachable).toContainEqual({ name: 'c', age: 50 });
  });
});

describe('lease-majority', () => {
  /** A core of a, b and c racing for a lease that answers `held`, with every call's time recorded. */
  function racing(held: boolean, self = 'a') {
    const clock = new VirtualClock();
    const calls: number[] = [];
    const owners: string[] = [];
    const decisions: DowningDecision[] = [];
    const lease = {
      acquire: (owner: string) => {
        calls.push(clock.now());
        owners.push(owner);
        return Promise.resolve(held);
      },
    };
    const c = new DowningCore(
      {
        self: { name: self, age: 1 },
        strategy: { name: 'lease-majority', lease, acquireLeaseDelayForMinorityMs: 2_000 },
        stableAfterMs: STABLE,
        downAllWhenUnstableMs: undefined,
      },
      clock,
      (d) => decisions.push(d),
    );
    for (const name of ['a', 'b', 'c', 'd'].filter((n) => n !== self).slice(0, 2))
      c.observe(name, 'alive', 2);
    return { c, clock, calls, owners, decisions };
  }

  it('the majority tries for the lease at once and, holding it, downs the unreachable', async () => {
    const { c, clock, calls, decisions } = racing(true);
    c.observe('c', 'suspect', 2);
    const cut = clock.now();
    clock.advance(STABLE);
    expect(calls).toEqual([cut + STABLE]);
    await Promise.resolve();
    expect(decisions).toMatchObject([
      { kind: 'down', members: ['c'], reason: 'the majority holds the lease' },
    ]);
  });

  it('the minority waits its delay before it tries, and without the lease downs itself', async () => {
    const { c, clock, calls, decisions } = racing(false);
    c.observe('b', 'suspect', 2);
    c.observe('c', 'suspect', 2);
    const cut = clock.now();
    clock.advance(STABLE + 1_999);
    expect(calls).toEqual([]);
    clock.advance(1);
    expect(calls).toEqual([cut + STABLE + 2_000]);
    await Promise.resolve();
    expect(decisions).toMatchObject([{ kind: 'downed-self', reason: 'the minority did not get the lease' }]);
  });

  it('asks for the lease in the name of its side: the lowest name it reaches, itself included', async () => {
    // c with a and b: a side of all three is named a; c cut off alone is named c.
    const all = racing(true, 'c');
    all.c.observe('b', 'suspect', 2);
    all.clock.advance(STABLE);
    expect(all.owners).toEqual(['a']);
    const alone = racing(false, 'c');
    alone.c.observe('a', 'suspect', 2);
    alone.c.observe('b', 'suspect', 2);
    alone.clock.advance(STABLE + 2_000);
    expect(alone.owners).toEqual(['c']);
  });

  it('a lease that throws or rejects is not held: the side downs itself', async () => {
    for (const acquire of [
      () => {
        throw new Error('no service');
      },
      () => Promise.reject(new Error('no service')),
    ]) {
      const clock = new VirtualClock();
      const decisions: DowningDecision[] = [];
      const c = new DowningCore(
        {
          self: { name: 'a', age: 1 },
          strategy: { name: 'lease-majority', lease: { acquire } },
          stableAfterMs: STABLE,
          downAllWhenUnstableMs: undefined,
        },
        clock,
        (d) => decisions.push(d),
      );
      for (const name of ['b', 'c']) c.observe(name, 'alive', 2);
      c.observe('c', 'suspect', 2);
      clock.advance(STABLE);
      await Promise.resolve();
      await Promise.resolve();
      expect(decisions).toMatchObject([
        { kind: 'downed-self', reason: 'the majority did not get the lease' },
      ]);
    }
  });

  it('without a delay of its own, the minority waits stableAfterMs again before it tries', async () => {
    const clock = new VirtualClock();
    const calls: number[] = [];
    const c = new DowningCore(
      {
        self: { name: 'a', age: 1 },
        strategy: {
          name: 'lease-majority',
          lease: {
            acquire: () => {
              calls.push(clock.now());
              return Promise.resolve(false);
            },
          },
        },
        stableAfterMs: STABLE,
        downAllWhenUnstableMs: undefined,
      },
      clock,
      () => undefined,
    );
    for (const name of ['b', 'c']) c.observe(name, 'alive', 2);
    c.observe('b', 'suspect', 2);
    c.observe('c', 'suspect', 2);
    const cut = clock.now();
    clock.advance(2 * STABLE - 1);
    expect(calls).toEqual([]);
    clock.advance(1);
    expect(calls).toEqual([cut + 2 * STABLE]);
  });

  it('a minority racing for the lease is not downed as unstable meanwhile: its view settled', async () => {
    const clock = new VirtualClock();
    const decisions: DowningDecision[] = [];
    const c = new DowningCore(
      {
        self: { name: 'a', age: 1 },
        strategy: {
          name: 'lease-majority',
          lease: { acquire: () => Promise.resolve(true) },
          acquireLeaseDelayForMinorityMs: 2 * STABLE,
        },
        stableAfterMs: STABLE,
        downAllWhenUnstableMs: STABLE,
      },
      clock,
      (d) => decisions.push(d),
    );
    for (const name of ['b', 'c']) c.observe(name, 'alive', 2);
    clock.advance(STABLE);
    c.observe('b', 'suspect', 2);
    c.observe('c', 'suspect', 2);
    // The unstable deadline (2 × STABLE) passes while it waits its delay (STABLE + 2 × STABLE).
    clock.advance(3 * STABLE);
    await Promise.resolve();
    expect(decisions).toMatchObject([
      { kind: 'down', members: ['b', 'c'], reason: 'the minority holds the lease' },
    ]);
  });
});

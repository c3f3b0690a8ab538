/**
 * The leader hint (`src/omega/`): the default rank from metadata, the sans-I/O core's rules on a virtual
 * clock (ranking, moving at once off an ineligible leader, the hysteresis of a comeback, epochs, every
 * transition), option validation, and `LeaderHint` on real `createNode` members over the in-memory
 * network, where killing the leader moves every survivor's hint to the same next leader, and on heartbeat
 * monitors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import {
  LeaderBaseline,
  type LeaderChange,
  LeaderCore,
  type LeaderInput,
} from '../../src/omega/leader-core.js';
import { LeaderHint, type MembershipSource } from '../../src/omega/leader-hint.js';
import { DEFAULT_STABLE_FOR_MS } from '../../src/omega/leader-options.js';
import { priorityFromMeta } from '../../src/omega/priority.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { memberEvent } from '../support/member-event.js';
import {
  holds,
  MEMORY_CONFIG,
  type Member,
  MemoryCluster,
  run,
  runUntil,
  thrown,
} from '../support/node-harness.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('priorityFromMeta', () => {
  it.each([
    ['priority=10', 10],
    ['zone=b priority=7', 7],
    ['priority=-2;dc=eu', -2],
    ['a=1,priority=1.5,b=2', 1.5],
    ['x=1&priority=+3', 3],
    ['  priority=4  ', 4],
    ['{"priority":9,"zone":"b"}', 9],
    ['{"priority":"9"}', 0],
    ['{"priority":', 0],
    ['nopriority=5', 0],
    ['priority=5x', 0],
    ['priority=', 0],
    ['', 0],
  ])('%j ranks %d', (meta, rank) => {
    expect(priorityFromMeta(text(meta))).toBe(rank);
  });

  it('ranks binary metadata 0', () => {
    expect(priorityFromMeta(Uint8Array.from([0xff, 0x00, 0x81]))).toBe(0);
  });
});

/** A core for `self` on a fresh virtual clock, with its changes recorded. */
function hint(
  self: string,
  known: Array<[string, MemberEvent['type'] | 'unknown', string?]>,
  options: {
    stableForMs?: number;
    rank?: (name: string, meta: Uint8Array) => number;
    selfMeta?: string;
  } = {},
) {
  const clock = new VirtualClock();
  const changes: LeaderChange[] = [];
  const core = new LeaderCore(
    {
      self: { name: self, ...(options.selfMeta === undefined ? {} : { meta: text(options.selfMeta) }) },
      ...(options.stableForMs === undefined ? {} : { stableForMs: options.stableForMs }),
      ...(options.rank === undefined ? {} : { rank: options.rank }),
    },
    clock,
    (c) => changes.push(c),
    known.map(([name, state, meta]) => ({
      name,
      state: state === 'update' ? 'alive' : state,
      ...(meta === undefined ? {} : { meta: text(meta) }),
    })),
  );
  const event = (
    type: MemberEvent['type'],
    member: string,
    previous: LeaderInput['previous'],
    meta?: string,
  ): void => core.observe({ type, member, previous }, meta === undefined ? undefined : text(meta));
  return { clock, core, changes, event };
}

describe('LeaderCore: ranking', () => {
  it('names the best-ranked alive member: higher priority first, then the smaller name', () => {
    const h = hint('n3', [
      ['n1', 'alive'],
      ['n2', 'alive', 'priority=5'],
      ['n4', 'alive', 'priority=5'],
      ['n0', 'suspect', 'priority=9'],
    ]);
    expect(h.core.leader).toBe('n2');
    expect(h.core.epoch).toBe(0);
    expect(h.core.candidates().map((c) => [c.name, c.rank, c.state])).toEqual([
      ['n0', 9, 'suspect'],
      ['n2', 5, 'alive'],
      ['n4', 5, 'alive'],
      ['n1', 0, 'alive'],
      ['n3', 0, 'alive'],
    ]);
  });

  it('orders names by code unit, the same on every host: n10 before n2, Z before a', () => {
    expect(hint('n2', [['n10', 'alive']]).core.leader).toBe('n10');
    expect(hint('a', [['Z', 'alive']]).core.leader).toBe('Z');
  });

  it('names itself when it knows nobody, or nobody better that is alive', () => {
    expect(hint('solo', []).core.leader).toBe('solo');
    expect(
      hint('n5', [
        ['n1', 'dead'],
        ['n2', 'left'],
        ['n3', 'suspect'],
      ]).core.leader,
    ).toBe('n5');
    expect(hint('n1', [['n2', 'alive']], { selfMeta: 'priority=1' }).core.leader).toBe('n1');
  });

  it('takes a rank function; a NaN rank ranks last', () => {
    const rank = (name: string): number => (name === 'b' ? Number.NaN : name.charCodeAt(0));
    const h = hint(
      'a',
      [
        ['b', 'alive'],
        ['c', 'alive'],
      ],
      { rank },
    );
    expect(h.core.leader).toBe('c');
    expect(h.core.candidates().map((c) => c.name)).toEqual(['c', 'a', 'b']);
  });
});

describe('LeaderCore: transitions', () => {
  it('moves at once when the leader is suspected, declared dead or leaves, with the cause and epoch', () => {
    const h = hint('n9', [
      ['n1', 'alive'],
      ['n2', 'alive'],
      ['n3', 'alive'],
      ['n4', 'alive'],
    ]);
    h.clock.advance(1000);
    h.event('suspect', 'n1', 'alive');
    h.clock.advance(1000);
    h.event('dead', 'n2', 'alive');
    h.event('left', 'n3', 'alive');
    expect(h.changes).toEqual([
      {
        leader: 'n2',
        previous: 'n1',
        epoch: 1,
        atMs: 1000,
        wallMs: h.clock.wallNow() - 1000,
        cause: 'leader-suspect',
      },
      { leader: 'n3', previous: 'n2', epoch: 2, atMs: 2000, wallMs: h.clock.wallNow(), cause: 'leader-dead' },
      { leader: 'n4', previous: 'n3', epoch: 3, atMs: 2000, wallMs: h.clock.wallNow(), cause: 'leader-left' },
    ]);
    expect(h.core.leader).toBe('n4');
    expect(h.core.epoch).toBe(3);
  });

  it('ignores transitions of members that are not the leader, while none of them outranks it', () => {
    const h = hint('n9', [
      ['n1', 'alive'],
      ['n2', 'alive'],
    ]);
    h.event('suspect', 'n2', 'alive');
    h.event('alive', 'n2', 'suspect');
    h.event('dead', 'n2', 'alive');
    h.event('alive', 'n5', 'unknown');
    h.clock.advance(60_000);
    expect(h.changes).toEqual([]);
  });

  it('a recovered better-ranked member takes over only after stableForMs', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
      ],
      { stableForMs: 5000 },
    );
    h.event('suspect', 'n1', 'alive');
    expect(h.core.leader).toBe('n2');
    h.clock.advance(1000);
    h.event('alive', 'n1', 'suspect');
    expect(h.core.candidates().find((c) => c.name === 'n1')).toMatchObject({ state: 'alive', stable: false });
    h.clock.advance(4999);
    expect(h.core.leader).toBe('n2');
    h.clock.advance(1);
    expect(h.core.leader).toBe('n1');
    expect(h.changes.map((c) => [c.leader, c.cause, c.atMs, c.epoch])).toEqual([
      ['n2', 'leader-suspect', 0, 1],
      ['n1', 'stable-better', 6000, 2],
    ]);
  });

  it('a flapping member never takes over while it flaps faster than stableForMs, and the wait starts again each time', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
      ],
      { stableForMs: 5000 },
    );
    h.event('suspect', 'n1', 'alive');
    for (let i = 0; i < 10; i++) {
      h.clock.advance(500);
      h.event('alive', 'n1', 'suspect');
      h.clock.advance(4000);
      h.event('suspect', 'n1', 'alive');
    }
    expect(h.changes.map((c) => c.leader)).toEqual(['n2']);
    h.clock.advance(500);
    h.event('alive', 'n1', 'suspect');
    h.clock.advance(5000);
    expect(h.changes.map((c) => c.leader)).toEqual(['n2', 'n1']);
  });

  it('without hysteresis (stableForMs 0) the same flapping moves the leader every time', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
      ],
      { stableForMs: 0 },
    );
    for (let i = 0; i < 10; i++) {
      h.event('suspect', 'n1', 'alive');
      h.clock.advance(500);
      h.event('alive', 'n1', 'suspect');
      h.clock.advance(4000);
    }
    expect(h.changes).toHaveLength(20);
    expect(h.core.epoch).toBe(20);
  });

  it('a rejoin after death waits like a refutation; a first join does not', () => {
    const h = hint(
      'n9',
      [
        ['n2', 'alive'],
        ['n1', 'dead'],
      ],
      { stableForMs: 3000 },
    );
    h.event('alive', 'n1', 'dead');
    expect(h.core.leader).toBe('n2');
    h.clock.advance(3000);
    expect(h.core.leader).toBe('n1');
    h.event('alive', 'n0', 'unknown');
    expect(h.core.leader).toBe('n0');
    expect(h.changes.map((c) => c.cause)).toEqual(['stable-better', 'stable-better']);
  });

  it('when the leader goes, it moves to the best stable member, not to a better one still waiting', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
        ['n3', 'alive'],
      ],
      { stableForMs: 5000 },
    );
    h.event('suspect', 'n1', 'alive');
    expect(h.core.leader).toBe('n2');
    h.clock.advance(1000);
    h.event('alive', 'n1', 'suspect');
    h.event('dead', 'n2', 'alive');
    expect(h.core.leader).toBe('n3');
    h.clock.advance(4999);
    expect(h.core.leader).toBe('n3');
    h.clock.advance(1);
    expect(h.core.leader).toBe('n1');
  });

  it('a member suspected again during its wait does not take over when the old timer would have fired', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
      ],
      { stableForMs: 5000 },
    );
    h.event('suspect', 'n1', 'alive');
    h.event('alive', 'n1', 'suspect');
    h.clock.advance(2000);
    h.event('suspect', 'n1', 'alive');
    h.clock.advance(2000);
    h.event('alive', 'n1', 'suspect');
    h.clock.advance(4000);
    expect(h.core.leader).toBe('n2');
    h.clock.advance(1000);
    expect(h.core.leader).toBe('n1');
  });

  it('when two comebacks end at the same moment, the lead goes straight to the better one', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n2', 'alive'],
        ['n3', 'alive'],
      ],
      { stableForMs: 1000 },
    );
    h.event('suspect', 'n1', 'alive');
    h.event('suspect', 'n2', 'alive');
    expect(h.core.leader).toBe('n3');
    h.event('alive', 'n2', 'suspect');
    h.event('alive', 'n1', 'suspect');
    h.clock.advance(1000);
    expect(h.core.leader).toBe('n1');
    expect(h.changes.map((c) => c.leader)).toEqual(['n2', 'n3', 'n1']);
  });

  it('a metadata update that changes ranks moves the lead to a stable member at once', () => {
    const h = hint('n9', [
      ['n1', 'alive'],
      ['n2', 'alive'],
    ]);
    h.event('update', 'n2', 'alive', 'priority=3');
    expect(h.core.leader).toBe('n2');
    h.event('update', 'n2', 'alive', 'priority=-1');
    expect(h.core.leader).toBe('n1');
    h.event('update', 'n1', 'alive', 'priority=1');
    expect(h.core.leader).toBe('n1');
    h.core.updateSelf(text('priority=2'));
    expect(h.core.leader).toBe('n9');
    expect(h.changes.map((c) => `${c.leader} ${c.cause}`)).toEqual([
      'n2 rank-changed',
      'n1 rank-changed',
      'n9 rank-changed',
    ]);
  });

  it('an alive event carrying metadata ranks a comeback by it', () => {
    const h = hint(
      'n9',
      [
        ['n1', 'alive'],
        ['n5', 'dead'],
      ],
      { stableForMs: 1000 },
    );
    h.event('alive', 'n5', 'dead', 'priority=4');
    h.clock.advance(1000);
    expect(h.core.leader).toBe('n5');
  });

  it('ignores events about itself and anything after stop()', () => {
    const h = hint('n1', [['n2', 'alive']], { stableForMs: 1000 });
    h.event('dead', 'n1', 'alive');
    expect(h.core.leader).toBe('n1');
    h.event('suspect', 'n2', 'alive');
    h.event('alive', 'n2', 'suspect');
    h.core.stop();
    h.event('alive', 'n0', 'unknown');
    h.clock.advance(10_000);
    expect(h.core.leader).toBe('n1');
    expect(h.changes).toEqual([]);
  });

  it('defaults stableForMs to ten lan probe intervals', () => {
    expect(DEFAULT_STABLE_FOR_MS).toBe(10 * lan.probeIntervalMs);
    expect(hint('n1', []).core.stableForMs).toBe(10_000);
  });
});

describe('LeaderCore: a shared baseline', () => {
  it('lets many hints start from one ranked view, each changing only its own copy', () => {
    const baseline = new LeaderBaseline(
      ['a', 'b', 'c', 'd'].map((name) => ({ name, ...(name === 'c' ? { meta: text('priority=2') } : {}) })),
    );
    expect(baseline.members.map((m) => m.name)).toEqual(['c', 'a', 'b', 'd']);
    const clock = new VirtualClock();
    const seen: string[] = [];
    const hints = ['a', 'b', 'd'].map(
      (self) =>
        new LeaderCore({ self: { name: self } }, clock, (c) => seen.push(`${self}:${c.leader}`), baseline),
    );
    expect(hints.map((h) => h.leader)).toEqual(['c', 'c', 'c']);
    hints[0]!.observe({ type: 'dead', member: 'c', previous: 'alive' });
    expect(hints.map((h) => h.leader)).toEqual(['a', 'c', 'c']);
    // A rank that drops below the baseline's order: the next baseline member leads, not the changed one.
    hints[1]!.observe({ type: 'update', member: 'c', previous: 'alive' }, text('priority=-1'));
    expect(hints[1]!.leader).toBe('a');
    expect(hints[1]!.candidates().map((c) => c.name)).toEqual(['a', 'b', 'd', 'c']);
    // The baseline itself never changes.
    expect(baseline.byName.get('c')).toMatchObject({ rank: 2 });
    expect(hints[2]!.candidates().map((c) => `${c.name} ${c.state} ${c.stable}`)).toEqual([
      'c alive true',
      'a alive true',
      'b alive true',
      'd alive true',
    ]);
    expect(seen).toEqual(['a:a', 'b:a']);
  });
});

describe('LeaderCore: options', () => {
  const clock = new VirtualClock();
  const make = (options: unknown): unknown => thrown(() => new LeaderCore(options as never, clock, () => {}));

  it.each([
    [{}, 'self', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: '' } }, 'self', 'FDKIT_INVALID_OPTION'],
    [{ self: 'n1' }, 'self', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1', meta: 'priority=1' } }, 'self.meta', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1' }, stableForMs: -1 }, 'stableForMs', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1' }, stableForMs: Number.NaN }, 'stableForMs', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1' }, stableForMs: 1e12 }, 'stableForMs', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1' }, rank: 3 }, 'rank', 'FDKIT_INVALID_OPTION'],
    [{ self: { name: 'n1' }, stableforMs: 5 }, 'stableforMs', 'FDKIT_UNKNOWN_OPTION'],
  ])('%j is refused, naming %s', (options, option, code) => {
    const error = make(options);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ option, code });
    expect((error as Error).message).toContain(option.split('.')[0]);
  });

  it('states the range in the message', () => {
    expect((make({ self: { name: 'n1' }, stableForMs: -1 }) as Error).message).toBe(
      'LeaderCore: option stableForMs must be a number >= 0 and <= 86400000, got -1 (a number)',
    );
  });
});

/** A source driven by hand, with no view of its own. */
class ScriptedSource implements MembershipSource {
  private readonly listeners = new Map<string, Set<(e: MemberEvent) => void>>();

  on(event: string, listener: (e: MemberEvent) => void): void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
  }

  off(event: string, listener: (e: MemberEvent) => void): void {
    this.listeners.get(event)?.delete(listener);
  }

  get listening(): number {
    return [...this.listeners.values()].reduce((n, s) => n + s.size, 0);
  }

  emit(type: MemberEvent['type'], member: string, previous: MemberEvent['previous']): void {
    const event = memberEvent(type, member, previous);
    for (const l of this.listeners.get(type) ?? []) l(event);
  }
}

describe('LeaderHint', () => {
  it('follows any source with on/off, emits leader events, and unsubscribes on stop()', () => {
    const source = new ScriptedSource();
    const clock = new VirtualClock();
    const hint = new LeaderHint(source, { self: { name: 'n3' }, clock, stableForMs: 2000 });
    const seen: LeaderChange[] = [];
    hint.on('leader', (c) => seen.push(c));
    expect(hint.leader).toBe('n3');
    expect(hint.isLeader).toBe(true);
    source.emit('alive', 'n1', 'unknown');
    expect(hint.leader).toBe('n1');
    source.emit('suspect', 'n1', 'alive');
    source.emit('alive', 'n1', 'suspect');
    expect(hint.leader).toBe('n3');
    clock.advance(2000);
    expect(hint.leader).toBe('n1');
    expect(hint.isLeader).toBe(false);
    expect(seen.map((c) => `${c.previous}->${c.leader} ${c.cause} ${c.epoch}`)).toEqual([
      'n3->n1 stable-better 1',
      'n1->n3 leader-suspect 2',
      'n3->n1 stable-better 3',
    ]);
    expect(hint.epoch).toBe(3);
    // The five member events, and the local member's refutations.
    expect(source.listening).toBe(6);
    hint.stop();
    hint.stop();
    expect(source.listening).toBe(0);
  });

  it('needs self when the source cannot tell its own member', () => {
    const error = thrown(() => new LeaderHint(new ScriptedSource()));
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'self' });
    const unknown = thrown(
      () => new LeaderHint(new ScriptedSource(), { self: { name: 'a' }, lease: 1 } as never),
    );
    expect(unknown).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'lease' });
    const clock = thrown(
      () => new LeaderHint(new ScriptedSource(), { self: { name: 'a' }, clock: {} as never }),
    );
    expect(clock).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'clock' });
  });
});

describe('LeaderHint on createNode members (in-memory network, virtual time)', () => {
  const clusters: MemoryCluster[] = [];
  afterEach(async () => {
    for (const c of clusters.splice(0)) await c.close();
  });

  /** Five members with priorities 5 (n1) down to 1 (n5), formed, with a hint each. */
  async function prioritised(
    seed: number,
  ): Promise<{ c: MemoryCluster; members: Member[]; hints: LeaderHint[] }> {
    const c = new MemoryCluster(seed);
    clusters.push(c);
    const members: Member[] = [];
    for (let i = 1; i <= 5; i++) members.push(await c.start(i, { meta: text(`priority=${6 - i}`) }));
    for (const m of members.slice(1)) await m.node.join([members[0]!.address]);
    const names = members.map((m) => m.name);
    await c.runUntil(() => members.every((m) => holds(m.node, names, 'alive')), 30_000, 'formation');
    const hints = members.map((m) => new LeaderHint(m.node, { clock: c.clock }));
    return { c, members, hints };
  }

  it('before start it needs self; after, it reads self and metadata from the node', async () => {
    const c = new MemoryCluster(1);
    clusters.push(c);
    const m = c.create(1, { meta: text('priority=3') });
    expect(thrown(() => new LeaderHint(m.node))).toMatchObject({ option: 'self' });
    await m.node.start();
    const hint = new LeaderHint(m.node, { clock: c.clock });
    expect(hint.leader).toBe('n1');
    expect(hint.candidates()).toEqual([{ name: 'n1', rank: 3, state: 'alive', stable: true }]);
  });

  it.each([1, 2, 3])(
    'every member names the top priority; killing it moves every survivor to the same next one (seed %i)',
    async (seed) => {
      const { c, members, hints } = await prioritised(seed);
      expect(hints.map((h) => h.leader)).toEqual(['n1', 'n1', 'n1', 'n1', 'n1']);
      const killedAt = c.clock.now();
      await members[0]!.node.shutdown();
      const survivors = hints.slice(1);
      const bound = expectedTiming(MEMORY_CONFIG, 5).worstCaseAllKnowMs;
      const took = await c.runUntil(
        () => survivors.every((h) => h.leader === 'n2'),
        bound,
        'every survivor to name n2',
      );
      expect(took).toBeLessThanOrEqual(bound);
      for (const h of survivors) {
        expect(h.epoch).toBe(1);
        expect(h.candidates()[0]).toMatchObject({ name: 'n1' });
        expect(h.candidates()[0]!.state).not.toBe('alive');
      }
      // And it stays so: nothing comes back, nothing changes.
      await c.run(30_000);
      expect(survivors.map((h) => [h.leader, h.epoch])).toEqual(survivors.map(() => ['n2', 1]));
      expect(c.clock.now() - killedAt).toBeGreaterThanOrEqual(30_000);
      for (const h of hints) h.stop();
    },
  );

  it('a metadata update on the leader reaches every hint: the lead moves to the new top priority', async () => {
    const { c, members, hints } = await prioritised(4);
    members[4]!.node.updateMetadata(text('priority=9'));
    hints[4]!.updateSelf(text('priority=9'));
    await c.runUntil(() => hints.every((h) => h.leader === 'n5'), 10_000, 'every member to name n5');
    expect(hints.map((h) => h.epoch)).toEqual([1, 1, 1, 1, 1]);
    for (const h of hints) h.stop();
  });
});

describe('LeaderHint on heartbeat monitors (in-memory network, virtual time)', () => {
  const address = (i: number): string => `10.0.0.${i}:7947`;
  const peers = [1, 2, 3].map((i) => ({ name: `m${i}`, address: address(i) }));

  it('names the smallest name among the peers heard from; moves when it stops and takes it back after stableForMs', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock });
    const create = (i: number, incarnation: number) =>
      createHeartbeatMonitor({
        name: `m${i}`,
        bind: address(i),
        peers,
        incarnation,
        transport: (o) => network.createTransport(o),
        clock,
        random: new Random(i),
        localHealth: false,
      });
    const monitors = [create(1, 1), create(2, 1), create(3, 1)];
    for (const m of monitors) await m.start();
    // Self from localName; peers not heard from yet are no candidates.
    const hints = monitors.map((m) => new LeaderHint(m, { clock, stableForMs: 5000 }));
    expect(hints.map((h) => h.leader)).toEqual(['m1', 'm2', 'm3']);
    await run(clock, 3000);
    expect(hints.map((h) => h.leader)).toEqual(['m1', 'm1', 'm1']);

    await monitors[0]!.shutdown();
    await runUntil(clock, () => hints[1]!.leader === 'm2' && hints[2]!.leader === 'm2', 20_000, 'm2 to lead');
    const restarted = create(1, 2);
    await restarted.start();
    await runUntil(
      clock,
      () => monitors[1]!.peers().some((p) => p.name === 'm1' && p.state === 'alive'),
      10_000,
      'm1 back',
    );
    const backAt = clock.now();
    await runUntil(
      clock,
      () => hints[1]!.leader === 'm1' && hints[2]!.leader === 'm1',
      20_000,
      'm1 to lead again',
    );
    expect(clock.now() - backAt).toBeGreaterThanOrEqual(4000);
    expect(hints[1]!.epoch).toBe(3);
    for (const h of hints) h.stop();
    await Promise.all([...monitors.slice(1), restarted].map((m) => m.shutdown()));
  });
});

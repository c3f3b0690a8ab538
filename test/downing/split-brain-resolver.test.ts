/**
 * `SplitBrainResolver` over five real `SwimNode`s on one in-memory network and virtual time: a 3/2
 * partition, held longer than the decision takes, leaves the three up (each downs the two) and the two
 * down (each reports `downed-self`), not before `stableAfterMs`; the options are checked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SplitBrainResolver } from '../../src/downing/split-brain-resolver.js';
import { type Member, MemoryCluster } from '../support/node-harness.js';

const STABLE = 4_000;
let cluster: MemoryCluster | undefined;

afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

interface Watched {
  readonly member: Member;
  readonly resolver: SplitBrainResolver;
  readonly downs: { members: readonly string[]; atMs: number }[];
  readonly downedSelf: { reason: string; atMs: number }[];
}

function watch(member: Member): Watched {
  const resolver = new SplitBrainResolver(member.node, {
    strategy: 'keep-majority',
    stableAfterMs: STABLE,
    clock: cluster!.clock,
  });
  const w: Watched = { member, resolver, downs: [], downedSelf: [] };
  resolver.on('down', (d) => w.downs.push({ members: d.members, atMs: d.atMs }));
  resolver.on('downed-self', (d) => w.downedSelf.push({ reason: d.reason, atMs: d.atMs }));
  return w;
}

describe('SplitBrainResolver on five SWIM members', () => {
  it('a 3/2 partition: the three down the two, the two down themselves, after the view is stable', async () => {
    cluster = new MemoryCluster(17);
    const members = await cluster.form(5);
    const watched = members.map(watch);
    const majority = ['n1', 'n2', 'n3'];
    const minority = ['n4', 'n5'];
    const addressOf = (names: string[]) => names.map((n) => cluster!.get(n).address);
    cluster.network.partition(addressOf(majority), addressOf(minority));
    const cutAt = cluster.clock.now();
    await cluster.runUntil(
      () => watched.every((w) => w.downs.length + w.downedSelf.length > 0),
      60_000,
      'every member to decide',
    );
    for (const w of watched) {
      w.resolver.stop();
      if (majority.includes(w.member.name)) {
        expect(w.downedSelf, w.member.name).toEqual([]);
        expect(
          w.downs.map((d) => [...d.members].sort()),
          w.member.name,
        ).toEqual([minority]);
      } else {
        expect(w.downs, w.member.name).toEqual([]);
        expect(w.downedSelf, w.member.name).toMatchObject([{ reason: 'minority: 2 of 5 reachable' }]);
      }
      const at = w.downs[0]?.atMs ?? w.downedSelf[0]!.atMs;
      // Not before the view has been stable for the whole wait, counted from the cut at the earliest.
      expect(at - cutAt).toBeGreaterThanOrEqual(STABLE);
    }
  });

  it('refuses a bad strategy, naming it, and a source that has not started', async () => {
    cluster = new MemoryCluster(18);
    const [n1] = await cluster.form(2);
    expect(() => new SplitBrainResolver(n1!.node, { strategy: 'keep-biggest' as 'keep-majority' })).toThrow(
      expect.objectContaining({ code: 'FDKIT_INVALID_OPTION', option: 'strategy' }),
    );
    expect(
      () => new SplitBrainResolver(n1!.node, { strategy: { name: 'static-quorum', quorumSize: 0 } }),
    ).toThrow(/SplitBrainResolver: option strategy.quorumSize must be an integer >= 1/);
    expect(
      () => new SplitBrainResolver(n1!.node, { strategy: { name: 'lease-majority', lease: {} as never } }),
    ).toThrow(/option strategy.lease must be an object with acquire/);
    const idle = cluster.create(3);
    expect(() => new SplitBrainResolver(idle.node, { strategy: 'keep-majority' })).toThrow(/after start\(\)/);
  });
});

/**
 * The member view: which members receive gossip, and the simulator's warm start of a formed cluster.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT, UNKNOWN } from '../../src/membership/member-state.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemberDirectory } from '../../src/swim/directory.js';
import { MemberView } from '../../src/swim/member-view.js';
import { PAGE_SIZE, sharedBaseline } from '../../src/swim/view-storage.js';
import { addressOf } from './swim-context.js';

const GOSSIP_TO_THE_DEAD_MS = 1000;

/** A view of members m0 … m(n−1), this member being `self`, nobody known yet. */
function view(
  n: number,
  self: number,
): { view: MemberView; clock: VirtualClock; directory: MemberDirectory } {
  const directory = new MemberDirectory();
  for (let i = 0; i < n; i++) directory.intern(`m${i}`, addressOf(`m${i}`));
  const clock = new VirtualClock();
  return { view: new MemberView(directory, self, clock, GOSSIP_TO_THE_DEAD_MS), clock, directory };
}

function listed(v: MemberView, n: number): number[] {
  return Array.from({ length: n }, (_, id) => id).filter((id) => v.order.has(id));
}

describe('MemberView.isGossipTarget', () => {
  it('gossips to live members and to the dead for gossipToTheDeadMs, never to itself, the left or strangers', () => {
    const { view: v, clock } = view(7, 0);
    const { table } = v;
    clock.advanceTo(100);
    table.set(0, ALIVE, 1, 100);
    table.set(1, ALIVE, 1, 100);
    table.set(2, SUSPECT, 1, 100);
    table.set(3, DEAD, 1, 100);
    table.set(4, LEFT, 1, 100);
    // 5: never heard of; 6: dead since 100 too, then forgotten.
    table.set(6, DEAD, 1, 100);
    table.forget(6);
    const targets = (): boolean[] => [0, 1, 2, 3, 4, 5, 6].map((id) => v.isGossipTarget(id));
    expect(targets()).toEqual([false, true, true, true, false, false, false]);
    // Dead since 100: still a target at 100 + 1000 exactly, no longer 1 ms later.
    clock.advanceTo(100 + GOSSIP_TO_THE_DEAD_MS);
    expect(targets()).toEqual([false, true, true, true, false, false, false]);
    clock.advanceTo(101 + GOSSIP_TO_THE_DEAD_MS);
    expect(targets()).toEqual([false, true, true, false, false, false, false]);
  });
});

describe('MemberView.assumeDirectoryMembers', () => {
  it('from an empty view: every member alive and listed but this one and the excluded, on the shared pages', () => {
    const n = PAGE_SIZE + 2; // a second page, which neither this member nor the excluded one touches
    const { view: v, directory } = view(n, 2);
    v.assumeDirectoryMembers(7, [4], new Random(1));
    const { table } = v;
    expect([0, 1, 2, 3, 4, 5].map((id) => table.stateOf(id))).toEqual([
      ALIVE,
      ALIVE,
      UNKNOWN,
      ALIVE,
      UNKNOWN,
      ALIVE,
    ]);
    expect([0, 1, 3, 5].map((id) => table.incarnationOf(id))).toEqual([7, 7, 7, 7]);
    expect(table.count(ALIVE)).toBe(n - 2);
    expect(listed(v, n)).toEqual(
      Array.from({ length: n }, (_, id) => id).filter((id) => id !== 2 && id !== 4),
    );
    expect(v.order.size).toBe(n - 2);
    // The view reads the directory's shared baseline itself (no copy made at the start): a change to the
    // baseline's second page shows through. (Nothing writes a baseline in use; this only shows the sharing.)
    const baseline = sharedBaseline(directory, n, ALIVE, 7);
    baseline.states[1]![1] = DEAD;
    expect(table.stateOf(PAGE_SIZE + 1)).toBe(DEAD);
  });

  it('over a view that holds members: the unknown ones become alive and listed, the excluded stay out', () => {
    const { view: v } = view(6, 1);
    const { table } = v;
    table.set(1, ALIVE, 3, 0); // this member, as the core announces itself
    table.set(5, DEAD, 2, 0);
    v.assumeDirectoryMembers(7, [3], new Random(1)); // an excluded id above this member's
    expect([0, 1, 2, 3, 4, 5].map((id) => table.stateOf(id))).toEqual([
      ALIVE,
      ALIVE,
      ALIVE,
      UNKNOWN,
      ALIVE,
      DEAD,
    ]);
    expect([0, 1, 2, 4, 5].map((id) => table.incarnationOf(id))).toEqual([7, 3, 7, 7, 2]);
    expect(table.count(ALIVE)).toBe(4);
    // The alive members are listed for probing; the excluded and the dead are not.
    expect(listed(v, 6).filter((id) => id !== 1)).toEqual([0, 2, 4]);
  });

  it('keeps what the probe list already holds when nobody is known yet', () => {
    const { view: v } = view(4, 0);
    v.order.add(3, new Random(1));
    v.assumeDirectoryMembers(7, [3], new Random(1));
    expect([0, 1, 2, 3].map((id) => v.table.stateOf(id))).toEqual([UNKNOWN, ALIVE, ALIVE, UNKNOWN]);
    expect(listed(v, 4)).toEqual([1, 2, 3]);
  });
});

/**
 * The member table.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, type StateCode, SUSPECT, UNKNOWN } from '../../src/membership/member-state.js';
import { Random } from '../../src/runtime/random.js';
import { MemberTable } from '../../src/swim/member-table.js';
import { ProbeOrder } from '../../src/swim/probe-order.js';
import { PAGE_SIZE, ViewBaseline, ViewStorage } from '../../src/swim/view-storage.js';
import { STATES } from '../support/swim-fixtures.js';

describe('MemberTable', () => {
  it('counts members per state as they move between states', () => {
    const table = new MemberTable(new ViewStorage());
    const counts = (): number[] => STATES.map((s) => table.count(s));
    expect(counts()).toEqual([0, 0, 0, 0]);
    expect(table.stateOf(0)).toBe(UNKNOWN);
    expect(table.isKnown(0)).toBe(false);
    table.set(0, ALIVE, 1, 0);
    table.set(1, ALIVE, 1, 0);
    table.set(2, ALIVE, 1, 0);
    expect(counts()).toEqual([3, 0, 0, 0]);
    table.set(1, SUSPECT, 1, 10);
    expect(counts()).toEqual([2, 1, 0, 0]);
    table.set(1, DEAD, 1, 20);
    table.set(2, LEFT, 1, 20);
    expect(counts()).toEqual([1, 0, 1, 1]);
    table.set(1, ALIVE, 2, 30);
    expect(counts()).toEqual([2, 0, 0, 1]);
    table.set(1, ALIVE, 3, 40); // same state: counted once
    expect(counts()).toEqual([2, 0, 0, 1]);
    expect(table.known).toBe(3);
    expect(table.isKnown(2)).toBe(true);
    expect(table.incarnationOf(1)).toBe(3);
    expect(table.incarnationOf(1000)).toBe(0);
    expect(table.stateOf(1000)).toBe(UNKNOWN);
  });

  it('records when a member went down, keeps it while down, and clears it on revival', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(5, ALIVE, 1, 0);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(5, SUSPECT, 1, 100);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(5, DEAD, 1, 200);
    expect(table.downSinceMs(5)).toBe(200);
    table.set(5, DEAD, 2, 300); // still down: the first time stands
    table.set(5, LEFT, 2, 400);
    expect(table.downSinceMs(5)).toBe(200);
    table.set(6, LEFT, 1, 500);
    expect(new Map(table.downMembers())).toEqual(
      new Map([
        [5, 200],
        [6, 500],
      ]),
    );
    table.set(5, ALIVE, 3, 600);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(6, SUSPECT, 2, 700);
    expect(table.downSinceMs(6)).toBeUndefined();
    expect([...table.downMembers()]).toEqual([]);
  });

  it('keeps metadata per member; empty metadata is forgotten', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(1, ALIVE, 1, 0);
    table.setMetadata(1, new Uint8Array([1, 2]));
    expect(table.metadataOf(1)).toEqual(new Uint8Array([1, 2]));
    table.setMetadata(1, new Uint8Array(0));
    expect(table.metadataOf(1)).toBeUndefined();
  });

  it('keeps every state, incarnation and probe-list slot when it grows beyond its initial capacity', () => {
    const storage = new ViewStorage(2);
    const table = new MemberTable(storage);
    const order = new ProbeOrder(storage);
    const random = new Random(3);
    const stateFor = (id: number): StateCode => STATES[id % 4]!;
    for (let id = 0; id < 100; id++) {
      table.set(id, stateFor(id), 1000 + id, id);
      if (id % 3 === 0) order.add(id, random);
    }
    const probeList = Array.from(storage.order.subarray(0, order.size));
    table.set(1000, ALIVE, 0xffff_ffff, 0); // grows again, to 1024 slots
    expect(storage.capacity).toBeGreaterThanOrEqual(1001);
    for (let id = 0; id < 100; id++) {
      expect(table.stateOf(id)).toBe(stateFor(id));
      expect(table.incarnationOf(id)).toBe(1000 + id);
      expect(order.has(id)).toBe(id % 3 === 0);
    }
    expect(table.incarnationOf(1000)).toBe(0xffff_ffff);
    expect(Array.from(storage.order.subarray(0, order.size))).toEqual(probeList);
    for (let id = 101; id < 1000; id++) expect(table.stateOf(id)).toBe(UNKNOWN);
    expect(STATES.map((s) => table.count(s))).toEqual([26, 25, 25, 25]);
  });

  it('assumeAlive marks unknown ids alive, skipping known and excluded ones', () => {
    const table = new MemberTable(new ViewStorage(2));
    table.set(1, DEAD, 9, 0);
    table.assumeAlive(6, 4, [3]);
    expect([0, 2, 4, 5].map((id) => table.stateOf(id))).toEqual([ALIVE, ALIVE, ALIVE, ALIVE]);
    expect(table.stateOf(1)).toBe(DEAD);
    expect(table.stateOf(3)).toBe(UNKNOWN);
    expect(table.incarnationOf(4)).toBe(4);
    expect(table.count(ALIVE)).toBe(4);
  });

  it('views adopting one baseline share its pages until they write, and never write through it', () => {
    const size = 3 * PAGE_SIZE + 5; // a partial last page
    const baseline = new ViewBaseline(size, ALIVE, 7);
    const a = new ViewStorage();
    const b = new ViewStorage();
    const tableA = new MemberTable(a);
    const tableB = new MemberTable(b);
    tableA.adoptBaseline(baseline, [2, size - 1]);
    tableB.adoptBaseline(baseline, []);
    expect(tableA.count(ALIVE)).toBe(size - 2);
    expect(tableB.count(ALIVE)).toBe(size);
    expect([tableA.stateOf(2), tableA.stateOf(size - 1), tableA.stateOf(size)]).toEqual([
      UNKNOWN,
      UNKNOWN,
      UNKNOWN,
    ]);
    expect([a.isListed(2), a.isListed(3), b.isListed(2), b.isListed(size)]).toEqual([
      false,
      true,
      true,
      false,
    ]);
    // A write in one view copies its page: the other view and the baseline keep what they had.
    tableA.set(PAGE_SIZE + 1, DEAD, 9, 0);
    expect([tableA.stateOf(PAGE_SIZE + 1), tableA.incarnationOf(PAGE_SIZE + 1)]).toEqual([DEAD, 9]);
    expect([tableB.stateOf(PAGE_SIZE + 1), tableB.incarnationOf(PAGE_SIZE + 1)]).toEqual([ALIVE, 7]);
    expect(baseline.states[1]![1]).toBe(ALIVE);
    expect(baseline.incarnations[1]![1]).toBe(7);
    // The rest of the copied page came along.
    expect(tableA.incarnationOf(PAGE_SIZE + 2)).toBe(7);
    // Growing past the baseline keeps everything and adds unknown ids.
    tableB.set(size + 200, SUSPECT, 3, 0);
    expect([tableB.stateOf(size - 1), tableB.stateOf(size + 199), tableB.stateOf(size + 200)]).toEqual([
      ALIVE,
      UNKNOWN,
      SUSPECT,
    ]);
    expect(() => tableB.adoptBaseline(baseline, [])).toThrow(/must be empty/);
  });

  it('listFlagged() lists exactly the flagged ids of an adopted baseline', () => {
    const storage = new ViewStorage();
    new MemberTable(storage).adoptBaseline(new ViewBaseline(300, ALIVE, 1), [0, 150, 299]);
    const order = new ProbeOrder(storage);
    const all = (): boolean => true;
    order.listFlagged(300);
    expect(order.size).toBe(297);
    order.shuffleRest(new Random(4));
    const random = new Random(5);
    const seen = new Set<number>();
    for (let i = 0; i < 297; i++) seen.add(order.next(random, all, all));
    expect(seen.size).toBe(297);
    for (const id of [0, 150, 299]) expect(seen.has(id)).toBe(false);
  });

  it('forget() makes a member unknown: counts, time of death and metadata go with it', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(1, ALIVE, 3, 0);
    table.setMetadata(1, new Uint8Array([9]));
    table.set(2, DEAD, 4, 10);
    table.set(3, LEFT, 5, 20);
    table.set(1, DEAD, 3, 30);
    expect([...table.downMembers()].map(([id]) => id)).toEqual([2, 3, 1]);
    table.forget(3);
    table.forget(1);
    table.forget(7); // never known: nothing to do
    expect([table.count(ALIVE), table.count(SUSPECT), table.count(DEAD), table.count(LEFT)]).toEqual([
      0, 0, 1, 0,
    ]);
    expect(table.known).toBe(1);
    expect([table.stateOf(1), table.incarnationOf(1), table.metadataOf(1)]).toEqual([UNKNOWN, 0, undefined]);
    expect([...table.downMembers()]).toEqual([[2, 10]]);
    table.set(1, ALIVE, 6, 40); // known again, from scratch
    expect(table.known).toBe(2);
  });

  it('forget() of an id beyond the storage is a no-op, and leaves the storage as it was', () => {
    const storage = new ViewStorage(16);
    const table = new MemberTable(storage);
    table.set(1, ALIVE, 2, 0);
    expect(() => table.forget(10_000)).not.toThrow();
    expect([table.known, table.count(ALIVE), storage.capacity]).toEqual([1, 1, 16]);
  });

  it('adoptBaseline() takes only an alive baseline', () => {
    const table = new MemberTable(new ViewStorage());
    expect(() => table.adoptBaseline(new ViewBaseline(4, DEAD, 1), [])).toThrow(/baseline alive/);
    expect(table.known).toBe(0);
  });

  it('adoptBaseline() counts an excluded id once, and none at or beyond the baseline size', () => {
    const table = new MemberTable(new ViewStorage());
    // Size 10: ids 0 … 9 alive; 2 excluded (twice), 10 and 11 are not in the baseline anyway.
    table.adoptBaseline(new ViewBaseline(10, ALIVE, 1), [2, 2, 10, 11]);
    expect([table.count(ALIVE), table.known]).toEqual([9, 9]);
    expect([table.stateOf(2), table.stateOf(9), table.stateOf(10)]).toEqual([UNKNOWN, ALIVE, UNKNOWN]);
  });
});

/**
 * The member view's storage: 16-bit probe slots while ids fit, 32-bit beyond.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD } from '../../src/membership/member-state.js';
import { Random } from '../../src/runtime/random.js';
import { ProbeOrder } from '../../src/swim/probe-order.js';
import { PAGE_SIZE, sharedBaseline, ViewBaseline, ViewStorage } from '../../src/swim/view-storage.js';

describe('ViewStorage', () => {
  it('keeps every id when the probe list outgrows 16-bit slots', () => {
    const storage = new ViewStorage(4);
    const order = new ProbeOrder(storage);
    const random = new Random(5);
    const ids = [0, 1, 65_535, 65_536, 70_000, 131_071];
    for (const id of ids) order.add(id, random);
    expect(storage.order).toBeInstanceOf(Int32Array);
    const seen: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      seen.push(
        order.next(
          random,
          () => true,
          () => true,
        ),
      );
    }
    expect(seen.sort((a, b) => a - b)).toEqual(ids);
  });

  it('uses 16-bit probe slots while ids fit', () => {
    const storage = new ViewStorage(10_000);
    expect(storage.order).toBeInstanceOf(Uint16Array);
    expect(storage.capacity).toBe(10_000);
  });

  it('a baseline has one page per PAGE_SIZE ids, rounded up', () => {
    expect(new ViewBaseline(PAGE_SIZE, ALIVE, 1).states).toHaveLength(1);
    expect(new ViewBaseline(PAGE_SIZE + 1, ALIVE, 1).states).toHaveLength(2);
    expect(new ViewBaseline(5, ALIVE, 1).listed).toHaveLength(1);
  });

  it('sharedBaseline() makes one baseline per owner, and a new one when size, state or incarnation differ', () => {
    const owner = {};
    const first = sharedBaseline(owner, 10, ALIVE, 3);
    expect([first.size, first.state, first.incarnation]).toEqual([10, ALIVE, 3]);
    expect(sharedBaseline(owner, 10, ALIVE, 3)).toBe(first);
    expect(sharedBaseline({}, 10, ALIVE, 3)).not.toBe(first);
    const fields = (b: ViewBaseline): number[] => [b.size, b.state, b.incarnation];
    expect(fields(sharedBaseline(owner, 11, ALIVE, 3))).toEqual([11, ALIVE, 3]);
    expect(fields(sharedBaseline(owner, 11, DEAD, 3))).toEqual([11, DEAD, 3]);
    expect(fields(sharedBaseline(owner, 11, DEAD, 4))).toEqual([11, DEAD, 4]);
  });

  it('flagging an id of an adopted page copies the page: the baseline and other views keep their flags', () => {
    const baseline = new ViewBaseline(5, ALIVE, 1);
    const a = new ViewStorage();
    const b = new ViewStorage();
    a.adopt(baseline);
    b.adopt(baseline);
    a.setListed(3, false);
    expect([a.isListed(3), b.isListed(3), baseline.listed[0]![3]]).toEqual([false, true, 1]);
  });

  it('ensure() grows by doubling only past its capacity; reserve() never shrinks it', () => {
    const storage = new ViewStorage(16);
    storage.ensure(16);
    expect(storage.capacity).toBe(16);
    storage.ensure(32); // 16 · 2 = 32 is room enough
    expect(storage.capacity).toBe(32);
    storage.ensure(33);
    expect(storage.capacity).toBe(64);
    storage.reserve(8);
    expect(storage.capacity).toBe(64);
    storage.reserve(100);
    expect(storage.capacity).toBe(100);
  });

  it('keeps 16-bit probe slots up to 65,536 ids (ids 0 … 65,535 fit), 32-bit beyond', () => {
    expect(new ViewStorage(65_536).order).toBeInstanceOf(Uint16Array);
    expect(new ViewStorage(65_537).order).toBeInstanceOf(Int32Array);
  });
});

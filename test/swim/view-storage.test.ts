/**
 * The member view's storage: 16-bit probe slots while ids fit, 32-bit beyond.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { ProbeOrder } from '../../src/swim/probe-order.js';
import { ViewStorage } from '../../src/swim/view-storage.js';

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
});

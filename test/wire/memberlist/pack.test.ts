/** Coalescing encoded memberlist messages into compounds within a datagram budget; bytes by hand. */
import { describe, expect, it } from 'vitest';
import { packMlCompound } from '../../../src/wire/memberlist/pack.js';

const part = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);
const lists = (out: Uint8Array[]): number[][] => out.map((d) => [...d]);

describe('packMlCompound', () => {
  it('sends nothing for no parts, and a lone part as it is', () => {
    expect(packMlCompound([], 1400)).toEqual([]);
    expect(lists(packMlCompound([Uint8Array.of(4, 5, 6)], 1400))).toEqual([[4, 5, 6]]);
  });

  it('puts parts that fit into one compound: type 7, the count, 16-bit lengths, then the parts', () => {
    const out = packMlCompound([Uint8Array.of(1, 2, 3), Uint8Array.of(9, 8, 7, 6)], 1400);
    expect(lists(out)).toEqual([[7, 2, 0, 3, 0, 4, 1, 2, 3, 9, 8, 7, 6]]);
  });

  it('fills a compound up to the budget exactly, and starts the next one there', () => {
    // Two 10-byte parts: 2 + (2 + 10) * 2 = 26 bytes.
    const parts = [part(10, 1), part(10, 2), part(10, 3)];
    const out = packMlCompound(parts, 26);
    expect(out.map((d) => d.length)).toEqual([26, 10]);
    expect([...out[0]!.subarray(0, 6)]).toEqual([7, 2, 0, 10, 0, 10]);
    expect([...out[1]!]).toEqual([...part(10, 3)]);
    // One byte less, and no two fit together.
    expect(packMlCompound(parts, 25).map((d) => [...d])).toEqual(parts.map((p) => [...p]));
  });

  it('sends a part above the budget alone, keeping the order of all', () => {
    const out = packMlCompound([part(5, 1), part(50, 2), part(5, 3), part(5, 4)], 30);
    expect(out.map((d) => [d.length, d[0], d.at(-1)])).toEqual([
      [5, 1, 1],
      [50, 2, 2],
      [2 + 2 * 7, 7, 4],
    ]);
    expect([...out[2]!]).toEqual([7, 2, 0, 5, 0, 5, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4]);
  });

  it('puts at most 255 parts in a compound', () => {
    const parts = Array.from({ length: 256 }, (_, i) => Uint8Array.of(i & 255));
    const out = packMlCompound(parts, 100_000);
    expect(out.length).toBe(2);
    expect(out[0]!.length).toBe(2 + 3 * 255);
    expect([out[0]![0], out[0]![1]]).toEqual([7, 255]);
    expect([...out[1]!]).toEqual([255]);
  });

  it('sends a part a compound cannot carry (over 65,535 bytes) alone, whatever the budget', () => {
    const big = part(65_536, 9);
    const out = packMlCompound([Uint8Array.of(1), big, Uint8Array.of(2)], 1 << 20);
    expect(out.map((d) => d.length)).toEqual([1, 65_536, 1]);
    expect(out[1]).toBe(big);
  });
});

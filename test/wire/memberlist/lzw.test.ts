/**
 * LZW as Go's compress/lzw (LSB, literal width 8) does it: a vector worked out by hand, round trips over
 * inputs long enough to widen codes to 12 bits and clear the table, and the decoder's bounds: invalid
 * codes, missing end code, and an expansion past the limit, none of which throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../../src/wire/memberlist/crc.js';
import { lzwCompress, lzwDecompress } from '../../../src/wire/memberlist/lzw.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('lzwCompress', () => {
  it('writes clear, the codes and end, 9 bits each, least significant bit first', () => {
    // 256 | 97 << 9 | 257 << 18 = 0x0404c300, little-endian in 4 bytes.
    expect(hex(lzwCompress(new TextEncoder().encode('a')))).toBe('00c30404');
    // Empty input: clear then end: 256 | 257 << 9 = 0x020300 in 3 bytes (18 bits).
    expect(hex(lzwCompress(new Uint8Array(0)))).toBe('000302');
  });

  it('round-trips any bytes, including inputs past 4,096 codes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
        expect(lzwDecompress(lzwCompress(bytes), 1 << 20)).toEqual(bytes);
      }),
    );
    // Random bytes define about one code per byte: 20,000 of them clear the table a few times.
    let seed = 1;
    const random = new Uint8Array(20_000).map(() => {
      seed = (seed * 1_103_515_245 + 12_345) >>> 0;
      return seed >>> 24;
    });
    expect(lzwDecompress(lzwCompress(random), 1 << 20)).toEqual(random);
    const repetitive = new Uint8Array(100_000).map((_, i) => i % 7);
    const compressed = lzwCompress(repetitive);
    expect(compressed.length).toBeLessThan(5_000);
    expect(lzwDecompress(compressed, 1 << 20)).toEqual(repetitive);
  });
});

describe('lzwDecompress', () => {
  it('fails on a code not yet defined, on input without the end code, and past the bound', () => {
    // clear, then code 300 (undefined): 256 | 300 << 9.
    const bad = 256 | (300 << 9);
    expect(lzwDecompress(new Uint8Array([bad & 0xff, (bad >> 8) & 0xff, bad >> 16]), 100)).toBe(
      'invalid-code',
    );
    expect(lzwDecompress(lzwCompress(new Uint8Array(10)).subarray(0, 3), 100)).toBe('truncated');
    expect(lzwDecompress(new Uint8Array(0), 100)).toBe('truncated');
    const bomb = lzwCompress(new Uint8Array(1_000_000));
    expect(bomb.length).toBeLessThan(3_000);
    expect(lzwDecompress(bomb, 65_536)).toBe('too-large');
    expect(lzwDecompress(bomb, 1_000_000)).toHaveLength(1_000_000);
  });

  it('ignores bytes after the end code, as Go does', () => {
    const withTail = new Uint8Array([...lzwCompress(new Uint8Array([1, 2, 3])), 0xff, 0xff]);
    expect(lzwDecompress(withTail, 100)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('never throws on arbitrary bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const out = lzwDecompress(bytes, 10_000);
        expect(typeof out === 'string' || out.length <= 10_000).toBe(true);
      }),
    );
  });
});

describe('crc32', () => {
  it('is the IEEE CRC-32 (check value of "123456789": 0xcbf43926)', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf4_3926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(new TextEncoder().encode('x123456789'), 1)).toBe(0xcbf4_3926);
  });
});

/**
 * The message size estimates (`message-size.ts`) against MessagePack's formats and the UTF-8 encoder.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arrayHeaderBytes,
  binBytes,
  packetBaseBytes,
  packetBytes,
  pushPullBaseBytes,
  snapshotEntryBytes,
  strBytes,
  uintBytes,
  updateBytes,
  utf8Length,
} from '../../src/swim/message-size.js';
import type { Packet, Update } from '../../src/swim/messages.js';
import { RUNS, SEED } from '../support/swim-fixtures.js';

describe('message sizes', () => {
  it.each([
    { s: '', bytes: 0, why: 'empty' },
    { s: 'node-1:7946', bytes: 11, why: 'ASCII: one byte each' },
    { s: '\u007f', bytes: 1, why: 'U+007F, the last 1-byte code point' },
    { s: '\u0080', bytes: 2, why: 'U+0080, the first 2-byte code point' },
    { s: 'é', bytes: 2, why: 'U+00E9' },
    { s: '\u07ff', bytes: 2, why: 'U+07FF, the last 2-byte code point' },
    { s: '\u0800', bytes: 3, why: 'U+0800, the first 3-byte code point' },
    { s: '中', bytes: 3, why: 'U+4E2D' },
    { s: '\uffff', bytes: 3, why: 'U+FFFF, the last 3-byte code point' },
    { s: '😀', bytes: 4, why: 'U+1F600: a surrogate pair, one 4-byte code point' },
    { s: '\u{10000}', bytes: 4, why: 'U+10000, the first 4-byte code point' },
    { s: '\u{10ffff}', bytes: 4, why: 'U+10FFFF, the last code point' },
    { s: 'aé中😀', bytes: 10, why: '1 + 2 + 3 + 4' },
    { s: '\ud800', bytes: 3, why: 'a lone high surrogate at the end is written as U+FFFD' },
    { s: '\udc00x', bytes: 4, why: 'a lone low surrogate is written as U+FFFD' },
    { s: '\udc00\udc00', bytes: 6, why: 'two low surrogates are no pair: U+FFFD twice' },
    { s: '中\udc00', bytes: 6, why: 'a BMP character then a low surrogate: 3 + U+FFFD' },
    {
      s: '\ud800\ue000',
      bytes: 6,
      why: 'a high surrogate then U+E000, above the low surrogates: U+FFFD + 3',
    },
  ])('utf8Length($s) = $bytes ($why)', ({ s, bytes }) => {
    expect(utf8Length(s)).toBe(bytes);
    expect(Buffer.byteLength(s, 'utf8')).toBe(bytes);
  });

  it('utf8Length agrees with the UTF-8 encoder on well-formed strings', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(utf8Length(s)).toBe(encoder.encode(s).length);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  // Regression: a lone high surrogate is U+FFFD (3 bytes) and must not swallow the next code unit:
  // '\uD800\u4E2D' encodes to 6 bytes, '\uD800é' to 5.
  it('counts a high surrogate that is not followed by a low surrogate as U+FFFD', () => {
    const encoder = new TextEncoder();
    for (const s of ['\ud800\u4e2d', '\ud800é', '\udbff\ud800']) {
      expect(utf8Length(s)).toBe(encoder.encode(s).length);
    }
  });

  it.each([
    // MessagePack: fixstr 0xa0–0xbf up to 31 bytes, str 8 (0xd9) up to 255, str 16 (0xda) up to 65535,
    // str 32 (0xdb) beyond. The header depends on the UTF-8 length, not on the number of characters.
    { chars: 0, unit: 'a', bytes: 1, format: 'fixstr' },
    { chars: 31, unit: 'a', bytes: 32, format: 'fixstr' },
    { chars: 32, unit: 'a', bytes: 34, format: 'str 8' },
    { chars: 255, unit: 'a', bytes: 257, format: 'str 8' },
    { chars: 256, unit: 'a', bytes: 259, format: 'str 16' },
    { chars: 65_535, unit: 'a', bytes: 65_538, format: 'str 16' },
    { chars: 65_536, unit: 'a', bytes: 65_541, format: 'str 32' },
    { chars: 10, unit: '中', bytes: 31, format: 'fixstr (30 bytes)' },
    { chars: 11, unit: '中', bytes: 35, format: 'str 8 (33 bytes in 11 characters)' },
    { chars: 86, unit: '中', bytes: 261, format: 'str 16 (258 bytes in 86 characters)' },
  ])('strBytes of $chars × "$unit" = $bytes ($format)', ({ chars, unit, bytes }) => {
    expect(strBytes(unit.repeat(chars))).toBe(bytes);
  });

  it.each([
    // positive fixint 0x00–0x7f, uint 8 (0xcc), uint 16 (0xcd), uint 32 (0xce), uint 64 (0xcf)
    { x: 0, bytes: 1, format: 'positive fixint' },
    { x: 127, bytes: 1, format: 'positive fixint' },
    { x: 128, bytes: 2, format: 'uint 8' },
    { x: 255, bytes: 2, format: 'uint 8' },
    { x: 256, bytes: 3, format: 'uint 16' },
    { x: 65_535, bytes: 3, format: 'uint 16' },
    { x: 65_536, bytes: 5, format: 'uint 32' },
    { x: 2 ** 32 - 1, bytes: 5, format: 'uint 32' },
    { x: 2 ** 32, bytes: 9, format: 'uint 64' },
    { x: Number.MAX_SAFE_INTEGER, bytes: 9, format: 'uint 64' },
  ])('uintBytes($x) = $bytes ($format)', ({ x, bytes }) => {
    expect(uintBytes(x)).toBe(bytes);
  });

  it.each([
    // bin 8 (0xc4) up to 255 bytes, bin 16 (0xc5) up to 65535, bin 32 (0xc6); there is no "fixbin"
    { n: 0, bytes: 2, format: 'bin 8' },
    { n: 255, bytes: 257, format: 'bin 8' },
    { n: 256, bytes: 259, format: 'bin 16' },
    { n: 65_535, bytes: 65_538, format: 'bin 16' },
    { n: 65_536, bytes: 65_541, format: 'bin 32' },
  ])('binBytes of $n bytes = $bytes ($format)', ({ n, bytes }) => {
    expect(binBytes(new Uint8Array(n))).toBe(bytes);
  });

  it.each([
    // fixarray 0x90–0x9f up to 15 elements, array 16 (0xdc), array 32 (0xdd)
    { n: 0, bytes: 1 },
    { n: 15, bytes: 1 },
    { n: 16, bytes: 3 },
    { n: 65_535, bytes: 3 },
    { n: 65_536, bytes: 5 },
  ])('arrayHeaderBytes($n) = $bytes', ({ n, bytes }) => {
    expect(arrayHeaderBytes(n)).toBe(bytes);
  });

  const alive: Update = {
    kind: 'alive',
    name: 'n1', // 3
    address: '10.0.0.1:7946', // 14
    incarnation: 1_700_000_000, // 5
    meta: new Uint8Array(3), // 5
  }; // 2 + 3 + 14 + 5 + 5 = 29
  const suspect: Update = { kind: 'suspect', name: 'n2', incarnation: 200, from: 'n1' }; // 2 + 3 + 2 + 3 = 10
  // The refusal flag, `true`, is one more element of one byte (0xc3).
  const refused: Update = { kind: 'suspect', name: 'n2', incarnation: 200, from: 'n1', refused: true }; // 11
  const dead: Update = { kind: 'dead', name: 'n3', incarnation: 70_000, from: 'n1' }; // 2 + 3 + 5 + 3 = 13
  const user: Update = { kind: 'user', origin: 'n1', seq: 0, payload: new Uint8Array(300) }; // 2 + 3 + 1 + 303

  it.each([
    { u: alive, bytes: 29 },
    { u: suspect, bytes: 10 },
    { u: refused, bytes: 11 },
    { u: dead, bytes: 13 },
    { u: user, bytes: 309 },
  ])('updateBytes($u.kind) = $bytes', ({ u, bytes }) => {
    expect(updateBytes(u)).toBe(bytes);
  });

  const packets: readonly { readonly p: Packet; readonly base: number; readonly total: number }[] = [
    // envelope 3 + seq 1 + 'a' 2 + 'b' 2; + fixarray 1
    { p: { type: 'ping', seq: 1, from: 'a', target: 'b', updates: [] }, base: 8, total: 9 },
    // envelope 3 + seq 5 + 'a' 2 + 'b' 2 + 'b:1' 4 + nack flag 1; + fixarray 1 + suspect 10
    {
      p: {
        type: 'ping-req',
        seq: 70_000,
        from: 'a',
        target: 'b',
        targetAddress: 'b:1',
        nack: true,
        updates: [suspect],
      },
      base: 17,
      total: 28,
    },
    // envelope 3 + seq 2 + 'abc' 4; + fixarray 1
    { p: { type: 'ack', seq: 128, from: 'abc', updates: [] }, base: 9, total: 10 },
    { p: { type: 'nack', seq: 128, from: 'abc', updates: [] }, base: 9, total: 10 },
    // envelope 3 + 'node-1' 7; + fixarray 1 + 29 + 10 + 13 + 309
    { p: { type: 'gossip', from: 'node-1', updates: [alive, suspect, dead, user] }, base: 10, total: 372 },
    // envelope 3 + 'a' 2; + array 16 header 3 + 16 × 10
    {
      p: { type: 'gossip', from: 'a', updates: Array.from({ length: 16 }, () => suspect) },
      base: 5,
      total: 168,
    },
    // envelope 3 + 'a' 2 + bin 12; + fixarray 1
    { p: { type: 'user', from: 'a', payload: new Uint8Array(10), updates: [] }, base: 17, total: 18 },
  ];

  it.each(packets)('packetBytes($p.type) = $total: base $base + update array', ({ p, base, total }) => {
    expect(packetBaseBytes(p)).toBe(base);
    expect(packetBytes(p)).toBe(total);
    expect(packetBytes(p)).toBe(
      packetBaseBytes(p) +
        arrayHeaderBytes(p.updates.length) +
        p.updates.reduce((s, u) => s + updateBytes(u), 0),
    );
  });

  it('snapshotEntryBytes: array header and state tag 2 + name and address + incarnation + meta', () => {
    // 2 + 17 + uint 8 for 200 (2) + bin 8 of 3 bytes (5) = 26
    expect(snapshotEntryBytes(17, 200, new Uint8Array(3))).toBe(26);
    // 2 + 4 + fixint 0 (1) + bin 8 of 0 bytes (2) = 9
    expect(snapshotEntryBytes(4, 0, new Uint8Array(0))).toBe(9);
  });

  it('pushPullBaseBytes: envelope and flags 5 + the sender + the member array header', () => {
    // 5 + 'node-1' (7) + array 16 header for 20 members (3) = 15
    expect(pushPullBaseBytes('node-1', 20)).toBe(15);
    // 5 + 'a' (2) + fixarray header (1) = 8
    expect(pushPullBaseBytes('a', 0)).toBe(8);
  });
});

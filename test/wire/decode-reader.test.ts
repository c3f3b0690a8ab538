/**
 * The reading machinery the decoders share (src/wire/decode-reader.ts), through the decoders that use
 * it: the checks every datagram passes before its type is looked at (bytes, the UDP limit, not empty,
 * one MessagePack array of version and type), the unpacking of untrusted bytes, the version check, and
 * the copy of byte fields. Each drop is pinned with its exact detail.
 */
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decodeStream } from '../../src/wire/index.js';
import { bin, expectDrop, pack } from './decode-input.js';

describe('unpackDatagram: the checks before the message type', () => {
  it('input that is not a Uint8Array', () => {
    for (const notBytes of ['9101', null, [0x91, 0x01], new ArrayBuffer(2)]) {
      expectDrop(decodeDatagram(notBytes as never), 'malformed', 'not a Uint8Array');
    }
  });

  it('a datagram over 65,507 bytes is too large, said with both sizes, before it is read', () => {
    expectDrop(
      decodeDatagram(new Uint8Array(65_508)),
      'too-large',
      '65508 bytes, a datagram holds at most 65507',
    );
  });

  it('an empty datagram', () => {
    expectDrop(decodeDatagram(new Uint8Array(0)), 'malformed', 'empty datagram');
  });

  it('a message array of fewer than two elements', () => {
    expectDrop(decodeDatagram(pack([1])), 'malformed', 'the message array has 1 elements');
    expectDrop(decodeDatagram(pack([])), 'malformed', 'the message array has 0 elements');
  });
});

describe('unpackOne: exactly one MessagePack array', () => {
  it('bytes that are not MessagePack say so, with the unpacker’s reason', () => {
    // 92 01: an array of two announced, one there
    const result = decodeDatagram(Uint8Array.of(0x92, 0x01));
    expect(result).toMatchObject({ ok: false, reason: 'malformed' });
    expect(!result.ok && result.detail).toMatch(/^not MessagePack: \S/);
  });

  it('a value that is not an array', () => {
    for (const value of [5, 'ping', null, { 0: 1, 1: 3 }, bin(2)]) {
      expectDrop(decodeDatagram(pack(value)), 'malformed', 'the message is not an array');
      expectDrop(decodeStream(pack(value)), 'malformed', 'the message is not an array');
    }
  });

  it('bytes after the one value, counted', () => {
    // [1, 3, 5, "a", []] is 95 01 03 05 a1 61 90: 7 bytes, then 2 more
    expectDrop(
      decodeDatagram(Uint8Array.of(0x95, 0x01, 0x03, 0x05, 0xa1, 0x61, 0x90, 0x00, 0x00)),
      'malformed',
      '2 bytes after the message',
    );
  });

  // Maps decode to plain objects, whose keys must be strings or numbers: one keyed by an array is refused
  // while unpacking, before the field it stands in is looked at.
  it('a map keyed by an array is refused by the unpacker', () => {
    // [1, 3, 5, {[1]: 2}, []]: 95 01 03 05, then 81 91 01 02 for the map, 90
    const result = decodeDatagram(Uint8Array.of(0x95, 0x01, 0x03, 0x05, 0x81, 0x91, 0x01, 0x02, 0x90));
    expect(result).toMatchObject({ ok: false, reason: 'malformed' });
    expect(!result.ok && result.detail).toMatch(/^not MessagePack: /);
  });
});

describe('checkVersion', () => {
  it('a version that is not a number is malformed, one that is another number unknown', () => {
    expectDrop(decodeDatagram(pack(['1', 3, 5, 'a', []])), 'malformed', 'the version is not a number');
    expectDrop(
      decodeStream(pack([null, 8, 'a', true, false, []])),
      'malformed',
      'the version is not a number',
    );
    expectDrop(
      decodeDatagram(pack([1, 7, [[0, 3, 5, 'a', []]]])),
      'unknown-version',
      'compound[0].version 0, this member speaks 1',
    );
  });
});

describe('copyBytes', () => {
  it('a byte field is a copy of its bytes, not a view of the input', () => {
    const input = pack([1, 6, 'a', bin(3, 7), []]);
    const result = decodeDatagram(input);
    input.fill(0);
    expect(result.ok && result.packets[0]).toEqual({
      type: 'user',
      from: 'a',
      payload: bin(3, 7),
      updates: [],
    });
  });

  // Nothing to copy: every empty byte field is the one shared empty array, not an allocation each.
  it('every empty byte field is the same empty array', () => {
    const result = decodeDatagram(pack([1, 6, 'a', bin(0), [[1, 'n', 'h:1', 3, bin(0)]]]));
    const other = decodeStream(pack([1, 8, 'a', true, false, [[0, 'n', 'h:1', 3, bin(0)]]]));
    if (!result.ok || !other.ok) throw new Error('expected both to decode');
    const packet = result.packets[0]!;
    if (packet.type !== 'user' || packet.updates[0]?.kind !== 'alive') throw new Error('unexpected packet');
    if (other.message.type !== 'push-pull') throw new Error('unexpected message');
    expect(packet.payload).toEqual(new Uint8Array(0));
    expect(packet.updates[0].meta).toBe(packet.payload);
    expect(other.message.members.metas[0]).toBe(packet.payload);
  });
});

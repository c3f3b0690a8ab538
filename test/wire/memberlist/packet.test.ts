/**
 * memberlist's datagram envelope (`src/wire/memberlist/packet.ts`): the layers in memberlist's order,
 * their bytes worked out by hand (compound, CRC, label header, encryption layout), round trips under
 * every combination of options, fdkit datagrams passed through raw, and a rejection for each broken
 * layer: wrong label, wrong key, bad CRC, unknown compression, a compress bomb, truncations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMlCompound } from '../../../src/wire/memberlist/compound.js';
import { encodeMlCompress } from '../../../src/wire/memberlist/compress.js';
import { crc32 } from '../../../src/wire/memberlist/crc.js';
import { encodeMlMessage } from '../../../src/wire/memberlist/messages.js';
import { MpWriter } from '../../../src/wire/memberlist/msgpack.js';
import {
  decodeMlPacket,
  encodeMlPacket,
  type MlPacketOptions,
  type MlPacketResult,
} from '../../../src/wire/memberlist/packet.js';
import { encryptMl } from '../../../src/wire/memberlist/security.js';
import type { MlPacketMessage } from '../../../src/wire/memberlist/types.js';
import { arbMlPacketMessage } from './arbitraries.js';

/** Version 0 of a message, as memberlist speaking protocol 1 writes it: the plaintext PKCS7-padded to 16 bytes. */
function encryptMlVersion0(
  key: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  fillRandom: (bytes: Uint8Array) => void,
): Uint8Array {
  const pad = 16 - (plain.length % 16);
  const padded = new Uint8Array(plain.length + pad).fill(pad);
  padded.set(plain);
  const out = encryptMl(key, padded, aad, fillRandom);
  out[0] = 0;
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const KEY16 = new Uint8Array(16).fill(1);
const KEY32 = new Uint8Array(32).fill(2);
const zeros = (bytes: Uint8Array) => bytes.fill(0);
const PLAIN: MlPacketOptions = { label: '', keys: [], compress: false, crc: false };
const ACK: MlPacketMessage = { type: 'ack', seqNo: 5, payload: new Uint8Array(0) };
const NACK: MlPacketMessage = { type: 'nack', seqNo: 6 };

function messages(result: MlPacketResult): readonly MlPacketMessage[] {
  if (!result.ok) throw new Error(`rejected: ${result.reason}: ${result.detail}`);
  if (result.kind !== 'messages') throw new Error('inner');
  return result.messages;
}

function why(result: MlPacketResult): [string, string] | 'accepted' {
  return result.ok ? 'accepted' : [result.reason, result.detail];
}

describe('encodeMlPacket', () => {
  it('sends one message as it is, several as a compound: 7, count, u16 lengths, parts', () => {
    const ack = encodeMlMessage(ACK);
    const nack = encodeMlMessage(NACK);
    expect(encodeMlPacket([ACK], PLAIN, zeros)).toEqual(ack);
    const compound = encodeMlPacket([ACK, NACK], PLAIN, zeros);
    const lengths = `${ack.length.toString(16).padStart(4, '0')}${nack.length.toString(16).padStart(4, '0')}`;
    expect(hex(compound)).toBe(`0702${lengths}${hex(ack)}${hex(nack)}`);
  });

  it('adds the CRC header: 12, then the big-endian IEEE CRC-32 of the rest', () => {
    const ack = encodeMlMessage(ACK);
    const out = encodeMlPacket([ACK], { ...PLAIN, crc: true }, zeros);
    expect(hex(out)).toBe(`0c${crc32(ack).toString(16).padStart(8, '0')}${hex(ack)}`);
  });

  it('compresses only when that is shorter', () => {
    const small = encodeMlPacket([ACK], { ...PLAIN, compress: true }, zeros);
    expect(small).toEqual(encodeMlMessage(ACK));
    const user: MlPacketMessage = { type: 'user', payload: new Uint8Array(500).fill(65) };
    const big = encodeMlPacket([user], { ...PLAIN, compress: true }, zeros);
    expect(big[0]).toBe(9);
    expect(big.length).toBeLessThan(100);
  });

  it('puts the label header outside the encryption, and encrypts with the label as authenticated data', () => {
    const out = encodeMlPacket(
      [ACK],
      { label: 'prod', keys: [KEY16, KEY32], compress: false, crc: true },
      zeros,
    );
    expect(hex(out.subarray(0, 6))).toBe(`f404${Buffer.from('prod').toString('hex')}`);
    // Version 1, a zero nonce (from the injected source), ciphertext of CRC header + ack, tag.
    const ack = encodeMlMessage(ACK);
    expect(out.length).toBe(6 + 1 + 12 + 5 + ack.length + 16);
    expect(out[6]).toBe(1);
    expect(hex(out.subarray(7, 19))).toBe('00'.repeat(12));
    const plain = new Uint8Array([12, 0, 0, 0, 0, ...ack]);
    new DataView(plain.buffer).setUint32(1, crc32(ack));
    expect(out.subarray(6)).toEqual(encryptMl(KEY16, plain, Buffer.from('prod'), zeros));
  });

  it('refuses a bad key, a label over 255 bytes and more than 255 messages', () => {
    expect(() => encodeMlPacket([ACK], { ...PLAIN, keys: [new Uint8Array(15)] }, zeros)).toThrow(
      '16, 24 or 32',
    );
    expect(() => encodeMlPacket([ACK], { ...PLAIN, label: 'x'.repeat(256) }, zeros)).toThrow('label');
    expect(() => encodeMlPacket(new Array(256).fill(ACK), PLAIN, zeros)).toThrow('at most 255');
  });
});

describe('decodeMlPacket', () => {
  const options = fc.record({
    label: fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 20 })),
    keys: fc.oneof(fc.constant([]), fc.constant([KEY16]), fc.constant([KEY32, KEY16])),
    compress: fc.boolean(),
    crc: fc.boolean(),
  });

  it('round-trips any messages under any envelope (property)', () => {
    fc.assert(
      fc.property(fc.array(arbMlPacketMessage, { minLength: 1, maxLength: 8 }), options, (msgs, o) => {
        const bytes = encodeMlPacket(msgs, o, zeros);
        expect(messages(decodeMlPacket(bytes, o))).toEqual(msgs);
      }),
    );
  });

  it('returns an fdkit datagram (a MessagePack array) raw, compressed or not', () => {
    const fdkit = new Uint8Array([0x93, 1, 2, 3, ...new Array(100).fill(0)]);
    for (const compress of [false, true]) {
      const o = { label: 'l', keys: [KEY16], compress, crc: true };
      const result = decodeMlPacket(encodeMlPacket(fdkit, o, zeros), o);
      expect(result.ok && result.kind === 'inner' && result.inner).toEqual(fdkit);
    }
  });

  it('decrypts with any installed key, and reads version 0 (PKCS7 padding)', () => {
    const o = { label: '', keys: [KEY32], compress: false, crc: false };
    const sealed = encodeMlPacket([ACK], { ...o, keys: [KEY16] }, zeros);
    expect(messages(decodeMlPacket(sealed, { label: '', keys: [KEY32, KEY16] }))).toEqual([ACK]);
    const v0 = encryptMlVersion0(KEY32, encodeMlMessage(NACK), new Uint8Array(0), zeros);
    expect(v0[0]).toBe(0);
    expect((v0.length - 29) % 16).toBe(0);
    expect(messages(decodeMlPacket(v0, o))).toEqual([NACK]);
  });

  it('keeps the good parts of a compound and counts the bad and the truncated ones', () => {
    const ack = encodeMlMessage(ACK);
    const bad = new Uint8Array([2, 0x91]);
    const compound = encodeMlCompound([ack, bad, ack]);
    const result = decodeMlPacket(compound.subarray(0, compound.length - 1), { label: '', keys: [] });
    expect(
      result.ok && result.kind === 'messages' && [result.messages, result.truncated, result.rejected.length],
    ).toEqual([[ACK], 1, 1]);
  });

  it('reads a compound inside a compressed message, as memberlist sends piggybacked gossip', () => {
    const inner = encodeMlCompound([encodeMlMessage(ACK), encodeMlMessage(NACK)]);
    expect(messages(decodeMlPacket(encodeMlCompress(inner), { label: '', keys: [] }))).toEqual([ACK, NACK]);
  });

  it('rejects each broken layer with its reason', () => {
    const none = { label: '', keys: [] as Uint8Array[] };
    const ack = encodeMlMessage(ACK);
    const sealed = encodeMlPacket([ACK], { ...PLAIN, keys: [KEY16], label: 'a' }, zeros);
    const withCrc = encodeMlPacket([ACK], { ...PLAIN, crc: true }, zeros);
    withCrc[withCrc.length - 1]! ^= 1;
    const algo1 = new MpWriter()
      .u8(9)
      .map(2)
      .str('Algo')
      .uint(1)
      .str('Buf')
      .bytes(new Uint8Array([0]))
      .finish();
    const bomb = encodeMlCompress(new Uint8Array(2_000_000).fill(7));
    const twice = encodeMlCompress(encodeMlCompress(new Uint8Array(300).fill(1)));
    const nested = encodeMlCompound([encodeMlCompound([ack])]);
    const cases: [Uint8Array, { label: string; keys: Uint8Array[] }, [string, string]][] = [
      [sealed, { label: 'b', keys: [KEY16] }, ['invalid-field', "label 'a', expected 'b'"]],
      [ack, { label: 'b', keys: [] }, ['invalid-field', "label '', expected 'b'"]],
      [new Uint8Array([244, 0, 1]), none, ['malformed', 'label header with an empty label']],
      [new Uint8Array([244, 5, 1]), none, ['malformed', 'truncated label header']],
      [sealed, { label: 'a', keys: [KEY32] }, ['decrypt-failed', 'no key opens the datagram (no-key)']],
      [
        sealed.subarray(0, 20),
        { label: 'a', keys: [KEY16] },
        ['decrypt-failed', 'no key opens the datagram (too-short)'],
      ],
      [
        encodeMlMessage(NACK),
        { label: '', keys: [KEY16] },
        ['not-encrypted', 'not encrypted, and this member has keys'],
      ],
      [withCrc, none, ['malformed', 'bad CRC']],
      [algo1, none, ['invalid-field', 'compress.Algo: 1, not LZW (0)']],
      [bomb, none, ['too-large', 'compress.Buf: more than 1048576 bytes decompressed']],
      [twice, none, ['malformed', 'compressed message inside a compressed message']],
      [nested, none, ['accepted-with-rejection', '']],
      [new Uint8Array([7, 3, 0]), none, ['malformed', 'compound: 3 lengths announced, bytes for fewer']],
      [new Uint8Array([13, 0x80]), none, ['unknown-type', 'an err message in a datagram']],
      [new Uint8Array([6, 0x80]), none, ['unknown-type', 'message type 6']],
      [new Uint8Array(0), none, ['malformed', 'empty message']],
    ];
    for (const [bytes, o, expected] of cases) {
      const result = decodeMlPacket(bytes, o);
      if (expected[0] === 'accepted-with-rejection') {
        expect(result.ok && result.kind === 'messages' && result.rejected[0]?.detail).toBe(
          'compound inside a compound',
        );
      } else expect(why(result)).toEqual(expected);
    }
  });

  it('never throws on arbitrary or damaged datagrams (property)', () => {
    fc.assert(
      fc.property(
        fc.array(arbMlPacketMessage, { minLength: 1, maxLength: 4 }),
        options,
        fc.nat(),
        fc.nat(255),
        (msgs, o, at, value) => {
          const bytes = encodeMlPacket(msgs, o, zeros);
          const i = at % bytes.length;
          const changed = bytes.slice();
          changed[i] = value;
          expect(typeof decodeMlPacket(changed, o).ok).toBe('boolean');
          expect(typeof decodeMlPacket(bytes.subarray(0, i), o).ok).toBe('boolean');
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(typeof decodeMlPacket(bytes, { label: '', keys: [] }).ok).toBe('boolean');
      }),
    );
  });
});

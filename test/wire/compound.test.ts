/**
 * The bounds of compound datagrams (`src/wire/compound.ts`), at their edges: `encodeCompound` takes 1 to
 * 255 packets and a result of up to 65,507 bytes, `packCompound` a budget from 7 to 65,507 and at most
 * 255 parts per datagram, counting the 6-byte header from 16 parts. Refusals are `InvalidArgumentError`s
 * that name the function, the argument and the value received. Sizes are worked out by hand from the
 * MessagePack layout in the comments.
 */
import { describe, expect, it } from 'vitest';
import type { Ack, Packet } from '../../src/swim/messages.js';
import { decodeDatagram, encodeCompound, encodePacket, packCompound } from '../../src/wire/index.js';
import { refusal, refused } from './refusal.js';

const ACK: Ack = { type: 'ack', seq: 1, from: 'n1', updates: [] };
// [1, 3, 1, 'n1', []]: fixarray header 1 + version 1 + tag 1 + seq 1 + fixstr 1 + 2 + fixarray 1 = 8 bytes.
const ACK_BYTES = 8;

/** A user packet from 'n1' with a `payload`-byte payload, 256 to 65,535 bytes: 10 + payload bytes. */
function user(payload: number): Packet {
  // [1, 6, 'n1', bin16, []]: header 1 + version 1 + tag 1 + 'n1' 3 + bin16 header 3 + payload + 1.
  return { type: 'user', from: 'n1', payload: new Uint8Array(payload), updates: [] };
}

describe('encodeCompound', () => {
  it('takes 1 to 255 packets and refuses 0 and 256, naming the argument and the count', () => {
    expect(encodeCompound([ACK]).length).toBe(4 + ACK_BYTES);
    expect(encodeCompound(new Array(255).fill(ACK)).length).toBe(6 + 255 * ACK_BYTES);
    for (const count of [0, 256]) {
      expect(refusal(() => encodeCompound(new Array(count).fill(ACK)))).toEqual(
        refused('packets', `encodeCompound: 1 to 255 packets, got ${count}`),
      );
    }
  });

  it('takes a compound of exactly 65,507 bytes and refuses one of 65,508', () => {
    // Header 4 + (10 + 32,742) + (10 + 32,741) = 65,507.
    const largest = encodeCompound([user(32_742), user(32_741)]);
    expect(largest.length).toBe(65_507);
    const result = decodeDatagram(largest);
    expect(result.ok && result.packets.map((p) => p.type)).toEqual(['user', 'user']);
    expect(refusal(() => encodeCompound([user(32_742), user(32_742)]))).toEqual(
      refused('packets', 'encodeCompound: 65508 bytes, more than a datagram holds (65507)'),
    );
  });
});

describe('packCompound', () => {
  const ack = encodePacket(ACK);

  it('takes a budget of 7 and of 65,507, and refuses 6 and 65,508 naming the value', () => {
    expect(ack.length).toBe(ACK_BYTES);
    // At 7 bytes no compound holds an 8-byte ack: each goes alone.
    expect(packCompound([ack, ack], 7)).toEqual([ack, ack]);
    expect(packCompound([ack, ack], 65_507).map((d) => d.length)).toEqual([4 + 2 * ACK_BYTES]);
    for (const budget of [6, 65_508]) {
      expect(refusal(() => packCompound([ack], budget))).toEqual(
        refused('budgetBytes', `packCompound: budgetBytes must be an integer in [7, 65507], got ${budget}`),
      );
    }
  });

  it('returns a new array, also for one packet or none: the caller’s list is left alone', () => {
    for (const encoded of [[], [ack]]) {
      const out = packCompound(encoded, 1400);
      expect(out).toEqual(encoded);
      expect(out).not.toBe(encoded);
    }
  });

  it('counts the 6-byte header from the 16th part', () => {
    // Sixteen acks would take 6 + 16 × 8 = 134 bytes: within a 134-byte budget, not within 133, where
    // the 16th goes alone after a compound of 15 (4 + 15 × 8 = 124 bytes).
    const sixteen = new Array(16).fill(ack);
    expect(packCompound(sixteen, 134).map((d) => d.length)).toEqual([134]);
    expect(packCompound(sixteen, 133).map((d) => d.length)).toEqual([124, ACK_BYTES]);
    expect(packCompound(sixteen, 132).map((d) => d.length)).toEqual([124, ACK_BYTES]);
  });

  it('puts at most 255 parts in one datagram, whatever the budget', () => {
    // 256 acks: a compound of 255 (6 + 255 × 8 = 2,046 bytes) and the last alone.
    const out = packCompound(new Array(256).fill(ack), 65_507);
    expect(out.map((d) => d.length)).toEqual([6 + 255 * ACK_BYTES, ACK_BYTES]);
    expect(out[1]).toBe(ack);
  });
});

/**
 * The encoder's own checks and its buffer policy (`src/wire/encode.ts`): a valid packet longer than a
 * datagram is refused with an `InvalidArgumentError` naming the argument, the type and the size; and
 * msgpackr's shared write buffer, grown by a large stream body, is kept for bodies up to 64 KiB
 * (65,536 bytes) and replaced by a fresh 8 KiB one past that, while small stream messages leave it alone.
 * Sizes are worked out by hand from the MessagePack layout in the comments.
 */
import { describe, expect, it } from 'vitest';
import type { Ack, PushPull, Update } from '../../src/swim/messages.js';
import { encodePacket, encodeStream } from '../../src/wire/index.js';
import { refusal, refused } from './refusal.js';

const ACK: Ack = { type: 'ack', seq: 1, from: 'n1', updates: [] };

describe('encodePacket', () => {
  it('refuses a valid packet longer than a datagram, naming its type and size', () => {
    // An alive update [1, 'a', 'b', 0, bin16 of 512] takes 1 + 1 + 2 + 2 + 1 + (3 + 512) = 522 bytes;
    // the gossip envelope [1, 5, 'g', array16] 1 + 1 + 1 + 2 + 3 = 8: 130 updates make 67,868 bytes.
    const alive: Update = {
      kind: 'alive',
      name: 'a',
      address: 'b',
      incarnation: 0,
      meta: new Uint8Array(512),
    };
    const updates = new Array<Update>(130).fill(alive);
    expect(refusal(() => encodePacket({ type: 'gossip', from: 'g', updates }))).toEqual(
      refused(
        'packet',
        'encodePacket: the gossip packet takes 67868 bytes, more than a datagram holds (65507)',
      ),
    );
  });
});

/**
 * A push-pull whose body is 65,271 + `last` bytes for `last` from 256 to 512: the envelope
 * [1, 8, 'n1', false, false, array16] takes 1 + 1 + 1 + 3 + 1 + 1 + 3 = 11 bytes, each member
 * [0, 'a', 'b', 0, bin16] 1 + 1 + 2 + 2 + 1 + 3 = 10 bytes plus its meta: 125 members with 512 bytes of
 * meta (65,250 bytes) and one with `last` (10 + last).
 */
function pushPull(last: number): PushPull {
  const n = 126;
  return {
    type: 'push-pull',
    from: 'n1',
    join: false,
    reply: false,
    members: {
      names: new Array(n).fill('a'),
      addresses: new Array(n).fill('b'),
      incarnations: new Uint32Array(n),
      states: new Uint8Array(n),
      metas: Array.from({ length: n }, (_, i) => new Uint8Array(i === n - 1 ? last : 512)),
    },
  };
}

describe('encodeStream and the shared write buffer', () => {
  it('keeps the buffer grown for a body of exactly 64 KiB: the next packet is written into it', () => {
    const body = encodeStream(pushPull(265));
    expect(body.length).toBe(65_536);
    const next = encodePacket(ACK);
    expect(next.buffer).toBe(body.buffer);
    expect(next.buffer.byteLength).toBeGreaterThan(65_536);
  });

  it('replaces it after a body of 65,537 bytes with a fresh 8 KiB one', () => {
    const body = encodeStream(pushPull(266));
    expect(body.length).toBe(65_537);
    const next = encodePacket(ACK);
    expect(next.buffer).not.toBe(body.buffer);
    expect(next.buffer.byteLength).toBe(8192);
  });

  it('leaves it alone after a small stream message: the next packet shares it', () => {
    encodeStream(pushPull(266)); // a fresh 8 KiB buffer, with room for what follows
    const small = encodeStream({ ...ACK, seq: 2 });
    const next = encodePacket(ACK);
    expect(next.buffer).toBe(small.buffer);
    expect(next.buffer.byteLength).toBe(8192);
  });
});

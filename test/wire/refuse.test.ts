/**
 * The refusal of a state exchange on the wire, `[1, 10, from, code, reason]`: its exact bytes, the code
 * as its index in the refusal codes' wire order, the size state sync gives it, and what the encoder
 * refuses to write and the decoder drops (an index this member does not know among them).
 */
import { describe, expect, it } from 'vitest';
import { refuseBytes } from '../../src/swim/message-size.js';
import type { Refuse } from '../../src/swim/messages.js';
import { decodeStream, encodeStream } from '../../src/wire/index.js';
import { expectDrop, pack, wrongType } from './decode-input.js';
import { refusal, refused } from './refusal.js';

const REFUSE: Refuse = {
  type: 'refuse',
  from: 'seed',
  code: 'FDKIT_JOIN_LABEL_MISMATCH',
  reason: 'cluster label differs',
};
const REASON_RULE = 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD';
const CODE_RULE = 'a refusal code index in [0, 5]';

describe('refuse on the wire', () => {
  it('is the array [1, 10, from, code index, reason], and decodes back to the same message', () => {
    const bytes = encodeStream(REFUSE);
    // The codes' wire order: KEY 0, LABEL 1, NOT_ENCRYPTED 2, UNEXPECTED_ENCRYPTION 3, NAME_CONFLICT 4, REJECTED 5.
    expect([...bytes]).toEqual([...pack([1, 10, 'seed', 1, 'cluster label differs'])]);
    expect(decodeStream(bytes)).toEqual({ ok: true, message: REFUSE });
    for (const [index, code] of [
      [0, 'FDKIT_JOIN_KEY_MISMATCH'],
      [2, 'FDKIT_JOIN_NOT_ENCRYPTED'],
      [3, 'FDKIT_JOIN_UNEXPECTED_ENCRYPTION'],
      [4, 'FDKIT_JOIN_NAME_CONFLICT'],
      [5, 'FDKIT_JOIN_REJECTED'],
    ] as const) {
      expect(decodeStream(pack([1, 10, 'seed', index, 'why']))).toEqual({
        ok: true,
        message: { type: 'refuse', from: 'seed', code, reason: 'why' },
      });
    }
  });

  it('takes the size state sync gives it, for short and long strings', () => {
    for (const reason of ['x', 'é'.repeat(20), 'r'.repeat(255)]) {
      const message: Refuse = { ...REFUSE, from: 'f'.repeat(40), reason };
      expect(refuseBytes(message), reason).toBe(encodeStream(message).length);
    }
  });

  it('the encoder refuses an unknown code, an empty reason and one over 255 bytes', () => {
    const unknown = { ...REFUSE, code: 'FDKIT_NOPE' } as unknown as Refuse;
    expect(refusal(() => encodeStream(unknown))).toEqual(
      refused('message', `encodeStream: refuse.code: out of range; must be ${CODE_RULE}`),
    );
    for (const reason of ['', 'é'.repeat(128)]) {
      expect(refusal(() => encodeStream({ ...REFUSE, reason }))).toEqual(
        refused('message', `encodeStream: refuse.reason: out of range; must be ${REASON_RULE}`),
      );
    }
    expect(refusal(() => encodeStream({ ...REFUSE, from: '' }))).toEqual(
      refused('message', `encodeStream: refuse.from: out of range; must be ${REASON_RULE}`),
    );
  });

  it('the decoder drops an unknown code index as invalid-field, and every other bad field', () => {
    for (const index of [6, 255, 4_294_967_295]) {
      expectDrop(
        decodeStream(pack([1, 10, 'seed', index, 'why'])),
        'invalid-field',
        `refuse.code: out of range; must be ${CODE_RULE}`,
      );
    }
    expectDrop(
      decodeStream(pack([1, 10, 'seed', -1, 'why'])),
      'invalid-field',
      `refuse.code: out of range; must be ${CODE_RULE}`,
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 'one', 'why'])),
      'malformed',
      `refuse.code: wrong type; must be ${CODE_RULE}`,
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, 'r'.repeat(256)])),
      'invalid-field',
      `refuse.reason: out of range; must be ${REASON_RULE}`,
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, ''])),
      'invalid-field',
      `refuse.reason: out of range; must be ${REASON_RULE}`,
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, 7])),
      'malformed',
      `refuse.reason: wrong type; must be ${REASON_RULE}`,
    );
    expectDrop(decodeStream(pack([1, 10, 5, 0, 'why'])), 'malformed', wrongType('refuse.from', 'name'));
    expectDrop(decodeStream(pack([1, 10, 'seed', 0])), 'malformed', 'refuse: 5 elements expected, got 4');
  });

  it("may carry the seed's label as a sixth element (empty allowed), sized and checked like the rest", () => {
    for (const label of ['', 'prod', 'é'.repeat(127)]) {
      const message: Refuse = { ...REFUSE, code: 'FDKIT_JOIN_KEY_MISMATCH', label };
      const bytes = encodeStream(message);
      expect([...bytes]).toEqual([...pack([1, 10, 'seed', 0, 'cluster label differs', label])]);
      expect(decodeStream(bytes)).toEqual({ ok: true, message });
      expect(refuseBytes(message)).toBe(bytes.length);
    }
    const LABEL_RULE = 'a string of 0 to 255 bytes of well-formed UTF-8 without U+FFFD';
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, 'why', 'l'.repeat(256)])),
      'invalid-field',
      `refuse.label: out of range; must be ${LABEL_RULE}`,
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, 'why', 3])),
      'malformed',
      `refuse.label: wrong type; must be ${LABEL_RULE}`,
    );
    expect(refusal(() => encodeStream({ ...REFUSE, label: 'l'.repeat(256) }))).toEqual(
      refused('message', `encodeStream: refuse.label: out of range; must be ${LABEL_RULE}`),
    );
    expectDrop(
      decodeStream(pack([1, 10, 'seed', 0, 'why', '', 1])),
      'malformed',
      'refuse: 5 elements expected, got 7',
    );
  });
});

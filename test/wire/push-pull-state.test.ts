/**
 * The application's state in a push-pull: a seventh element written only when there is some, so that an
 * exchange without it is byte for byte the six-element record of earlier releases; its size as the core
 * estimates it; and the decoder's checks of it.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { LEFT } from '../../src/membership/member-state.js';
import { pushPullBaseBytes, snapshotEntryBytes, strBytes } from '../../src/swim/message-size.js';
import type { PushPull } from '../../src/swim/messages.js';
import { decodeStream, encodeStream } from '../../src/wire/index.js';
import { expectDrop, pack } from './decode-input.js';
import { refusal, refused } from './refusal.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** `[1, 8, "n1", true, false, [[3, "a", "b", 0, bin()]]]`, with `state` when given. */
function exchange(state?: Uint8Array): PushPull {
  const base: PushPull = {
    type: 'push-pull',
    from: 'n1',
    join: true,
    reply: false,
    members: {
      names: ['a'],
      addresses: ['b'],
      incarnations: Uint32Array.of(0),
      states: Uint8Array.of(LEFT),
      metas: [new Uint8Array(0)],
    },
  };
  return state === undefined ? base : { ...base, state };
}

const SIX_ELEMENTS = '960108a26e31c3c2919503a161a16200c400';

describe('a push-pull with application state', () => {
  it('writes no seventh element without state, or with an empty one: the six-element record', () => {
    expect(hex(encodeStream(exchange()))).toBe(SIX_ELEMENTS);
    expect(hex(encodeStream(exchange(new Uint8Array(0))))).toBe(SIX_ELEMENTS);
  });

  it('appends the state as a seventh element, a bin', () => {
    // 0x97: an array of 7; c4 02 01 02: bin8 of two bytes.
    expect(hex(encodeStream(exchange(Uint8Array.of(1, 2))))).toBe(`97${SIX_ELEMENTS.slice(2)}c4020102`);
  });

  it('round-trips the state, and reads an empty trailing bin as no state', () => {
    const state = Uint8Array.of(9, 8, 7);
    const result = decodeStream(encodeStream(exchange(state)));
    if (!result.ok) throw new Error(result.detail);
    expect(result.message).toEqual(exchange(state));
    const empty = decodeStream(
      pack([1, 8, 'n1', true, false, [[3, 'a', 'b', 0, new Uint8Array(0)]], new Uint8Array(0)]),
    );
    if (!empty.ok) throw new Error(empty.detail);
    expect('state' in empty.message).toBe(false);
  });

  it('copies the state out of the received buffer', () => {
    const bytes = encodeStream(exchange(Uint8Array.of(5, 5, 5)));
    const copy = new Uint8Array(bytes);
    const result = decodeStream(copy);
    copy.fill(0);
    expect(result.ok && result.message.type === 'push-pull' ? [...(result.message.state ?? [])] : []).toEqual(
      [5, 5, 5],
    );
  });

  it.each([1, 255, 256, 65_535, 65_536])('is %i bytes of state as long as the core estimates', (n) => {
    const message = exchange(new Uint8Array(n).fill(3));
    const entry = snapshotEntryBytes(strBytes('a') + strBytes('b'), 0, new Uint8Array(0));
    const header = n < 256 ? 2 : n < 65_536 ? 3 : 5;
    expect(encodeStream(message).length).toBe(pushPullBaseBytes('n1', 1, message.state) + entry);
    // Independently: the six-element record (18 bytes) plus the bin's header and bytes.
    expect(encodeStream(message).length).toBe(18 + header + n);
  });

  it('refuses to write a state that is not bytes', () => {
    const bad = { ...exchange(), state: 'abc' } as unknown as PushPull;
    expect(() => encodeStream(bad)).toThrow(InvalidArgumentError);
    expect(() => encodeStream(bad)).toThrow(/push-pull\.state/);
  });

  it('names the state and its rule in a refusal or a drop of a state that is not bytes', () => {
    const bad = { ...exchange(), state: [1, 2] } as unknown as PushPull;
    expect(refusal(() => encodeStream(bad))).toEqual(
      refused('message', 'encodeStream: push-pull.state: wrong type; must be a Uint8Array'),
    );
    expectDrop(
      decodeStream(pack([1, 8, 'n1', true, false, [[3, 'a', 'b', 0, new Uint8Array(0)]], 'abc'])),
      'malformed',
      'push-pull.state: wrong type; must be a Uint8Array',
    );
  });
});

/**
 * The stream decoder's drops, each with the exact detail it gives: the envelope of a stream body (its
 * own size limit and messages), the push-pull's fields and every field of a member entry, and the catch
 * that keeps a bug from reaching the connection handler; and the `maxBytes` option's check.
 * test/wire/rejects.test.ts covers the reasons over many more values; these pin the details.
 */
import { describe, expect, it } from 'vitest';
import { type DropReason, decodeStream } from '../../src/wire/index.js';
import { expectOptionError } from '../support/validation.js';
import { bin, expectDrop, outOfRange, pack, throwingBytes, wrongType } from './decode-input.js';

/** A valid member entry, put before the entry under test so that it sits at index 1. */
const MEMBER = [0, 'm', 'h:0', 1, bin(1)];

/** A push-pull from "a" (join, not a reply) with `members`. */
const pushPull = (members: unknown): unknown[] => [1, 8, 'a', true, false, members];

interface Case {
  readonly label: string;
  readonly structure: unknown;
  readonly reason: DropReason;
  readonly detail: string;
}

const CASES: readonly Case[] = [
  {
    label: 'a version other than 1',
    structure: [2, 8, 'a', true, false, []],
    reason: 'unknown-version',
    detail: 'version 2, this member speaks 1',
  },
  {
    label: 'a push-pull with an element too few',
    structure: [1, 8, 'a', true, false],
    reason: 'malformed',
    detail: 'push-pull: 6 or 7 elements expected, got 5',
  },
  {
    // two elements pass the envelope; the push-pull then has too few
    label: 'a push-pull of version and type alone',
    structure: [1, 8],
    reason: 'malformed',
    detail: 'push-pull: 6 or 7 elements expected, got 2',
  },
  {
    label: 'from',
    structure: [1, 8, 5, true, false, []],
    reason: 'malformed',
    detail: wrongType('push-pull.from', 'name'),
  },
  {
    label: 'join',
    structure: [1, 8, 'a', 1, false, []],
    reason: 'malformed',
    detail: wrongType('push-pull.join', 'boolean'),
  },
  {
    label: 'reply',
    structure: [1, 8, 'a', true, 'no', []],
    reason: 'malformed',
    detail: wrongType('push-pull.reply', 'boolean'),
  },
  {
    label: 'members that are not an array',
    structure: pushPull({ 0: MEMBER }),
    reason: 'malformed',
    detail: 'push-pull.members: not an array',
  },
  {
    label: 'a state that is not a number',
    structure: pushPull([MEMBER, ['alive', 'n', 'h:1', 3, bin(2)]]),
    reason: 'malformed',
    detail: wrongType('push-pull.members[1].state', 'state'),
  },
  {
    label: 'a state above 3',
    structure: pushPull([[4, 'n', 'h:1', 3, bin(2)]]),
    reason: 'invalid-field',
    detail: outOfRange('push-pull.members[0].state', 'state'),
  },
  {
    label: 'a member name',
    structure: pushPull([MEMBER, [0, '', 'h:1', 3, bin(2)]]),
    reason: 'invalid-field',
    detail: outOfRange('push-pull.members[1].name', 'name'),
  },
  {
    label: 'a member address',
    structure: pushPull([MEMBER, [0, 'n', null, 3, bin(2)]]),
    reason: 'malformed',
    detail: wrongType('push-pull.members[1].address', 'address'),
  },
  {
    label: 'a member incarnation',
    structure: pushPull([MEMBER, [0, 'n', 'h:1', -3, bin(2)]]),
    reason: 'invalid-field',
    detail: outOfRange('push-pull.members[1].incarnation', 'u32'),
  },
  {
    label: 'a member meta',
    structure: pushPull([MEMBER, [0, 'n', 'h:1', 3, 'meta']]),
    reason: 'malformed',
    detail: wrongType('push-pull.members[1].meta', 'meta'),
  },
  {
    label: 'a type that is not a number',
    structure: [1, 'push-pull', 'a', true, false, []],
    reason: 'malformed',
    detail: 'the message type is not a number',
  },
];

describe('decodeStream: the detail names the field at fault and its rule', () => {
  it.each(CASES)('$label', ({ structure, reason, detail }) => {
    expectDrop(decodeStream(pack(structure)), reason, detail);
  });

  it('a valid push-pull of two members decodes to its columns', () => {
    const result = decodeStream(pack(pushPull([MEMBER, [3, 'n', 'h:1', 4_000_000_000, bin(0)]])));
    expect(result).toEqual({
      ok: true,
      message: {
        type: 'push-pull',
        from: 'a',
        join: true,
        reply: false,
        members: {
          names: ['m', 'n'],
          addresses: ['h:0', 'h:1'],
          incarnations: Uint32Array.of(1, 4_000_000_000),
          states: Uint8Array.of(0, 3),
          metas: [bin(1), bin(0)],
        },
      },
    });
  });
});

describe('decodeStream: the envelope of a stream body', () => {
  it.each([
    { label: 'a string', input: '9101', detail: 'not a Uint8Array' },
    { label: 'null', input: null, detail: 'not a Uint8Array' },
    { label: 'an array of numbers', input: [0x91, 0x01], detail: 'not a Uint8Array' },
    { label: 'an empty body', input: new Uint8Array(0), detail: 'empty stream message' },
    { label: 'an array of one element', input: pack([1]), detail: 'the message array has 1 elements' },
    { label: 'an empty array', input: pack([]), detail: 'the message array has 0 elements' },
  ])('$label is malformed: $detail', ({ input, detail }) => {
    expectDrop(decodeStream(input as Uint8Array), 'malformed', detail);
  });

  // [1, 8, "a", true, false, []] packs to 8 bytes: 96 01 08 a1 61 c3 c2 90.
  it('a body over maxBytes is too large, said with both sizes; one at maxBytes is read', () => {
    const body = pack(pushPull([]));
    expect(body.length).toBe(8);
    expectDrop(
      decodeStream(body, { maxBytes: 7 }),
      'too-large',
      '8 bytes, a stream message may take at most 7',
    );
    expect(decodeStream(body, { maxBytes: 8 }).ok).toBe(true);
  });

  // Bug: an exception escaping to the connection handler (see decode-datagram.test.ts).
  it('an exception while decoding is a malformed drop saying so, not a throw', () => {
    expectDrop(decodeStream(throwingBytes()), 'malformed', 'internal error: Error: length unavailable');
  });
});

describe('decodeStream: the maxBytes option', () => {
  it.each([
    { value: 1.5, shown: '1.5 (a number)' },
    { value: -1, shown: '-1 (a number)' },
    { value: 2 ** 32, shown: '4294967296 (a number)' },
    { value: '100', shown: '"100" (a string)' },
  ])('maxBytes $shown throws FDKIT_INVALID_OPTION naming decodeStream', ({ value, shown }) => {
    const e = expectOptionError(
      () => decodeStream(pack(pushPull([])), { maxBytes: value as number }),
      'maxBytes',
    );
    expect(e.message).toBe(
      `decodeStream: option maxBytes must be an integer >= 0 and <= 4294967295, got ${shown}`,
    );
  });
});

/**
 * The datagram decoder's drops, each with the exact detail it gives: the path of the field at fault
 * (packet type, `updates[i]`, field name) and the rule it broke, for every field of every packet type
 * and update kind, the compound's envelope, and the catch that keeps a bug from crashing the socket
 * handler. test/wire/rejects.test.ts covers the reasons over many more values; these pin the details,
 * which are what an operator reads in a debug log to find the broken peer's field.
 */
import { describe, expect, it } from 'vitest';
import { type DropReason, decodeDatagram, decodeStream } from '../../src/wire/index.js';
import { bin, expectDrop, outOfRange, pack, throwingBytes, wrongType } from './decode-input.js';

/** A valid suspect, put before the update under test so that it sits at index 1. */
const SUSPECT = [2, 'n', 3, 'f'];

/** `update` as the second update of a gossip packet from "g". */
const inGossip = (update: unknown): unknown[] => [1, 5, 'g', [SUSPECT, update]];

interface Case {
  readonly label: string;
  readonly structure: unknown;
  readonly reason: DropReason;
  readonly detail: string;
}

const UPDATE_CASES: readonly Case[] = [
  {
    label: 'an empty update',
    structure: inGossip([]),
    reason: 'malformed',
    detail: 'gossip.updates[1]: not a non-empty array',
  },
  {
    // index 0 still gets its brackets
    label: 'alive name, first update',
    structure: [1, 5, 'g', [[1, 5, 'h:1', 3, bin(2)]]],
    reason: 'malformed',
    detail: wrongType('gossip.updates[0].name', 'name'),
  },
  {
    label: 'alive address',
    structure: inGossip([1, 'n', 5, 3, bin(2)]),
    reason: 'malformed',
    detail: wrongType('gossip.updates[1].address', 'address'),
  },
  {
    label: 'alive incarnation',
    structure: inGossip([1, 'n', 'h:1', -1, bin(2)]),
    reason: 'invalid-field',
    detail: outOfRange('gossip.updates[1].incarnation', 'u32'),
  },
  {
    label: 'alive meta',
    structure: inGossip([1, 'n', 'h:1', 3, bin(513)]),
    reason: 'invalid-field',
    detail: outOfRange('gossip.updates[1].meta', 'meta'),
  },
  {
    label: 'suspect name',
    structure: inGossip([2, '', 3, 'f']),
    reason: 'invalid-field',
    detail: outOfRange('gossip.updates[1].name', 'name'),
  },
  {
    label: 'dead incarnation',
    structure: inGossip([3, 'n', '3', 'f']),
    reason: 'malformed',
    detail: wrongType('gossip.updates[1].incarnation', 'u32'),
  },
  {
    label: 'suspect from',
    structure: inGossip([2, 'n', 3, 5]),
    reason: 'malformed',
    detail: wrongType('gossip.updates[1].from', 'name'),
  },
  {
    label: 'user origin',
    structure: inGossip([4, 5, 3, bin(2)]),
    reason: 'malformed',
    detail: wrongType('gossip.updates[1].origin', 'name'),
  },
  {
    label: 'user seq',
    structure: inGossip([4, 'o', 1.5, bin(2)]),
    reason: 'invalid-field',
    detail: outOfRange('gossip.updates[1].seq', 'u32'),
  },
  {
    label: 'user payload',
    structure: inGossip([4, 'o', 3, 'x']),
    reason: 'malformed',
    detail: wrongType('gossip.updates[1].payload', 'payload'),
  },
  {
    label: 'a kind that is not a number',
    structure: inGossip(['alive', 'n', 'h:1', 3, bin(2)]),
    reason: 'malformed',
    detail: 'gossip.updates[1]: the update kind is not a number',
  },
  {
    label: 'updates that are not an array',
    structure: [1, 5, 'g', 'x'],
    reason: 'malformed',
    detail: 'gossip.updates: not an array',
  },
];

const PACKET_CASES: readonly Case[] = [
  {
    label: 'ping seq',
    structure: [1, 1, '5', 'a', 'b', []],
    reason: 'malformed',
    detail: wrongType('ping.seq', 'u32'),
  },
  {
    label: 'ping from',
    structure: [1, 1, 5, 5, 'b', []],
    reason: 'malformed',
    detail: wrongType('ping.from', 'name'),
  },
  {
    label: 'ping target',
    structure: [1, 1, 5, 'a', null, []],
    reason: 'malformed',
    detail: wrongType('ping.target', 'name'),
  },
  {
    label: 'ping updates',
    structure: [1, 1, 5, 'a', 'b', 5],
    reason: 'malformed',
    detail: 'ping.updates: not an array',
  },
  {
    label: 'ping-req seq',
    structure: [1, 2, 2 ** 32, 'a', 'b', 'h:1', false, []],
    reason: 'invalid-field',
    detail: outOfRange('ping-req.seq', 'u32'),
  },
  {
    label: 'ping-req from',
    structure: [1, 2, 5, '', 'b', 'h:1', false, []],
    reason: 'invalid-field',
    detail: outOfRange('ping-req.from', 'name'),
  },
  {
    label: 'ping-req target',
    structure: [1, 2, 5, 'a', 7, 'h:1', false, []],
    reason: 'malformed',
    detail: wrongType('ping-req.target', 'name'),
  },
  {
    label: 'ping-req targetAddress',
    structure: [1, 2, 5, 'a', 'b', 7, false, []],
    reason: 'malformed',
    detail: wrongType('ping-req.targetAddress', 'address'),
  },
  {
    label: 'ping-req nack',
    structure: [1, 2, 5, 'a', 'b', 'h:1', 0, []],
    reason: 'malformed',
    detail: wrongType('ping-req.nack', 'boolean'),
  },
  {
    label: 'ping-req updates',
    structure: [1, 2, 5, 'a', 'b', 'h:1', false, {}],
    reason: 'malformed',
    detail: 'ping-req.updates: not an array',
  },
  {
    label: 'ack updates',
    structure: [1, 3, 5, 'a', 5],
    reason: 'malformed',
    detail: 'ack.updates: not an array',
  },
  {
    label: 'nack updates',
    structure: [1, 4, 5, 'a', 5],
    reason: 'malformed',
    detail: 'nack.updates: not an array',
  },
  {
    label: 'gossip from',
    structure: [1, 5, 5, []],
    reason: 'malformed',
    detail: wrongType('gossip.from', 'name'),
  },
  {
    label: 'user from',
    structure: [1, 6, 5, bin(3), []],
    reason: 'malformed',
    detail: wrongType('user.from', 'name'),
  },
  {
    label: 'user payload',
    structure: [1, 6, 'a', bin(64_513), []],
    reason: 'invalid-field',
    detail: outOfRange('user.payload', 'payload'),
  },
  {
    label: 'user updates',
    structure: [1, 6, 'a', bin(3), 5],
    reason: 'malformed',
    detail: 'user.updates: not an array',
  },
];

const COMPOUND_CASES: readonly Case[] = [
  {
    label: 'a compound with an element too many',
    structure: [1, 7, [[1, 3, 5, 'a', []]], 0],
    reason: 'malformed',
    detail: 'compound: 3 elements expected, got 4',
  },
  {
    label: 'a part of one element',
    structure: [1, 7, [[1]]],
    reason: 'malformed',
    detail: 'compound[0]: not a packet array',
  },
  {
    // two elements are enough to be read as a packet, which then has too few
    label: 'a part of two elements',
    structure: [
      1,
      7,
      [
        [1, 3, 5, 'a', []],
        [1, 3],
      ],
    ],
    reason: 'malformed',
    detail: 'compound[1].ack: 5 elements expected, got 2',
  },
  {
    label: 'a bad field in a part',
    structure: [
      1,
      7,
      [
        [1, 3, 5, 'a', []],
        [1, 5, 'g', [[2, 'n', 3, null]]],
      ],
    ],
    reason: 'malformed',
    detail: wrongType('compound[1].gossip.updates[0].from', 'name'),
  },
  {
    label: 'an unknown version at the top',
    structure: [2, 3, 5, 'a', []],
    reason: 'unknown-version',
    detail: 'version 2, this member speaks 1',
  },
];

describe('decodeDatagram: the detail names the field at fault and its rule', () => {
  it.each([...UPDATE_CASES, ...PACKET_CASES, ...COMPOUND_CASES])(
    '$label',
    ({ structure, reason, detail }) => {
      expectDrop(decodeDatagram(pack(structure)), reason, detail);
    },
  );

  // Bug: the decoder's failure record left over from one datagram leaking into the next one's result.
  it('a drop leaves nothing behind: the next datagram decodes, the next bad one has its own detail', () => {
    expectDrop(decodeDatagram(pack([1, 5, 5, []])), 'malformed', wrongType('gossip.from', 'name'));
    expect(decodeDatagram(pack([1, 5, 'g', []]))).toEqual({
      ok: true,
      packets: [{ type: 'gossip', from: 'g', updates: [] }],
    });
    expectDrop(decodeDatagram(pack([1, 3, 5, 'a', 5])), 'malformed', 'ack.updates: not an array');
  });
});

describe('decodeDatagram: limits and failures that no socket produces', () => {
  // The count bound (⌊(65,507 − 8) / 7⌋ = 9,357) cannot be passed within a datagram; a stream's fallback
  // ping, read by the same code under the stream's limit, can pass it.
  it('more updates than UPDATES_PER_PACKET_MAX are an invalid field, said with both counts', () => {
    const updates = new Array<unknown>(9358).fill(SUSPECT);
    expectDrop(
      decodeStream(pack([1, 1, 5, 'a', 'b', updates])),
      'invalid-field',
      'stream ping.updates: 9358 updates, at most 9357 allowed',
    );
    const atTheBound = decodeStream(pack([1, 1, 5, 'a', 'b', updates.slice(1)]));
    expect(atTheBound.ok && atTheBound.message.type === 'ping' && atTheBound.message.updates.length).toBe(
      9357,
    );
  });

  // Bug: an exception escaping to the socket handler. Bytes from a socket never throw on reading; a caller's
  // Uint8Array whose length throws stands for a bug in the decoder, which must still drop, not throw.
  it('an exception while decoding is a malformed drop saying so, not a throw', () => {
    expectDrop(decodeDatagram(throwingBytes()), 'malformed', 'internal error: Error: length unavailable');
  });
});

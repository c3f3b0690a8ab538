/**
 * The name-conflict packets on the wire, a conflict notice `[1, 11, from, name, holderAddress,
 * otherAddress, updates]` and a name query `[1, 12, from, name, updates]`: the exact detail of each drop
 * (test/wire/rejects.test.ts checks only the reasons) and of each refusal of the encoder, so that a
 * detail naming the wrong field, the wrong packet type or a compound's wrong part fails. Details are
 * written out by hand.
 */
import { describe, expect, it } from 'vitest';
import type { Packet } from '../../src/swim/messages.js';
import { decodeDatagram, encodePacket } from '../../src/wire/index.js';
import { expectDrop, outOfRange, pack, wrongType } from './decode-input.js';
import { refusal, refused } from './refusal.js';

const CONFLICT = [1, 11, 'a', 'n', 'h:1', 'h:2', []];
const QUERY = [1, 12, 'a', 'n', []];

/** `structure` with element `index` replaced by `value`. */
function replaced(structure: readonly unknown[], index: number, value: unknown): unknown[] {
  const out = [...structure];
  out[index] = value;
  return out;
}

describe('conflict and name-query drops name their field', () => {
  it('a conflict notice: each field, the updates and the arity', () => {
    const cases: [number, unknown, 'malformed' | 'invalid-field', string][] = [
      [2, 5, 'malformed', wrongType('conflict.from', 'name')],
      [3, '', 'invalid-field', outOfRange('conflict.name', 'name')],
      [4, 7, 'malformed', wrongType('conflict.holderAddress', 'address')],
      [5, '', 'invalid-field', outOfRange('conflict.otherAddress', 'address')],
      [6, 'x', 'malformed', 'conflict.updates: not an array'],
      [6, [[2, '', 3, 'f']], 'invalid-field', outOfRange('conflict.updates[0].name', 'name')],
    ];
    for (const [index, value, reason, detail] of cases) {
      expectDrop(decodeDatagram(pack(replaced(CONFLICT, index, value))), reason, detail);
    }
    expectDrop(
      decodeDatagram(pack(CONFLICT.slice(0, 6))),
      'malformed',
      'conflict: 7 elements expected, got 6',
    );
  });

  it('a name query: each field, the updates and the arity', () => {
    const cases: [number, unknown, 'malformed' | 'invalid-field', string][] = [
      [2, '', 'invalid-field', outOfRange('name-query.from', 'name')],
      [3, null, 'malformed', wrongType('name-query.name', 'name')],
      [4, 1, 'malformed', 'name-query.updates: not an array'],
      [4, [[2, 'n', -1, 'f']], 'invalid-field', outOfRange('name-query.updates[0].incarnation', 'u32')],
    ];
    for (const [index, value, reason, detail] of cases) {
      expectDrop(decodeDatagram(pack(replaced(QUERY, index, value))), reason, detail);
    }
    expectDrop(decodeDatagram(pack([...QUERY, 0])), 'malformed', 'name-query: 5 elements expected, got 6');
  });

  it('inside a compound, under the part they sit in', () => {
    const ack = [1, 3, 1, 'a', []];
    expectDrop(
      decodeDatagram(pack([1, 7, [ack, replaced(CONFLICT, 4, 7)]])),
      'malformed',
      wrongType('compound[1].conflict.holderAddress', 'address'),
    );
    expectDrop(
      decodeDatagram(pack([1, 7, [ack, replaced(QUERY, 3, '')]])),
      'invalid-field',
      outOfRange('compound[1].name-query.name', 'name'),
    );
  });
});

describe('the encoder refuses each bad field of a conflict or a name query', () => {
  const NAME = 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD';
  const conflict: Packet = {
    type: 'conflict',
    from: 'a',
    name: 'n',
    holderAddress: 'h:1',
    otherAddress: 'h:2',
    updates: [],
  };
  const query: Packet = { type: 'name-query', from: 'a', name: 'n', updates: [] };
  const cases: [string, Packet, string][] = [
    ['conflict from', { ...conflict, from: '' }, `conflict.from: out of range; must be ${NAME}`],
    ['conflict name', { ...conflict, name: '' }, `conflict.name: out of range; must be ${NAME}`],
    [
      'conflict holderAddress',
      { ...conflict, holderAddress: '' },
      `conflict.holderAddress: out of range; must be ${NAME}`,
    ],
    [
      'conflict otherAddress',
      { ...conflict, otherAddress: 'x'.repeat(256) },
      `conflict.otherAddress: out of range; must be ${NAME}`,
    ],
    [
      'conflict updates',
      { ...conflict, updates: 'u' } as unknown as Packet,
      'conflict.updates: not an array',
    ],
    ['name-query from', { ...query, from: '' }, `name-query.from: out of range; must be ${NAME}`],
    ['name-query name', { ...query, name: '' }, `name-query.name: out of range; must be ${NAME}`],
    [
      'name-query updates',
      { ...query, updates: 'u' } as unknown as Packet,
      'name-query.updates: not an array',
    ],
  ];
  it.each(cases)('%s', (_, packet, problem) => {
    expect(refusal(() => encodePacket(packet))).toEqual(refused('packet', `encodePacket: ${problem}`));
  });

  it('writes the valid ones as the documented arrays', () => {
    expect([...encodePacket(conflict)]).toEqual([...pack(CONFLICT)]);
    expect([...encodePacket(query)]).toEqual([...pack(QUERY)]);
  });
});

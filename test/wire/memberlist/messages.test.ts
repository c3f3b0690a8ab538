/**
 * memberlist's messages (`src/wire/memberlist/messages.ts`): the bytes of each, worked out by hand from
 * net.go's structs as go-msgpack writes them (a map keyed by field name in sorted order, omitempty fields
 * left out, byte slices in the str family, a nil slice as nil), round trips of arbitrary messages, and a
 * rejection for every kind of bad field. The Go side of the same bytes is checked by go-vectors.system.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMlMessage, encodeMlMessage } from '../../../src/wire/memberlist/messages.js';
import { MpWriter } from '../../../src/wire/memberlist/msgpack.js';
import type { MlErr, MlPacketMessage } from '../../../src/wire/memberlist/types.js';
import { arbMlPacketMessage } from './arbitraries.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ascii = (s: string) => Buffer.from(s).toString('hex');
/** A fixstr: header byte then the ASCII. */
const fs = (s: string) => (0xa0 + s.length).toString(16) + ascii(s);

function decoded(bytes: Uint8Array): MlPacketMessage | MlErr {
  const result = decodeMlMessage(bytes);
  if (!result.ok) throw new Error(`rejected: ${result.reason}: ${result.detail}`);
  return result.message;
}

function rejection(bytes: Uint8Array): [string, string] {
  const result = decodeMlMessage(bytes);
  return result.ok ? ['accepted', result.message.type] : [result.reason, result.detail];
}

describe('encodeMlMessage: the bytes memberlist writes', () => {
  it('ping: {Node, SeqNo} only when the source fields are empty', () => {
    const bytes = encodeMlMessage({ type: 'ping', seqNo: 7, node: 'n1' });
    expect(hex(bytes)).toBe(`00 82 ${fs('Node')} ${fs('n1')} ${fs('SeqNo')} 07`.replaceAll(' ', ''));
  });

  it('ping with the source fields and fdkit mark, keys sorted: Fdkit, Node, SeqNo, SourceAddr, SourceNode, SourcePort', () => {
    const bytes = encodeMlMessage({
      type: 'ping',
      seqNo: 300,
      node: 'b',
      sourceAddr: new Uint8Array([127, 0, 0, 1]),
      sourcePort: 7946,
      sourceNode: 'a',
      fdkit: 1,
    });
    const expected = [
      '00 86',
      `${fs('Fdkit')} 01`,
      `${fs('Node')} ${fs('b')}`,
      `${fs('SeqNo')} cd012c`,
      `${fs('SourceAddr')} a47f000001`,
      `${fs('SourceNode')} ${fs('a')}`,
      `${fs('SourcePort')} cd1f0a`,
    ];
    expect(hex(bytes)).toBe(expected.join('').replaceAll(' ', ''));
  });

  it('indirect ping: Nack, Node, Port, SeqNo, Target', () => {
    const bytes = encodeMlMessage({
      type: 'indirect-ping',
      seqNo: 1,
      target: new Uint8Array([10, 0, 0, 2]),
      port: 80,
      node: 'x',
      nack: true,
    });
    const expected = `01 85 ${fs('Nack')} c3 ${fs('Node')} ${fs('x')} ${fs('Port')} 50 ${fs('SeqNo')} 01 ${fs('Target')} a40a000002`;
    expect(hex(bytes)).toBe(expected.replaceAll(' ', ''));
  });

  it('ack with no payload writes a nil Payload (a nil Go slice), nack its SeqNo', () => {
    expect(hex(encodeMlMessage({ type: 'ack', seqNo: 5, payload: new Uint8Array(0) }))).toBe(
      `02 82 ${fs('Payload')} c0 ${fs('SeqNo')} 05`.replaceAll(' ', ''),
    );
    expect(hex(encodeMlMessage({ type: 'nack', seqNo: 0xffff_ffff }))).toBe(
      `0b 81 ${fs('SeqNo')} ceffffffff`.replaceAll(' ', ''),
    );
  });

  it('suspect and dead: From, Incarnation, Node; alive: Addr, Incarnation, Meta, Node, Port, Vsn', () => {
    expect(hex(encodeMlMessage({ type: 'dead', incarnation: 2, node: 'n', from: 'n' }))).toBe(
      `05 83 ${fs('From')} ${fs('n')} ${fs('Incarnation')} 02 ${fs('Node')} ${fs('n')}`.replaceAll(' ', ''),
    );
    expect(hex(encodeMlMessage({ type: 'suspect', incarnation: 128, node: 'n', from: 'm' }))).toBe(
      `03 83 ${fs('From')} ${fs('m')} ${fs('Incarnation')} cc80 ${fs('Node')} ${fs('n')}`.replaceAll(' ', ''),
    );
    const alive = encodeMlMessage({
      type: 'alive',
      incarnation: 1,
      node: 'n',
      addr: new Uint8Array([1, 2, 3, 4]),
      port: 7946,
      meta: new Uint8Array([0xff]),
      vsn: new Uint8Array([1, 5, 2, 0, 0, 0]),
    });
    const expected = [
      '04 86',
      `${fs('Addr')} a401020304`,
      `${fs('Incarnation')} 01`,
      `${fs('Meta')} a1ff`,
      `${fs('Node')} ${fs('n')}`,
      `${fs('Port')} cd1f0a`,
      `${fs('Vsn')} a6010502000000`,
    ];
    expect(hex(alive)).toBe(expected.join('').replaceAll(' ', ''));
  });

  it('user: the type byte and the payload as it is; err: {Error}', () => {
    expect(hex(encodeMlMessage({ type: 'user', payload: new Uint8Array([1, 2]) }))).toBe('080102');
    expect(hex(encodeMlMessage({ type: 'err', error: 'no' }))).toBe(
      `0d 81 ${fs('Error')} ${fs('no')}`.replaceAll(' ', ''),
    );
  });

  it('refuses to write a field out of range, naming it', () => {
    expect(() => encodeMlMessage({ type: 'nack', seqNo: 2 ** 32 })).toThrow('nack.seqNo');
    expect(() =>
      encodeMlMessage({
        type: 'alive',
        incarnation: 0,
        node: 'n',
        addr: new Uint8Array(5),
        port: 1,
        meta: new Uint8Array(0),
        vsn: new Uint8Array(6),
      }),
    ).toThrow('alive.addr');
    expect(() => encodeMlMessage({ type: 'dead', incarnation: 0, node: '', from: '' })).toThrow('dead.node');
    expect(() => encodeMlMessage({ type: 'ping', seqNo: 0, node: 'x'.repeat(256) })).toThrow('ping.node');
  });
});

describe('decodeMlMessage', () => {
  it('round-trips every message (property)', () => {
    fc.assert(
      fc.property(arbMlPacketMessage, (m) => {
        expect(decoded(encodeMlMessage(m))).toEqual(m);
      }),
    );
  });

  it('skips unknown keys of any type, takes absent keys as zero, and accepts keys in any order', () => {
    const w = new MpWriter().u8(0).map(4);
    w.str('SeqNo').uint(9).str('Extra').map(1).str('deep').bytes(new Uint8Array(3));
    w.str('Node').str('me').str('SourcePort').uint(0);
    expect(decoded(w.finish())).toEqual({ type: 'ping', seqNo: 9, node: 'me' });
    expect(decoded(new Uint8Array([2, 0x80]))).toEqual({ type: 'ack', seqNo: 0, payload: new Uint8Array(0) });
  });

  it('reads Nack from 0/1 as go-msgpack does, and a bin-encoded address', () => {
    const w = new MpWriter()
      .u8(1)
      .map(3)
      .str('Nack')
      .uint(1)
      .str('Target')
      .u8(0xc4)
      .u8(4)
      .raw(new Uint8Array([9, 9, 9, 9]));
    w.str('Port').uint(1);
    const m = decoded(w.finish());
    expect(m).toEqual({
      type: 'indirect-ping',
      seqNo: 0,
      target: new Uint8Array([9, 9, 9, 9]),
      port: 1,
      node: '',
      nack: true,
    });
  });

  const map = (type: number, build: (w: MpWriter) => void) => {
    const w = new MpWriter().u8(type);
    build(w);
    return w.finish();
  };

  it('rejects each bad field with the reason and the field named', () => {
    const cases: [Uint8Array, string, string][] = [
      [
        map(0, (w) => w.map(1).str('SeqNo').u8(0xce).u32(0).u8(0)),
        'malformed',
        '1 bytes after the ping message',
      ],
      [
        map(0, (w) => w.map(1).str('SeqNo').u8(0xcf).u32(1).u32(0)),
        'invalid-field',
        'ping.SeqNo: 4294967296 not in [0, 4294967295]',
      ],
      [map(0, (w) => w.map(1).str('SeqNo').str('x')), 'malformed', 'ping.SeqNo: not an integer (0xa1)'],
      [
        map(0, (w) => w.map(1).str('SourcePort').uint(65_536)),
        'invalid-field',
        'ping.SourcePort: 65536 not in [0, 65535]',
      ],
      [
        map(0, (w) => w.map(1).str('SourceAddr').bytes(new Uint8Array(5))),
        'invalid-field',
        'ping.SourceAddr: 5 bytes, not an IPv4 or IPv6 address',
      ],
      [
        map(0, (w) => w.map(1).str('Node').bytes(new Uint8Array(256))),
        'invalid-field',
        'ping.Node: 256 bytes, more than 255',
      ],
      [map(1, (w) => w.map(1).str('Node').str('x')), 'invalid-field', 'indirect-ping.Target: missing'],
      [map(1, (w) => w.map(1).str('Nack').uint(2)), 'malformed', 'indirect-ping.Nack: not a boolean (0x2)'],
      [map(3, (w) => w.map(1).str('From').str('x')), 'invalid-field', 'suspect.Node: empty'],
      [map(4, (w) => w.map(1).str('Node').str('x')), 'invalid-field', 'alive.Addr: missing'],
      [
        map(4, (w) => w.map(2).str('Node').str('x').str('Meta').bytes(new Uint8Array(513))),
        'invalid-field',
        'alive.Meta: 513 bytes, more than 512',
      ],
      [map(5, (w) => w.map(1).str('Node').u8(0xa1).u8(0xff)), 'invalid-field', 'dead.Node: not UTF-8'],
      [map(5, (w) => w.u8(0x91)), 'malformed', 'dead: not a map (0x91)'],
      [map(2, (w) => w.map(2).str('SeqNo')), 'malformed', 'truncated ack.SeqNo'],
      [map(6, (w) => w.map(0)), 'unknown-type', 'message type 6'],
      [map(244, (w) => w.map(0)), 'unknown-type', 'message type 244'],
      [new Uint8Array(0), 'malformed', 'empty message'],
    ];
    for (const [bytes, reason, detail] of cases) expect(rejection(bytes)).toEqual([reason, detail]);
  });

  it('never throws on arbitrary bytes after any type byte (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 13 }), fc.uint8Array({ maxLength: 80 }), (type, body) => {
        const bytes = new Uint8Array([type, ...body]);
        const result = decodeMlMessage(bytes);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });

  it('never throws on a valid message cut short or with one byte changed (property)', () => {
    fc.assert(
      fc.property(arbMlPacketMessage, fc.nat(), fc.nat(255), (m, at, value) => {
        const bytes = encodeMlMessage(m);
        const cut = at % bytes.length;
        expect(typeof decodeMlMessage(bytes.subarray(0, cut)).ok).toBe('boolean');
        const changed = bytes.slice();
        changed[cut] = value;
        expect(typeof decodeMlMessage(changed).ok).toBe('boolean');
      }),
    );
  });
});

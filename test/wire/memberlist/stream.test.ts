/**
 * memberlist's stream messages (`src/wire/memberlist/stream.ts`): the push-pull and user layouts worked
 * out by hand from net.go (`sendLocalState`, `sendUserMsg`), the encrypted wrapper's header and
 * authenticated data, round trips under every envelope fed in chunks of every size, and each rejection:
 * wrong label, wrong key, plaintext to a keyed member and the reverse, over-long announcements, bombs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMlCompress } from '../../../src/wire/memberlist/compress.js';
import { MpWriter } from '../../../src/wire/memberlist/msgpack.js';
import { encryptMl } from '../../../src/wire/memberlist/security.js';
import {
  encodeMlStream,
  MlStreamReader,
  type MlStreamReaderOptions,
  type MlStreamStep,
} from '../../../src/wire/memberlist/stream.js';
import type { MlPushPull, MlStreamMessage } from '../../../src/wire/memberlist/types.js';
import { arbMlNodeState } from './arbitraries.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fs = (s: string) => (0xa0 + s.length).toString(16) + Buffer.from(s).toString('hex');
const zeros = (bytes: Uint8Array) => bytes.fill(0);
const KEY = new Uint8Array(16).fill(3);
const NODE = {
  name: 'a',
  addr: new Uint8Array([127, 0, 0, 1]),
  port: 7946,
  meta: new Uint8Array(0),
  incarnation: 1,
  state: 0,
  vsn: new Uint8Array([1, 5, 2, 0, 0, 0]),
};
const PLAIN = { label: '', keys: [], compress: false, labelHeader: false };

/** Feeds `bytes` in chunks of `size` and returns the last step. */
function read(bytes: Uint8Array, options: MlStreamReaderOptions, size = bytes.length): MlStreamStep {
  const reader = new MlStreamReader(options);
  let step: MlStreamStep = { ok: true, done: false };
  for (let at = 0; at < bytes.length && step.ok && !step.done; at += size) {
    step = reader.push(bytes.subarray(at, at + size));
  }
  return step;
}

function message(step: MlStreamStep): MlStreamMessage {
  if (!step.ok) throw new Error(`rejected: ${step.reason}: ${step.detail}`);
  if (!step.done) throw new Error('not done');
  return step.message;
}

describe('encodeMlStream', () => {
  it('push-pull: 6, header {Join, Nodes, UserStateLen}, the node maps in sorted key order, the user state', () => {
    const bytes = encodeMlStream(
      { type: 'push-pull', join: true, nodes: [NODE], userState: new Uint8Array([0xaa, 0xbb]) },
      PLAIN,
      zeros,
    );
    const expected = [
      `06 83 ${fs('Join')} c3 ${fs('Nodes')} 01 ${fs('UserStateLen')} 02`,
      `87 ${fs('Addr')} a47f000001 ${fs('Incarnation')} 01 ${fs('Meta')} c0 ${fs('Name')} ${fs('a')}`,
      `${fs('Port')} cd1f0a ${fs('State')} 00 ${fs('Vsn')} a6010502000000`,
      'aabb',
    ];
    expect(hex(bytes)).toBe(expected.join('').replaceAll(' ', ''));
  });

  it('user: 8, {UserMsgLen}, the bytes; with fdkit, the push-pull header carries Fdkit first', () => {
    expect(hex(encodeMlStream({ type: 'user', payload: new Uint8Array([1, 2]) }, PLAIN, zeros))).toBe(
      `08 81 ${fs('UserMsgLen')} 02 0102`.replaceAll(' ', ''),
    );
    const pp = encodeMlStream(
      { type: 'push-pull', join: false, nodes: [], userState: new Uint8Array(0), fdkit: 1 },
      PLAIN,
      zeros,
    );
    expect(hex(pp)).toBe(
      `06 84 ${fs('Fdkit')} 01 ${fs('Join')} c2 ${fs('Nodes')} 00 ${fs('UserStateLen')} 00`.replaceAll(
        ' ',
        '',
      ),
    );
  });

  it("with fdkit's sender, the header carries FdkitFrom after Fdkit (go-msgpack's order), and reads back", () => {
    const message: MlStreamMessage = {
      type: 'push-pull',
      join: true,
      nodes: [],
      userState: new Uint8Array(0),
      fdkit: 1,
      fdkitFrom: 'f1',
    };
    const pp = encodeMlStream(message, PLAIN, zeros);
    expect(hex(pp)).toBe(
      `06 85 ${fs('Fdkit')} 01 ${fs('FdkitFrom')} ${fs('f1')} ${fs('Join')} c3 ${fs('Nodes')} 00 ${fs('UserStateLen')} 00`.replaceAll(
        ' ',
        '',
      ),
    );
    const step = new MlStreamReader({ label: '', keys: [], labelHeader: false }).push(pp);
    expect(step.ok && step.done && step.message).toEqual(message);
  });

  it('always compresses when asked (streams do not compare sizes)', () => {
    const ping: MlStreamMessage = { type: 'ping', seqNo: 1, node: 'x' };
    const plain = encodeMlStream(ping, PLAIN, zeros);
    expect(encodeMlStream(ping, { ...PLAIN, compress: true }, zeros)).toEqual(encodeMlCompress(plain));
  });

  it('encrypts as [10][length][sealed], the header and the label authenticated; the dialer leads with the label header', () => {
    const ack: MlStreamMessage = { type: 'ack', seqNo: 9, payload: new Uint8Array(0) };
    const plain = encodeMlStream(ack, PLAIN, zeros);
    const out = encodeMlStream(ack, { label: 'lb', keys: [KEY], compress: false, labelHeader: true }, zeros);
    const length = 29 + plain.length;
    const header = new Uint8Array([10, 0, 0, 0, length]);
    const sealed = encryptMl(KEY, plain, new Uint8Array([...header, ...Buffer.from('lb')]), zeros);
    expect(hex(out)).toBe(`f4026c62${hex(header)}${hex(sealed)}`);
    const reply = encodeMlStream(
      ack,
      { label: 'lb', keys: [KEY], compress: false, labelHeader: false },
      zeros,
    );
    expect(reply).toEqual(out.subarray(4));
  });
});

describe('MlStreamReader', () => {
  const arbMessage: fc.Arbitrary<MlStreamMessage> = fc.oneof(
    fc.record({
      type: fc.constant('push-pull' as const),
      join: fc.boolean(),
      nodes: fc.array(arbMlNodeState, { maxLength: 20 }),
      userState: fc.uint8Array({ maxLength: 300 }),
    }),
    fc.record({ type: fc.constant('user' as const), payload: fc.uint8Array({ maxLength: 300 }) }),
    fc.record({ type: fc.constant('ping' as const), seqNo: fc.nat(), node: fc.string({ maxLength: 10 }) }),
    fc.record({
      type: fc.constant('ack' as const),
      seqNo: fc.nat(),
      payload: fc.uint8Array({ maxLength: 10 }),
    }),
    fc.record({ type: fc.constant('err' as const), error: fc.string({ maxLength: 100 }) }),
  );
  const envelope = fc.record({
    label: fc.oneof(fc.constant(''), fc.constant('prod')),
    keys: fc.oneof(fc.constant([]), fc.constant([KEY])),
    compress: fc.boolean(),
    labelHeader: fc.boolean(),
  });

  it('reads back any message under any envelope, in chunks of any size, and says where it ended (property)', () => {
    fc.assert(
      fc.property(arbMessage, envelope, fc.integer({ min: 1, max: 64 }), (m, o, size) => {
        const bytes = encodeMlStream(m, o, zeros);
        const tail = new Uint8Array([0x42, 0x42]);
        const step = read(new Uint8Array([...bytes, ...tail]), { ...o, labelHeader: o.labelHeader }, size);
        expect(message(step)).toEqual(m);
        expect(step.ok && step.done && step.consumed).toBe(bytes.length);
      }),
      { numRuns: 200 },
    );
  });

  it('waits for the bytes it needs: a 100,000-byte user state pushed byte by byte parses the nodes once', () => {
    const pp: MlPushPull = {
      type: 'push-pull',
      join: false,
      nodes: [NODE, NODE],
      userState: new Uint8Array(100_000),
    };
    const bytes = encodeMlStream(pp, PLAIN, zeros);
    const reader = new MlStreamReader({ label: '', keys: [], labelHeader: false });
    let steps = 0;
    for (let at = 0; at < bytes.length - 1; at++) {
      const step = reader.push(bytes.subarray(at, at + 1));
      if (!step.ok || step.done) throw new Error('early');
      steps++;
    }
    expect(message(reader.push(bytes.subarray(bytes.length - 1)))).toEqual(pp);
    expect(steps).toBe(bytes.length - 1);
  });

  it('rejects each broken envelope with its reason', () => {
    const ping: MlStreamMessage = { type: 'ping', seqNo: 1, node: 'x' };
    const keyed = encodeMlStream(
      ping,
      { label: 'a', keys: [KEY], compress: false, labelHeader: true },
      zeros,
    );
    const plain = encodeMlStream(ping, PLAIN, zeros);
    const bigUser = new MpWriter().u8(8).map(1).str('UserMsgLen').uint(1000).finish();
    const bigState = new MpWriter()
      .u8(6)
      .map(3)
      .str('Nodes')
      .uint(0)
      .str('UserStateLen')
      .uint(1000)
      .str('Join')
      .bool(false)
      .finish();
    const sealedHuge = new Uint8Array([10, 0xff, 0xff, 0xff, 0xff]);
    const bomb = encodeMlCompress(new Uint8Array(5000).fill(8));
    const small = { label: '', keys: [] as Uint8Array[], labelHeader: false, bytesMax: 500 };
    const cases: [Uint8Array, MlStreamReaderOptions, [string, string]][] = [
      [keyed, { label: 'b', keys: [KEY], labelHeader: true }, ['invalid-field', "label 'a', expected 'b'"]],
      [
        keyed,
        { label: 'a', keys: [new Uint8Array(16)], labelHeader: true },
        ['decrypt-failed', 'no key opens the stream (no-key)'],
      ],
      [
        plain,
        { label: '', keys: [KEY], labelHeader: false },
        ['not-encrypted', 'stream not encrypted, and this member has keys'],
      ],
      [
        keyed.subarray(3),
        { label: '', keys: [], labelHeader: false },
        ['unexpected-encryption', 'encrypted stream, and this member has no keys'],
      ],
      [bigUser, small, ['invalid-field', 'user.UserMsgLen: 1000 not in [0, 500]']],
      [bigState, small, ['invalid-field', 'push-pull.UserStateLen: 1000 not in [0, 500]']],
      [sealedHuge, { ...small, keys: [KEY] }, ['too-large', 'encrypted stream message of 4294967295 bytes']],
      [bomb, small, ['too-large', 'compress.Buf: more than 500 bytes decompressed']],
      [new Uint8Array([4, 0x80]), small, ['unknown-type', 'stream message type 4']],
      [
        new Uint8Array([6, 0x81, 0xa5, ...Buffer.from('Nodes'), 0xff]),
        small,
        ['invalid-field', 'push-pull.Nodes: -1 not in [0, 100000]'],
      ],
    ];
    for (const [bytes, o, expected] of cases) {
      const step = read(bytes, o);
      expect(step.ok ? 'accepted' : [step.reason, step.detail]).toEqual(expected);
    }
  });

  it('rejects a node state with a bad field, naming its index', () => {
    const w = new MpWriter()
      .u8(6)
      .map(3)
      .str('Nodes')
      .uint(2)
      .str('UserStateLen')
      .uint(0)
      .str('Join')
      .bool(false);
    w.map(2)
      .str('Name')
      .str('a')
      .str('Addr')
      .bytes(new Uint8Array([1, 2, 3, 4]));
    w.map(2).str('Name').str('b').str('State').uint(4);
    const step = read(w.finish(), { label: '', keys: [], labelHeader: false });
    expect(step.ok ? 'accepted' : [step.reason, step.detail]).toEqual([
      'invalid-field',
      'push-pull.nodes[1].State: 4 not in [0, 3]',
    ]);
  });

  it('never throws on arbitrary or damaged streams (property)', () => {
    fc.assert(
      fc.property(arbMessage, envelope, fc.nat(), fc.nat(255), (m, o, at, value) => {
        const bytes = encodeMlStream(m, o, zeros);
        const changed = bytes.slice();
        changed[at % bytes.length] = value;
        const step = read(changed, o, 7);
        expect(typeof step.ok).toBe('boolean');
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.boolean(), (bytes, labelHeader) => {
        expect(typeof read(bytes, { label: '', keys: [], labelHeader }, 3).ok).toBe('boolean');
      }),
    );
  });
});

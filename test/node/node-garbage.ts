/**
 * Hostile and broken input for a running node, shared by the in-memory and the UDP/TCP suites: datagrams
 * and stream connections, each with the drop reason the node must count for it. Several cases carry a
 * statement that would change the member's view if any part of them were applied (an `intruder` member,
 * a suspicion of a real member), so that "the view is unchanged" is a claim that can fail.
 */
import { Packr } from 'msgpackr';
import type { NodeCounters } from '../../src/node/node-counters.js';
import { Random } from '../../src/runtime/random.js';
import type { Packet } from '../../src/swim/messages.js';
import { encodeFrame } from '../../src/transport/frame.js';
import { encodePacket } from '../../src/wire/encode.js';

/** Every reason a node counts a drop for. */
export type NodeDropReason = keyof NodeCounters['drops'];

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Any structure as plain MessagePack, to write what the encoder never would. */
export function pack(value: unknown): Uint8Array {
  return Uint8Array.from(packr.pack(value));
}

/** A datagram to throw at a node, and the reason it must be dropped for (undefined: any reason). */
export interface DatagramCase {
  readonly label: string;
  readonly bytes: Uint8Array;
  readonly reason: NodeDropReason | undefined;
}

/**
 * How a raw stream connection is used: chunks written in order, then an orderly end, a reset, or
 * nothing (the connection is left open until the receiver gives up on it).
 */
export interface StreamCase {
  readonly label: string;
  readonly chunks: readonly Uint8Array[];
  readonly close: 'end' | 'reset' | 'none';
  readonly reason: NodeDropReason;
  /** How the receiver must close the connection: `ended` confirms the frame, `reset` refuses it. */
  readonly outcome: 'ended' | 'reset';
}

const INTRUDER_ALIVE = [1, 'intruder', '10.9.9.9:7946', 1, new Uint8Array(0)];

/**
 * @param target - name of the member the datagrams are sent to
 * @param victim - name of another member of its cluster, whom some cases accuse
 */
export function datagramCases(target: string, victim: string): DatagramCase[] {
  const ping: Packet = { type: 'ping', seq: 77, from: 'stranger', target, updates: [] };
  const pingBytes = encodePacket(ping);
  const random = new Random(20_240_601);
  const noise = Uint8Array.from({ length: 300 }, () => random.int(256));
  const suspectVictim = [2, victim, 0xffff_fff0, 'stranger'];
  return [
    { label: 'a byte MessagePack never uses', bytes: Uint8Array.of(0xc1), reason: 'malformed' },
    { label: '300 seeded random bytes', bytes: noise, reason: undefined },
    { label: 'an empty datagram', bytes: new Uint8Array(0), reason: 'malformed' },
    { label: 'a valid ping cut short', bytes: pingBytes.slice(0, pingBytes.length - 3), reason: 'malformed' },
    { label: 'a valid ping cut to its first byte', bytes: pingBytes.slice(0, 1), reason: 'malformed' },
    {
      label: 'a valid ping with a byte after it',
      bytes: Uint8Array.from([...pingBytes, 0x00]),
      reason: 'malformed',
    },
    { label: '60 KB of 0xc1', bytes: new Uint8Array(60_000).fill(0xc1), reason: 'malformed' },
    { label: 'a map', bytes: pack({ type: 'ping', seq: 1 }), reason: 'malformed' },
    { label: 'a string', bytes: pack('hello'), reason: 'malformed' },
    { label: 'a one-element array', bytes: pack([1]), reason: 'malformed' },
    { label: 'version 2', bytes: pack([2, 1, 5, 'stranger', target, []]), reason: 'unknown-version' },
    { label: 'version 0', bytes: pack([0, 5, 'stranger', [INTRUDER_ALIVE]]), reason: 'unknown-version' },
    {
      label: 'the version as a string',
      bytes: pack(['1', 1, 5, 'stranger', target, []]),
      reason: 'malformed',
    },
    { label: 'message type 99', bytes: pack([1, 99, 5, 'stranger', target, []]), reason: 'unknown-type' },
    {
      label: 'a push-pull in a datagram',
      bytes: pack([1, 8, 'stranger', true, false, [[0, 'intruder', '10.9.9.9:7946', 1, new Uint8Array(0)]]]),
      reason: 'unknown-type',
    },
    { label: 'a ping with 5 fields', bytes: pack([1, 1, 5, 'stranger', target]), reason: 'malformed' },
    { label: 'a negative seq', bytes: pack([1, 1, -1, 'stranger', target, []]), reason: 'invalid-field' },
    { label: 'a fractional seq', bytes: pack([1, 1, 1.5, 'stranger', target, []]), reason: 'invalid-field' },
    { label: 'an empty sender name', bytes: pack([1, 5, '', [INTRUDER_ALIVE]]), reason: 'invalid-field' },
    {
      label: 'a sender name with U+FFFD',
      bytes: pack([1, 5, 'str\ufffdnger', [INTRUDER_ALIVE]]),
      reason: 'invalid-field',
    },
    {
      label: 'gossip: a valid alive, then an update of kind 9',
      bytes: pack([1, 5, 'stranger', [INTRUDER_ALIVE, [9, 'x']]]),
      reason: 'unknown-kind',
    },
    {
      label: 'gossip: a suspicion, then an incarnation beyond 32 bits',
      bytes: pack([
        1,
        5,
        'stranger',
        [suspectVictim, [1, 'intruder2', '10.9.9.9:1', 2 ** 33, new Uint8Array(0)]],
      ]),
      reason: 'invalid-field',
    },
    {
      label: 'gossip: a valid alive, then metadata of 600 bytes',
      bytes: pack([
        1,
        5,
        'stranger',
        [INTRUDER_ALIVE, [1, 'intruder2', '10.9.9.9:1', 1, new Uint8Array(600)]],
      ]),
      reason: 'invalid-field',
    },
    {
      label: 'gossip: updates not an array',
      bytes: pack([1, 5, 'stranger', { 0: INTRUDER_ALIVE }]),
      reason: 'malformed',
    },
    {
      label: 'a compound: a valid gossip, then a part of unknown type',
      bytes: pack([
        1,
        7,
        [
          [1, 5, 'stranger', [INTRUDER_ALIVE, suspectVictim]],
          [1, 99],
        ],
      ]),
      reason: 'unknown-type',
    },
    {
      label: 'a compound inside a compound',
      bytes: pack([1, 7, [[1, 7, [[1, 5, 'stranger', [INTRUDER_ALIVE]]]]]]),
      reason: 'malformed',
    },
    { label: 'a compound of no parts', bytes: pack([1, 7, []]), reason: 'malformed' },
  ];
}

/** A 4-byte big-endian length prefix. */
function header(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length, false);
  return out;
}

/** A push-pull body as the wire lays it out, from rows `[state, name, address, incarnation, meta]`. */
function pushPull(from: string, rows: unknown[][], version = 1): Uint8Array {
  return pack([version, 8, from, true, false, rows]);
}

/**
 * @param victim - name of another member of the target's cluster, whom some cases declare dead
 * @param streamBytesMax - the target's limit, for a length just above it
 */
export function streamCases(victim: string, streamBytesMax: number): StreamCase[] {
  const meta = new Uint8Array(0);
  const intruder = [0, 'intruder', '10.9.9.9:7946', 1, meta];
  const deadVictim = [2, victim, '10.9.9.8:7946', 0xffff_fff0, meta];
  const gossip = encodePacket({ type: 'gossip', from: 'stranger', updates: [] });
  const end = 'end' as const;
  return [
    {
      label: 'an HTTP request (its first bytes read as a length of about 1.2 GB)',
      chunks: [new TextEncoder().encode('GET / HTTP/1.1\r\nHost: fdkit\r\n\r\n')],
      close: end,
      reason: 'too-large',
      outcome: 'reset',
    },
    {
      label: 'a length prefix of 2^32 - 1',
      chunks: [header(0xffff_ffff), new Uint8Array(16)],
      close: end,
      reason: 'too-large',
      outcome: 'reset',
    },
    {
      label: 'a length just above streamBytesMax',
      chunks: [header(streamBytesMax + 1)],
      close: 'none',
      reason: 'too-large',
      outcome: 'reset',
    },
    {
      label: 'a frame of 100 bytes cut after 10, then an orderly end',
      chunks: [header(100), new Uint8Array(10).fill(7)],
      close: end,
      reason: 'truncated',
      outcome: 'reset',
    },
    {
      label: 'a frame of 100 bytes cut after 10, then a reset',
      chunks: [header(100), new Uint8Array(10).fill(7)],
      close: 'reset',
      reason: 'truncated',
      outcome: 'reset',
    },
    {
      label: 'half a length prefix, then an orderly end',
      chunks: [Uint8Array.of(0, 0)],
      close: end,
      reason: 'truncated',
      outcome: 'reset',
    },
    {
      label: 'a valid push-pull cut short inside its frame, then an orderly end',
      chunks: [
        encodeFrame(pushPull('stranger', [[0, 'stranger', '10.9.9.7:7946', 1, meta], intruder])).slice(0, 30),
      ],
      close: end,
      reason: 'truncated',
      outcome: 'reset',
    },
    {
      label: 'a frame of garbage',
      chunks: [encodeFrame(new Uint8Array(50).fill(0xc1))],
      close: end,
      reason: 'malformed',
      outcome: 'ended',
    },
    {
      // The empty frame asks for a watch, which is held, not delivered; the frame after it is read.
      label: 'an empty frame, then one holding a number',
      chunks: [header(0), encodeFrame(pack(7))],
      close: end,
      reason: 'malformed',
      outcome: 'ended',
    },
    {
      label: 'a frame holding a map',
      chunks: [encodeFrame(pack({ members: [intruder] }))],
      close: end,
      reason: 'malformed',
      outcome: 'ended',
    },
    {
      label: 'a gossip packet on a stream',
      chunks: [encodeFrame(gossip)],
      close: end,
      reason: 'unknown-type',
      outcome: 'ended',
    },
    {
      label: 'a push-pull of version 3',
      chunks: [encodeFrame(pushPull('stranger', [[0, 'stranger', '10.9.9.7:7946', 1, meta], intruder], 3))],
      close: end,
      reason: 'unknown-version',
      outcome: 'ended',
    },
    {
      label: 'a push-pull whose sender is missing from its own list',
      chunks: [encodeFrame(pushPull('stranger', [intruder, deadVictim]))],
      close: end,
      reason: 'invalid-field',
      outcome: 'ended',
    },
    {
      label: 'a push-pull with the intruder, then a state code of 7',
      chunks: [
        encodeFrame(
          pushPull('stranger', [
            [0, 'stranger', '10.9.9.7:7946', 1, meta],
            intruder,
            [7, 'x', '10.9.9.6:1', 1, meta],
          ]),
        ),
      ],
      close: end,
      reason: 'invalid-field',
      outcome: 'ended',
    },
    {
      label: 'a push-pull with an entry of 4 fields',
      chunks: [
        encodeFrame(
          pushPull('stranger', [[0, 'stranger', '10.9.9.7:7946', 1, meta], deadVictim, [0, 'y', 'z', 1]]),
        ),
      ],
      close: end,
      reason: 'malformed',
      outcome: 'ended',
    },
  ];
}

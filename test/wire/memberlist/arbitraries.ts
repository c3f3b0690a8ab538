/** fast-check arbitraries for memberlist's messages, within the codec's bounds. */
import fc from 'fast-check';
import type { MlNodeState, MlPacketMessage } from '../../../src/wire/memberlist/types.js';

const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const u16 = fc.integer({ min: 0, max: 0xffff });
const ip = fc.oneof(
  fc.uint8Array({ minLength: 4, maxLength: 4 }),
  fc.uint8Array({ minLength: 16, maxLength: 16 }),
);
/** Names without U+FFFD or lone surrogates, 1 to 60 characters (at most 240 bytes). */
const name = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
  .filter((s) => Buffer.byteLength(s) <= 255);
const optionalName = fc.oneof(fc.constant(''), name);
const bytes = (max: number) => fc.uint8Array({ maxLength: max });

const source = fc.record(
  { sourceAddr: ip, sourcePort: fc.integer({ min: 1, max: 0xffff }), sourceNode: name, fdkit: u32 },
  { requiredKeys: [] },
);

/** Any packet message the codec can write. */
export const arbMlPacketMessage: fc.Arbitrary<MlPacketMessage> = fc.oneof(
  fc
    .tuple(fc.record({ type: fc.constant('ping' as const), seqNo: u32, node: optionalName }), source)
    .map(([base, s]) => ({ ...base, ...s })),
  fc
    .tuple(
      fc.record({
        type: fc.constant('indirect-ping' as const),
        seqNo: u32,
        target: ip,
        port: u16,
        node: optionalName,
        nack: fc.boolean(),
      }),
      source,
    )
    .map(([base, s]) => ({ ...base, ...s })),
  fc.record({ type: fc.constant('ack' as const), seqNo: u32, payload: bytes(300) }),
  fc.record({ type: fc.constant('nack' as const), seqNo: u32 }),
  fc.record({ type: fc.constant('suspect' as const), incarnation: u32, node: name, from: optionalName }),
  fc.record({ type: fc.constant('dead' as const), incarnation: u32, node: name, from: optionalName }),
  fc.record({
    type: fc.constant('alive' as const),
    incarnation: u32,
    node: name,
    addr: ip,
    port: u16,
    meta: bytes(512),
    vsn: fc.uint8Array({ minLength: 6, maxLength: 6 }),
  }),
  fc.record({ type: fc.constant('user' as const), payload: bytes(300) }),
);

/** A push-pull node state. */
export const arbMlNodeState: fc.Arbitrary<MlNodeState> = fc.record({
  name,
  addr: ip,
  port: u16,
  meta: bytes(64),
  incarnation: u32,
  state: fc.integer({ min: 0, max: 3 }),
  vsn: fc.uint8Array({ minLength: 6, maxLength: 6 }),
});

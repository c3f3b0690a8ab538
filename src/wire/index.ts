/**
 * The wire codec of fdkit's SWIM messages and of the heartbeat monitor's heartbeats (docs/design.md, "Wire"):
 * MessagePack through msgpackr, one versioned envelope, strict validation of everything decoded, compound
 * datagrams, and length-prefixed frames for streams. Transports import from here and stay ignorant of
 * message content.
 *
 * Layout (every record is a MessagePack array; `V` is {@link WIRE_VERSION}; tags in `tags.ts`):
 *
 * | message | array |
 * | --- | --- |
 * | ping | `[V, 1, seq, from, target, updates]` |
 * | ping-req | `[V, 2, seq, from, target, targetAddress, nack, updates]` |
 * | ack / nack | `[V, 3 or 4, seq, from, updates]` |
 * | gossip | `[V, 5, from, updates]` |
 * | user | `[V, 6, from, payload, updates]` |
 * | compound | `[V, 7, [packet, ...]]` |
 * | push-pull (stream) | `[V, 8, from, join, reply, [[state, name, address, incarnation, meta], ...]]` |
 * | heartbeat (its own datagram) | `[V, 9, from, address, incarnation, nonce, seq]` |
 * | alive update | `[1, name, address, incarnation, meta]` |
 * | suspect / dead update | `[2 or 3, name, incarnation, from]` |
 * | user broadcast | `[4, origin, seq, payload]` |
 */
export { compoundHeaderBytes, encodeCompound, packCompound } from './compound.js';
export {
  type DatagramResult,
  type DecodeStreamOptions,
  decodeDatagram,
  decodeHeartbeat,
  decodeStream,
  type HeartbeatResult,
  type StreamResult,
} from './decode.js';
export {
  countDrop,
  createDropCounters,
  DROP_REASONS,
  type DropCounters,
  type DropReason,
  type Rejection,
  totalDrops,
} from './drop-reason.js';
export { encodeHeartbeat, encodePacket, encodeStream } from './encode.js';
export {
  ADDRESS_BYTES_MAX,
  COMPOUND_PARTS_MAX,
  DATAGRAM_BYTES_MAX,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  STREAM_BYTES_MAX,
  U32_MAX,
  UPDATE_BYTES_MIN,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from './limits.js';
export {
  MessageTag,
  type MessageTagValue,
  STATE_CODE_MAX,
  UpdateTag,
  type UpdateTagValue,
  WIRE_VERSION,
} from './tags.js';
export {
  checkAddress,
  checkName,
  FIELD_OK,
  type FieldCheck,
  heartbeatProblem,
  OUT_OF_RANGE,
  packetProblem,
  streamMessageProblem,
  WRONG_TYPE,
} from './validate.js';

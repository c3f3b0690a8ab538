/**
 * The decoder: bytes from the network to protocol messages, or a reason to drop them. It never throws
 * (docs/design.md, "Wire"): msgpackr's failures become `malformed`, and every field is checked for type,
 * range and length before any protocol object is built, so protocol code only ever sees valid messages.
 *
 * What is accepted is decided by value: any MessagePack encoding that decodes to the right type and range
 * passes (an incarnation written as a uint64, or as an integral float64, is still an integer in range),
 * while the encoder always writes the smallest form. 64-bit integers decode as numbers (and fail the
 * 32-bit range check), maps and extension values are the wrong type wherever they appear, msgpackr's
 * structured-clone references are refused, and bytes after the top-level value make it `malformed`.
 *
 * Results are fresh objects. Byte fields (`meta`, `payload`) are copies, never views of the input, so the
 * caller may reuse its receive buffer at once; empty ones are a shared zero-length array.
 */
export { type DatagramResult, decodeDatagram } from './decode-datagram.js';
export { decodeHeartbeat, type HeartbeatResult } from './decode-heartbeat.js';
export { type DecodeStreamOptions, decodeStream, type StreamResult } from './decode-stream.js';

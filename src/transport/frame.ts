/**
 * Stream framing: a frame is a 4-byte big-endian unsigned payload length followed by the payload. TCP
 * delivers bytes in arbitrary chunks, so {@link FrameReader} reassembles frames from them.
 *
 * The reader checks an announced length against the limit as soon as the 4 header bytes are in, and
 * never allocates from the announced length: it keeps the chunks that actually arrived and joins them
 * when the frame is complete. A peer that announces 32 MiB and sends 10 bytes costs 10 bytes.
 *
 * An empty frame carries no message: it is the request for a watch (`inbound-stream.ts`).
 */

import { InvalidArgumentError } from '../errors.js';

/** Bytes of the length prefix. */
export const FRAME_HEADER_BYTES = 4;

/** Largest payload a header can announce. */
export const FRAME_BYTES_MAX = 0xffff_ffff;

/** The error `sendStream` rejects an empty message with: an empty frame is the request for a watch. */
export function emptyStreamMessage(): InvalidArgumentError {
  return new InvalidArgumentError(
    'bytes',
    'sendStream: a stream message must not be empty (an empty frame is how a watch is asked for)',
  );
}

/** The 4-byte header of a payload of `length` bytes. */
export function frameHeader(length: number): Uint8Array {
  const header = new Uint8Array(FRAME_HEADER_BYTES);
  new DataView(header.buffer).setUint32(0, length, false);
  return header;
}

/** Header and payload in one array. */
export function encodeFrame(payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  frame.set(frameHeader(payload.length), 0);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

/** What one {@link FrameReader.push} produced. */
export interface FrameReadResult {
  /** Frames completed by this chunk, in order. */
  readonly frames: Uint8Array[];
  /** True when a header announced more than the limit; the reader then accepts nothing more. */
  readonly tooLarge: boolean;
}

/** Reassembles frames from chunks of a byte stream. Pure: no I/O, no time. */
export class FrameReader {
  private readonly bytesMax: number;
  private readonly header = new Uint8Array(FRAME_HEADER_BYTES);
  private headerFilled = 0;
  /** Payload length of the frame being read, or -1 while its header is incomplete. */
  private payloadLength = -1;
  private readonly pieces: Uint8Array[] = [];
  private piecesBytes = 0;
  private failed = false;

  /** @param bytesMax - largest payload accepted */
  constructor(bytesMax: number) {
    this.bytesMax = bytesMax;
  }

  /** True when no part of a frame is pending: the stream may end here without losing anything. */
  get atBoundary(): boolean {
    return !this.failed && this.headerFilled === 0 && this.payloadLength === -1;
  }

  /** Bytes of the incomplete frame received so far (header included). */
  get pendingBytes(): number {
    return this.headerFilled + this.piecesBytes;
  }

  /** Consumes `chunk`; returns the frames it completed, or `tooLarge` at the first oversize header. */
  push(chunk: Uint8Array): FrameReadResult {
    const frames: Uint8Array[] = [];
    if (this.failed) return { frames, tooLarge: true };
    let offset = 0;
    while (offset < chunk.length) {
      if (this.payloadLength === -1) {
        const take = Math.min(FRAME_HEADER_BYTES - this.headerFilled, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + take), this.headerFilled);
        this.headerFilled += take;
        offset += take;
        if (this.headerFilled < FRAME_HEADER_BYTES) break;
        const length = new DataView(this.header.buffer).getUint32(0, false);
        if (length > this.bytesMax) {
          this.failed = true;
          return { frames, tooLarge: true };
        }
        this.payloadLength = length;
      }
      const take = Math.min(this.payloadLength - this.piecesBytes, chunk.length - offset);
      if (take > 0) {
        this.pieces.push(chunk.subarray(offset, offset + take));
        this.piecesBytes += take;
        offset += take;
      }
      if (this.piecesBytes === this.payloadLength) frames.push(this.completeFrame());
    }
    return { frames, tooLarge: false };
  }

  private completeFrame(): Uint8Array {
    // A copy, so that the frame does not pin the (possibly much larger) chunks it was cut from.
    const frame = new Uint8Array(this.payloadLength);
    let at = 0;
    for (const piece of this.pieces) {
      frame.set(piece, at);
      at += piece.length;
    }
    this.pieces.length = 0;
    this.piecesBytes = 0;
    this.payloadLength = -1;
    this.headerFilled = 0;
    return frame;
  }
}

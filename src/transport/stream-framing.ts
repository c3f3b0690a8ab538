/**
 * How messages are delimited on a stream connection, which the TCP transport takes as a parameter:
 * fdkit's own framing (a 4-byte length before each message, confirmed by the receiver's half-close:
 * `frame.ts`), or memberlist's (`wire/memberlist/stream-framing.ts`: no length, one message a connection,
 * whose end the reader finds by parsing it, and a reply written on the same connection at once).
 */
import { encodeFrame, FRAME_HEADER_BYTES, FrameReader, type FrameReadResult } from './frame.js';
import { REPLY_BYTES_MAX } from './transport.js';

/** Cuts one inbound connection's bytes into messages (pure: no I/O, no time). */
export interface MessageReader {
  /** Consumes `chunk`; returns the messages it completed, or `tooLarge` once nothing more is accepted. */
  push(chunk: Uint8Array): FrameReadResult;
  /** True when no part of a message is pending: the stream may end here without losing anything. */
  readonly atBoundary: boolean;
  /** Bytes of the incomplete message received so far. */
  readonly pendingBytes: number;
}

/** Collects what the receiver writes back on a connection this member opened. */
export interface ReplyCollector {
  push(chunk: Uint8Array): void;
  /** The reply, once the receiver closed its side; undefined for none, or one that was unusable. */
  result(): Uint8Array | undefined;
}

/** A way of delimiting stream messages. */
export interface StreamFraming {
  /** A reader for one inbound connection. */
  reader(bytesMax: number): MessageReader;
  /** The bytes that carry `payload` on a connection this member opens. */
  wrap(payload: Uint8Array): Uint8Array;
  /** The bytes that open a watch (a connection held open with no traffic). */
  readonly watchRequest: Uint8Array;
  /**
   * True when a connection carries one message, answered as soon as it is read (the reply, if any, then
   * this side's end), without waiting for the sender to half-close: the sender reads the answer first.
   */
  readonly answerAtOnce: boolean;
  /** Largest reply a receiver writes back. */
  readonly replyBytesMax: number;
  /** The bytes a receiver writes for `reply`. */
  wrapReply(reply: Uint8Array): Uint8Array;
  /** A collector of the reply on a connection this member opened. */
  replies(bytesMax: number): ReplyCollector;
}

/** fdkit's own framing (see `frame.ts`). */
export const LENGTH_PREFIXED: StreamFraming = {
  reader: (bytesMax) => new FrameReader(bytesMax),
  wrap: encodeFrame,
  watchRequest: new Uint8Array(FRAME_HEADER_BYTES),
  answerAtOnce: false,
  replyBytesMax: REPLY_BYTES_MAX,
  wrapReply: encodeFrame,
  replies: () => {
    // At most one reply frame, within REPLY_BYTES_MAX: a refusal, not a state exchange.
    const frames = new FrameReader(REPLY_BYTES_MAX);
    let reply: Uint8Array | undefined;
    let unusable = false;
    return {
      push(chunk) {
        if (unusable) return;
        const read = frames.push(chunk);
        if (read.tooLarge || read.frames.length > 1 || (read.frames.length === 1 && reply !== undefined))
          unusable = true;
        else if (read.frames.length === 1) reply = read.frames[0];
      },
      result: () => (unusable || !frames.atBoundary ? undefined : reply),
    };
  },
};

/**
 * memberlist's stream framing for the TCP transport (`transport/stream-framing.ts`). memberlist writes one
 * message a connection with no length before it: the reader finds its end by parsing it (the label
 * header, the encryption's length, the push-pull header's counts). The receiver answers on the same
 * connection at once (a push-pull with its own state, a ping with its ack) and closes; the sender reads
 * until that close.
 *
 * A connection that opens with {@link FDKIT_STREAM_MARK}, a byte memberlist never sends first, carries
 * fdkit's own length-prefixed frames after it: that is how an fdkit member asks another for a watch in
 * a mixed cluster. It is only ever sent to members known to speak fdkit.
 */
import { FRAME_HEADER_BYTES, FrameReader, type FrameReadResult } from '../../transport/frame.js';
import type { MessageReader, ReplyCollector, StreamFraming } from '../../transport/stream-framing.js';

/** The first byte of a connection that carries fdkit's frames in a memberlist cluster. */
export const FDKIT_STREAM_MARK = 0xfd;

/**
 * Finds where a connection's message ends, fed its bytes as they come: the message's length (counted
 * from the connection's first byte) once it is complete, `'more'` until then, `'invalid'` when no
 * continuation can make it a message.
 */
export interface MessageMeasurer {
  push(chunk: Uint8Array): number | 'more' | 'invalid';
}

const NOTHING: Uint8Array[] = [];

class MemberlistReader implements MessageReader {
  private readonly pieces: Uint8Array[] = [];
  private bytes = 0;
  private done = false;
  private frames: FrameReader | undefined;
  private readonly measurer: MessageMeasurer;

  constructor(
    private readonly bytesMax: number,
    measurer: () => MessageMeasurer,
  ) {
    this.measurer = measurer();
  }

  get atBoundary(): boolean {
    return this.frames !== undefined ? this.frames.atBoundary : this.bytes === 0 || this.done;
  }

  get pendingBytes(): number {
    return this.frames !== undefined ? this.frames.pendingBytes : this.done ? 0 : this.bytes;
  }

  push(chunk: Uint8Array): FrameReadResult {
    if (this.frames !== undefined) return this.frames.push(chunk);
    // One message a connection: what follows it is not read.
    if (this.done || chunk.length === 0) return { frames: NOTHING, tooLarge: false };
    if (this.bytes === 0 && chunk[0] === FDKIT_STREAM_MARK) {
      this.frames = new FrameReader(this.bytesMax);
      return this.frames.push(chunk.subarray(1));
    }
    this.pieces.push(chunk);
    this.bytes += chunk.length;
    const length = this.measurer.push(chunk);
    if (length === 'more') {
      if (this.bytes > this.bytesMax) {
        this.done = true;
        return { frames: NOTHING, tooLarge: true };
      }
      return { frames: NOTHING, tooLarge: false };
    }
    this.done = true;
    const buffer = this.joined();
    // An invalid message is handed on whole, for the decoder to count as what it is.
    return { frames: [length === 'invalid' ? buffer : buffer.slice(0, length)], tooLarge: false };
  }

  private joined(): Uint8Array {
    if (this.pieces.length === 1) return this.pieces[0]!;
    const all = new Uint8Array(this.bytes);
    let at = 0;
    for (const piece of this.pieces) {
      all.set(piece, at);
      at += piece.length;
    }
    this.pieces.length = 0;
    return all;
  }
}

/** Reads everything the receiver writes until it closes, up to a bound. */
function untilClose(bytesMax: number): ReplyCollector {
  const pieces: Uint8Array[] = [];
  let bytes = 0;
  let unusable = false;
  return {
    push(chunk) {
      if (unusable) return;
      bytes += chunk.length;
      if (bytes > bytesMax) {
        unusable = true;
        pieces.length = 0;
        return;
      }
      pieces.push(chunk);
    },
    result() {
      if (unusable || bytes === 0) return undefined;
      const all = new Uint8Array(bytes);
      let at = 0;
      for (const piece of pieces) {
        all.set(piece, at);
        at += piece.length;
      }
      return all;
    },
  };
}

const WATCH_REQUEST = new Uint8Array(1 + FRAME_HEADER_BYTES);
WATCH_REQUEST[0] = FDKIT_STREAM_MARK;

/** memberlist's framing, with `measurer` making what tells where a message ends. */
export function memberlistFraming(measurer: () => MessageMeasurer, replyBytesMax: number): StreamFraming {
  return {
    reader: (bytesMax) => new MemberlistReader(bytesMax, measurer),
    wrap: (payload) => payload,
    watchRequest: WATCH_REQUEST,
    answerAtOnce: true,
    replyBytesMax,
    wrapReply: (reply) => reply,
    replies: untilClose,
  };
}

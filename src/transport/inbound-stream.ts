/**
 * The receiving side of one stream connection, shared by the TCP and the in-memory transport so that
 * both enforce the same rules: frames above the size limit reset the connection unread, a connection
 * that ends or breaks inside a frame is a truncation, and every frame must arrive complete within the
 * stream timeout of the previous one (or of the connection's start), which cuts off peers that trickle
 * bytes to hold a connection open. A connection that ends at a frame boundary is answered by ending ours:
 * that is the sender's confirmation. A handler may queue one small reply frame while it runs; it is
 * written just before that end, so that a sender that reads nothing back waits no longer for it.
 *
 * An empty frame carries no message and is never delivered: it asks for a watch. The connection is then
 * held open without the stream timeout, so that the peer learns from its kernel the moment this
 * process dies (the connection closes), while a paused process keeps it open (see `watch` in
 * `transport.ts`).
 */
import type { Clock, Timer } from '../runtime/clock.js';
import { LENGTH_PREFIXED, type MessageReader, type StreamFraming } from './stream-framing.js';
import type { DropReason } from './transport.js';

/** What the session can do to the connection under it. */
export interface InboundConnection {
  /**
   * Half-closes our side after the peer half-closed: confirms every frame was read. `reply`, when given,
   * is written as one frame first.
   */
  end(reply?: Uint8Array): void;
  /** Aborts the connection (a TCP reset): the sender learns that its message was not taken. */
  reset(): void;
}

/** What the session reports to its transport. */
export interface InboundStreamContext {
  readonly clock: Clock;
  readonly streamTimeoutMs: number;
  readonly streamBytesMax: number;
  /** How messages are delimited: fdkit's length prefix unless given. */
  readonly framing?: StreamFraming;
  /** A complete frame; `reply` queues the one reply frame of the connection (see `MessageHandler`). */
  deliver(frame: Uint8Array, reply: (frame: Uint8Array) => void): void;
  /** Bytes given up, after which the connection has been reset or ended. */
  drop(reason: Extract<DropReason, 'too-large' | 'truncated' | 'timeout'>, pendingBytes: number): void;
  /** The session is over (ended, reset or broken); called once. */
  finished(): void;
  /**
   * The peer asked for a watch. False when the transport holds too many connections already: the
   * connection is then reset, and the transport has counted it.
   */
  watch(): boolean;
}

/** The receiving side of one stream connection. Feed it the connection's events. */
export class InboundStream {
  private readonly connection: InboundConnection;
  private readonly context: InboundStreamContext;
  private readonly reader: MessageReader;
  private readonly framing: StreamFraming;
  private timer: Timer;
  private framesRead = 0;
  private finished = false;
  private watching = false;
  private replyFrame: Uint8Array | undefined;
  private readonly reply = (frame: Uint8Array): void => {
    if (this.finished || this.replyFrame !== undefined || frame.length > this.framing.replyBytesMax) return;
    this.replyFrame = frame.slice();
  };

  constructor(connection: InboundConnection, context: InboundStreamContext) {
    this.connection = connection;
    this.context = context;
    this.framing = context.framing ?? LENGTH_PREFIXED;
    this.reader = this.framing.reader(context.streamBytesMax);
    this.timer = context.clock.setTimer(context.streamTimeoutMs, () => this.timedOut());
  }

  /** True once the session has ended or reset the connection, or seen it break. */
  get done(): boolean {
    return this.finished;
  }

  /** Bytes arrived. */
  data(chunk: Uint8Array): void {
    if (this.finished) return;
    const { frames, tooLarge } = this.reader.push(chunk);
    for (const frame of frames) {
      this.framesRead++;
      if (frame.length === 0) {
        if (!this.watching) this.startWatch();
      } else {
        this.context.deliver(frame, this.reply);
        // memberlist's sender waits for the answer before it closes anything: give it now, and end.
        if (this.framing.answerAtOnce && !this.finished) {
          this.finish();
          this.connection.end(this.replyFrame);
        }
      }
      if (this.finished) return;
    }
    if (frames.length > 0 && !this.watching) {
      this.timer.cancel();
      this.timer = this.context.clock.setTimer(this.context.streamTimeoutMs, () => this.timedOut());
    }
    if (tooLarge) this.fail('too-large');
  }

  /** The peer half-closed. */
  end(): void {
    if (this.finished) return;
    if (!this.reader.atBoundary) {
      this.fail('truncated');
      return;
    }
    this.finish();
    this.connection.end(this.replyFrame);
  }

  /** The connection broke (reset, error) or closed without an orderly end. */
  broken(): void {
    if (this.finished) return;
    const pending = this.reader.pendingBytes;
    this.finish();
    if (pending > 0) this.context.drop('truncated', pending);
  }

  /** The transport is closing: reset without counting anything. */
  abort(): void {
    if (this.finished) return;
    this.finish();
    this.connection.reset();
  }

  /** Whether the peer asked for a watch, which is held open with no timeout. */
  get isWatch(): boolean {
    return this.watching;
  }

  private startWatch(): void {
    this.timer.cancel();
    if (!this.context.watch()) {
      this.finish();
      this.connection.reset();
      return;
    }
    this.watching = true;
  }

  private timedOut(): void {
    if (this.finished) return;
    // An idle connection that already delivered its frames lost nothing; one that never completed a
    // frame is a slow or silent peer holding a slot.
    if (this.framesRead > 0 && this.reader.atBoundary) {
      this.finish();
      this.connection.reset();
      return;
    }
    this.fail('timeout');
  }

  private fail(reason: 'too-large' | 'truncated' | 'timeout'): void {
    const pending = this.reader.pendingBytes;
    this.finish();
    this.connection.reset();
    this.context.drop(reason, pending);
  }

  private finish(): void {
    this.finished = true;
    this.timer.cancel();
    this.context.finished();
  }
}

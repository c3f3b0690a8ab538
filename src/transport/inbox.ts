/**
 * Hands inbound messages to the registered handlers. Both transports receive through it, so they count
 * deliveries the same way and contain a throwing handler the same way: the exception is logged and
 * counted as `handler-error`, and never reaches the socket code that called us.
 */
import type { TransportLogger } from './options.js';
import type { DropReason, MessageHandler, TransportCounters } from './transport.js';

/** The handlers of one transport, and the counting around them. */
export class Inbox {
  private datagramHandler: MessageHandler | undefined;
  private streamHandler: MessageHandler | undefined;
  private readonly counters: TransportCounters;
  private readonly logger: TransportLogger;

  constructor(counters: TransportCounters, logger: TransportLogger) {
    this.counters = counters;
    this.logger = logger;
  }

  /** Sets the datagram handler. */
  onDatagram(handler: MessageHandler): void {
    this.datagramHandler = handler;
  }

  /** Sets the stream handler. */
  onStream(handler: MessageHandler): void {
    this.streamHandler = handler;
  }

  /** Delivers one datagram. */
  datagram(bytes: Uint8Array, fromAddress: string): void {
    if (this.datagramHandler === undefined) {
      this.drop('no-handler', { kind: 'datagram', fromAddress, bytes: bytes.length });
      return;
    }
    this.counters.datagramsIn++;
    this.counters.datagramBytesIn += bytes.length;
    this.call(this.datagramHandler, 'datagram', bytes, fromAddress);
  }

  /** Delivers one complete stream frame, with the connection's reply (see `MessageHandler`). */
  stream(bytes: Uint8Array, fromAddress: string, reply: (frame: Uint8Array) => void): void {
    this.counters.streamsIn++;
    this.counters.streamBytesIn += bytes.length;
    if (this.streamHandler === undefined) {
      this.drop('no-handler', { kind: 'stream', fromAddress, bytes: bytes.length });
      return;
    }
    this.call(this.streamHandler, 'stream', bytes, fromAddress, reply);
  }

  /** Counts and logs dropped input. */
  drop(reason: DropReason, fields: Record<string, unknown>): void {
    this.counters.drops[reason]++;
    this.logger.debug({ ...fields, reason }, 'inbound bytes dropped');
  }

  private call(
    handler: MessageHandler,
    kind: string,
    bytes: Uint8Array,
    fromAddress: string,
    reply?: (frame: Uint8Array) => void,
  ): void {
    try {
      if (reply === undefined) handler(bytes, fromAddress);
      else handler(bytes, fromAddress, reply);
    } catch (error) {
      this.counters.drops['handler-error']++;
      this.logger.warn({ kind, fromAddress, bytes: bytes.length, err: error }, `${kind} handler threw`);
    }
  }
}

/**
 * The stream half of the network transport, over TCP (`node:net`): a server whose connections are read
 * by {@link InboundStream} (framing, size limit, timeouts), and a client that sends one frame per
 * connection and waits for the receiver's confirmation.
 *
 * Timeouts run on the injected `Clock` rather than on the sockets' own idle timers, so that only
 * `src/runtime/system.ts` touches host timers and a test can drive them with virtual time.
 *
 * A receiver that refuses bytes (too large, over the connection limit, timed out) resets the connection
 * (`resetAndDestroy`), so that the sender sees an error even when the kernel had already taken all of its
 * bytes; a plain close would send an orderly FIN that reads as a confirmation.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { NetworkError } from '../errors.js';
import type { Watch, WatchEnd } from '../membership/connection.js';
import type { Clock, Timer } from '../runtime/clock.js';
import { formatAddress } from './address.js';
import { bindError, systemErrorCode } from './bind-error.js';
import { InboundStream, type InboundStreamContext } from './inbound-stream.js';
import { LENGTH_PREFIXED, type StreamFraming } from './stream-framing.js';

/** What the server needs from its transport. */
export interface TcpServerContext {
  readonly clock: Clock;
  readonly streamTimeoutMs: number;
  readonly streamBytesMax: number;
  readonly maxInboundStreams: number;
  /** How messages are delimited: fdkit's length prefix unless given. */
  readonly framing?: StreamFraming;
  /** A connection was accepted (within the limit). */
  accepted(): void;
  /** A complete frame from `fromAddress`; `reply` queues the connection's reply frame. */
  deliver(frame: Uint8Array, fromAddress: string, reply: (frame: Uint8Array) => void): void;
  /** Input given up. */
  drop(
    reason: Parameters<InboundStreamContext['drop']>[0] | 'connection-limit',
    fields: Record<string, unknown>,
  ): void;
}

/** A listening TCP server. */
export class TcpServer {
  private readonly server: Server;
  private readonly sessions = new Map<Socket, InboundStream>();
  private watches = 0;
  private closing: Promise<void> | undefined;

  private constructor(server: Server) {
    this.server = server;
  }

  /**
   * Listens on `host:port` (port 0 for an ephemeral one).
   *
   * @throws {@link NetworkError} `FDKIT_ADDRESS_IN_USE` or `FDKIT_BIND_FAILED`.
   */
  static async listen(host: string, port: number, context: TcpServerContext): Promise<TcpServer> {
    // allowHalfOpen: the sender half-closes after its frame and waits for our half-close as confirmation.
    const server = createServer({ allowHalfOpen: true, noDelay: true });
    const tcp = new TcpServer(server);
    server.on('connection', (socket) => tcp.accept(socket, context));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      server.close();
      throw bindError(error, formatAddress(host, port), 'TCP');
    });
    // Errors after listening (rare: EMFILE on accept) must not crash the process.
    server.on('error', () => {});
    return tcp;
  }

  /** The port bound. */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  /** Inbound connections open now. */
  get openConnections(): number {
    return this.sessions.size;
  }

  /** Stops listening and resets every open connection. Idempotent. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const [socket, session] of this.sessions) {
        session.abort();
        socket.destroy();
      }
      this.sessions.clear();
    });
    return this.closing;
  }

  private accept(socket: Socket, context: TcpServerContext): void {
    const framing = context.framing ?? LENGTH_PREFIXED;
    // Errors (ECONNRESET) are followed by 'close', which is where they are handled.
    socket.on('error', () => {});
    const remoteAddress = socket.remoteAddress;
    const remotePort = socket.remotePort;
    if (this.closing !== undefined || remoteAddress === undefined || remotePort === undefined) {
      socket.destroy();
      return;
    }
    const fromAddress = formatAddress(remoteAddress, remotePort);
    if (this.sessions.size >= context.maxInboundStreams) {
      context.drop('connection-limit', { fromAddress, limit: context.maxInboundStreams });
      socket.resetAndDestroy();
      return;
    }
    context.accepted();
    const session = new InboundStream(
      {
        end: (reply) => (reply === undefined ? socket.end() : socket.end(framing.wrapReply(reply))),
        reset: () => socket.resetAndDestroy(),
      },
      {
        clock: context.clock,
        streamTimeoutMs: context.streamTimeoutMs,
        streamBytesMax: context.streamBytesMax,
        framing,
        deliver: (frame, reply) => context.deliver(frame, fromAddress, reply),
        drop: (reason, pendingBytes) => context.drop(reason, { fromAddress, pendingBytes }),
        finished: () => {
          if (session.isWatch) this.watches--;
        },
        watch: () => {
          if (this.watches >= context.maxInboundStreams / 2) {
            context.drop('connection-limit', {
              fromAddress,
              limit: context.maxInboundStreams / 2,
              watch: true,
            });
            return false;
          }
          this.watches++;
          return true;
        },
      },
    );
    this.sessions.set(socket, session);
    socket.on('data', (chunk: Buffer) => session.data(chunk));
    socket.on('end', () => session.end());
    socket.on('close', () => {
      this.sessions.delete(socket);
      session.broken();
    });
  }
}

/** Options of {@link sendFrame}. */
export interface SendFrameOptions {
  readonly clock: Clock;
  readonly connectTimeoutMs: number;
  readonly streamTimeoutMs: number;
  /** Largest reply read back (memberlist's framing answers a push-pull with the whole state). */
  readonly streamBytesMax: number;
  /** How messages are delimited: fdkit's length prefix unless given. */
  readonly framing?: StreamFraming;
}

/** A stream send in progress, which the transport can abort on close. */
export interface PendingSend {
  /** The reply frame the receiver wrote before confirming, if any. */
  readonly done: Promise<Uint8Array | undefined>;
  abort(error: Error): void;
}

/**
 * Connects to `host:port`, writes `payload` as one frame, half-closes, and resolves when the receiver has
 * half-closed too and the connection closed cleanly, with the one reply frame it wrote first (a larger or
 * broken one is ignored). Rejects with a {@link NetworkError}:
 * `FDKIT_CONNECT_FAILED` (refused, unreachable, not resolved, or not connected within
 * `connectTimeoutMs`), `FDKIT_STREAM_FAILED` (reset or closed before confirming), `FDKIT_STREAM_TIMEOUT`
 * (not confirmed within `streamTimeoutMs` of connecting).
 */
export function sendFrame(
  host: string,
  port: number,
  payload: Uint8Array,
  address: string,
  options: SendFrameOptions,
): PendingSend {
  const socket = connect({ host, port, allowHalfOpen: true, noDelay: true });
  let timer: Timer | undefined;
  let connected = false;
  let peerEnded = false;
  let failure: NetworkError | undefined;
  let settle: (error?: Error) => void = () => {};
  // A refusal fits in one small frame; anything past it is ignored rather than buffered.
  const framing = options.framing ?? LENGTH_PREFIXED;
  const replies = framing.replies(options.streamBytesMax);
  const done = new Promise<Uint8Array | undefined>((resolve, reject) => {
    settle = (error) => {
      settle = () => {};
      timer?.cancel();
      if (error === undefined) {
        resolve(replies.result());
      } else {
        socket.destroy();
        reject(error);
      }
    };
  });
  const fail = (error: NetworkError): void => {
    failure ??= error;
    settle(failure);
  };
  timer = options.clock.setTimer(options.connectTimeoutMs, () =>
    fail(
      new NetworkError(
        'FDKIT_CONNECT_FAILED',
        address,
        `could not connect to ${address} within connectTimeoutMs (${options.connectTimeoutMs} ms)`,
      ),
    ),
  );
  socket.on('error', (error) => {
    // A reset can beat the 'connect' event when the receiver accepts and resets at once (connection
    // limit): the peer was there and refused the message, which is a stream failure, not a connect one.
    const code = systemErrorCode(error);
    if (connected || code === 'ECONNRESET' || code === 'EPIPE') {
      fail(
        new NetworkError(
          'FDKIT_STREAM_FAILED',
          address,
          `${address} broke the connection before confirming the message (${code ?? error.message}); it may be too large for the receiver, or the receiver is at its connection limit`,
          { cause: error },
        ),
      );
    } else {
      fail(
        new NetworkError(
          'FDKIT_CONNECT_FAILED',
          address,
          `could not connect to ${address}: ${code === 'ECONNREFUSED' ? 'connection refused, nobody listens' : error.message}`,
          { cause: error },
        ),
      );
    }
  });
  socket.once('connect', () => {
    connected = true;
    timer?.cancel();
    timer = options.clock.setTimer(options.streamTimeoutMs, () =>
      fail(
        new NetworkError(
          'FDKIT_STREAM_TIMEOUT',
          address,
          `${address} did not confirm the message within streamTimeoutMs (${options.streamTimeoutMs} ms)`,
        ),
      ),
    );
    socket.cork();
    socket.write(framing.wrap(payload));
    socket.uncork();
    socket.end();
  });
  // At most a reply frame comes back before the half-close; reading keeps the socket flowing so that
  // 'end' fires.
  socket.on('data', (chunk: Buffer) => replies.push(chunk));
  socket.once('end', () => {
    peerEnded = true;
  });
  socket.once('close', () => {
    if (peerEnded && connected && socket.writableFinished) {
      settle();
      return;
    }
    fail(
      new NetworkError(
        connected ? 'FDKIT_STREAM_FAILED' : 'FDKIT_CONNECT_FAILED',
        address,
        connected
          ? `${address} closed the connection before confirming the message`
          : `could not connect to ${address}: the connection closed`,
      ),
    );
  });
  return { done, abort: (error) => settle(error) };
}

/**
 * Opens a watch on `host:port` (see `Transport.watch`): connects, sends an empty frame, and keeps the
 * connection open. `onEnd` runs once: `closed` when the peer closed or reset an open watch (its process
 * exited, or it shut down), `refused` when the connection was refused, `failed` for anything else (no
 * answer within `connectTimeoutMs`, unreachable). `cancel` closes it without calling `onEnd`.
 */
export function openWatch(
  host: string,
  port: number,
  clock: Clock,
  connectTimeoutMs: number,
  onEnd: (reason: WatchEnd) => void,
  framing: StreamFraming = LENGTH_PREFIXED,
): Watch {
  const socket = connect({ host, port, noDelay: true });
  let connected = false;
  let over = false;
  const end = (reason: WatchEnd): void => {
    if (over) return;
    over = true;
    timer.cancel();
    socket.destroy();
    onEnd(reason);
  };
  const timer = clock.setTimer(connectTimeoutMs, () => end('failed'));
  socket.once('connect', () => {
    connected = true;
    timer.cancel();
    // No keepalive: a peer that is silent but still has its socket open is the protocol's to judge.
    socket.write(framing.watchRequest);
  });
  socket.on('error', (error) => {
    if (connected) end('closed');
    else end(systemErrorCode(error) === 'ECONNREFUSED' ? 'refused' : 'failed');
  });
  socket.on('data', () => {});
  socket.once('end', () => end('closed'));
  socket.once('close', () => end(connected ? 'closed' : 'failed'));
  return {
    cancel: () => {
      if (over) return;
      over = true;
      timer.cancel();
      socket.destroy();
    },
  };
}

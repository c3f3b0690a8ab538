/**
 * The datagram half of the network transport: one UDP socket (through `dgram-as-promised`), IPv4 or IPv6
 * after the bind host. A socket bound to `::` is dual-stack, so IPv4 destinations are written as
 * IPv4-mapped IPv6 for it, and IPv4 senders, which it sees as `::ffff:a.b.c.d`, are reported as
 * `a.b.c.d`.
 */
import type { RemoteInfo } from 'node:dgram';
import DgramAsPromised, { type SocketAsPromised } from 'dgram-as-promised';
import { NetworkError } from '../errors.js';
import { formatAddress, isIPv4, isIPv6 } from './address.js';
import { bindError } from './bind-error.js';

/** What arrives on the socket: the bytes and the sender as `host:port`. */
export type DatagramListener = (bytes: Uint8Array, fromAddress: string) => void;

/** A bound UDP socket. */
export class UdpEndpoint {
  private readonly socket: SocketAsPromised;
  /** The IP version of the socket. */
  readonly family: 4 | 6;
  /** The port bound. */
  readonly port: number;
  private closing: Promise<void> | undefined;

  private constructor(socket: SocketAsPromised, family: 4 | 6, port: number) {
    this.socket = socket;
    this.family = family;
    this.port = port;
  }

  /**
   * Binds `host:port` (`host` an IP address of version `family`; port 0 for an ephemeral one) and calls
   * `listener` for every datagram. `receiveBufferBytes` is a wish: the kernel caps it
   * (`net.core.rmem_max` on Linux), and a refusal halves it until it is accepted.
   *
   * @throws {@link NetworkError} `FDKIT_ADDRESS_IN_USE` or `FDKIT_BIND_FAILED`.
   */
  static async bind(
    host: string,
    port: number,
    family: 4 | 6,
    receiveBufferBytes: number,
    listener: DatagramListener,
  ): Promise<UdpEndpoint> {
    const socket = DgramAsPromised.createSocket(family === 6 ? 'udp6' : 'udp4');
    let info: { port: number };
    try {
      info = await socket.bind(port, host);
    } catch (error) {
      await socket.close().catch(() => {});
      throw bindError(error, formatAddress(host, port), 'UDP');
    }
    for (let bytes = receiveBufferBytes; bytes >= 64 * 1024; bytes = Math.floor(bytes / 2)) {
      try {
        socket.setRecvBufferSize(bytes);
        break;
      } catch {
        // Refused (a limit stricter than Linux's silent cap); try half.
      }
    }
    // A persistent listener on the underlying socket rather than `recv()` in a loop, which registers
    // listeners anew for every packet.
    socket.socket.on('message', (message: Buffer, remote: RemoteInfo) => {
      listener(message, formatAddress(remote.address, remote.port));
    });
    return new UdpEndpoint(socket, family, info.port);
  }

  /**
   * Sends one datagram. Resolves when the socket has taken it; rejects with a {@link NetworkError}
   * `FDKIT_SEND_FAILED` (the address family cannot be reached from this socket, the datagram is too big,
   * the host name does not resolve).
   */
  async send(host: string, port: number, bytes: Uint8Array, address: string): Promise<void> {
    let target = host;
    if (this.family === 6 && isIPv4(host)) target = `::ffff:${host}`;
    if (this.family === 4 && isIPv6(host)) {
      throw new NetworkError(
        'FDKIT_SEND_FAILED',
        address,
        `cannot send to ${address}: this transport is bound to IPv4; bind [::] to reach IPv6 peers`,
      );
    }
    try {
      await this.socket.send(bytes, port, target);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new NetworkError('FDKIT_SEND_FAILED', address, `cannot send to ${address}: ${reason}`, {
        cause: error,
      });
    }
  }

  /** Closes the socket. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.socket.close().catch(() => {});
    return this.closing;
  }
}

/**
 * The datagram half of the network transport: one UDP socket (through `dgram-as-promised`), IPv4 or IPv6
 * after the bind host. A socket bound to `::` is dual-stack, so IPv4 destinations are written as
 * IPv4-mapped IPv6 for it, and IPv4 senders, which it sees as `::ffff:a.b.c.d`, are reported as
 * `a.b.c.d`.
 *
 * Sending and receiving are the hot path of an idle member, where each datagram pays for whatever it
 * does in cold (interpreted) code: addresses are parsed and formatted once per peer and remembered, and
 * a datagram goes straight to the socket with one callback, without a promise per send or a DNS lookup
 * of an address that is already an IP.
 */
import type { RemoteInfo } from 'node:dgram';
import { lookup as dnsLookup, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import DgramAsPromised, { type SocketAsPromised } from 'dgram-as-promised';
import { NetworkError } from '../errors.js';
import { addressPrefix, formatAddress, isIPv4, isIPv6, parseAddress } from './address.js';
import { bindError } from './bind-error.js';
import { BoundedMemo } from './bounded-memo.js';

/** What arrives on the socket: the bytes and the sender as `host:port`. */
export type DatagramListener = (bytes: Uint8Array, fromAddress: string) => void;

/** Called once a datagram has left, or could not: `error` is a `NetworkError` `FDKIT_SEND_FAILED`. */
export type SendDone = (error: NetworkError | undefined, bytes: number) => void;

/** A destination as the socket writes it. */
interface Destination {
  readonly host: string;
  readonly port: number;
}

/**
 * How many peers' addresses are remembered on each side: far more than a cluster's members, and small
 * enough that a flood of datagrams from spoofed sources cannot grow the memory.
 */
const ADDRESSES_REMEMBERED = 4096;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;

/** dgram's lookup, answering an IP address at once instead of through `dns.lookup` and a tick. */
function lookupUnlessIp(host: string, family: number | LookupOneOptions, callback: LookupCallback): void {
  const version = isIP(host);
  if (version !== 0) callback(null, host, version);
  else dnsLookup(host, typeof family === 'number' ? { family } : family, callback);
}

/** A bound UDP socket. */
export class UdpEndpoint {
  private readonly socket: SocketAsPromised;
  /** The IP version of the socket. */
  readonly family: 4 | 6;
  /** The port bound. */
  readonly port: number;
  private closing: Promise<void> | undefined;
  private readonly destinations = new BoundedMemo<Destination>(ADDRESSES_REMEMBERED, (address) =>
    this.resolveDestination(address),
  );

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
    const socket = DgramAsPromised.createSocket({
      type: family === 6 ? 'udp6' : 'udp4',
      lookup: lookupUnlessIp,
    });
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
    const senders = new BoundedMemo<string>(ADDRESSES_REMEMBERED, addressPrefix);
    // A persistent listener on the underlying socket rather than `recv()` in a loop, which registers
    // listeners anew for every packet.
    socket.socket.on('message', (message: Buffer, remote: RemoteInfo) => {
      listener(message, senders.get(remote.address) + remote.port);
    });
    return new UdpEndpoint(socket, family, info.port);
  }

  /**
   * Sends one datagram to `address` (`host:port`) and calls `done` once the socket has taken it, or with a
   * {@link NetworkError} `FDKIT_SEND_FAILED` when it cannot (a malformed address, an address family this
   * socket cannot reach, a datagram too big, a host name that does not resolve, a closed socket).
   */
  send(address: string, bytes: Uint8Array, done: SendDone): void {
    let to: Destination;
    try {
      to = this.destinations.get(address);
      this.socket.socket.send(bytes, to.port, to.host, (error: Error | null, sent: number) => {
        if (error === null) done(undefined, sent);
        else done(sendFailed(address, error), 0);
      });
    } catch (error) {
      done(error instanceof NetworkError ? error : sendFailed(address, error), 0);
    }
  }

  /** Closes the socket. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.socket.close().catch(() => {});
    return this.closing;
  }

  private resolveDestination(address: string): Destination {
    const { host, port } = parseAddress(address, { label: 'datagram destination' });
    if (this.family === 4 && isIPv6(host)) {
      throw new NetworkError(
        'FDKIT_SEND_FAILED',
        address,
        `cannot send to ${address}: this transport is bound to IPv4; bind [::] to reach IPv6 peers`,
      );
    }
    return { host: this.family === 6 && isIPv4(host) ? `::ffff:${host}` : host, port };
  }
}

function sendFailed(address: string, error: unknown): NetworkError {
  const reason = error instanceof Error ? error.message : String(error);
  return new NetworkError('FDKIT_SEND_FAILED', address, `cannot send to ${address}: ${reason}`, {
    cause: error,
  });
}

/**
 * The real transport: UDP for datagrams and TCP for streams, on the same port number, as memberlist's
 * `NetTransport`. Peers then need one address per member, and a firewall one rule per port.
 *
 * With port 0 the UDP socket binds first and picks the ephemeral port, then TCP binds the same number;
 * when another process holds that TCP port, both are released and the pair is tried again with a new
 * ephemeral port, a bounded number of times (`same-port.ts`).
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { LifecycleError, NetworkError } from '../errors.js';
import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
import { checkNumber } from '../options.js';
import { formatAddress, isUnspecifiedHost, parseAddress } from './address.js';
import { chooseAdvertiseHost } from './advertise.js';
import { systemErrorCode } from './bind-error.js';
import { probeConnect } from './connect-probe.js';
import { snapshotCounters, zeroCounters } from './counters.js';
import { emptyStreamMessage, FRAME_BYTES_MAX } from './frame.js';
import { Inbox } from './inbox.js';
import { type ResolvedTransportOptions, resolveTransportOptions, type TransportOptions } from './options.js';
import { bindSamePort } from './same-port.js';
import { LENGTH_PREFIXED, type StreamFraming } from './stream-framing.js';
import { openWatch, type PendingSend, sendFrame, TcpServer } from './tcp.js';
import type { MessageHandler, Transport, TransportCounters } from './transport.js';
import { UdpEndpoint } from './udp.js';

/** Options of {@link createNetTransport}. */
export interface NetTransportOptions extends TransportOptions {
  /**
   * Receive buffer of the UDP socket, in bytes. Default 2 MiB (memberlist's), so that a burst of gossip
   * is not lost while the event loop is busy; the kernel may cap it (`net.core.rmem_max` on Linux).
   */
  readonly udpBufferBytes?: number;
}

/** How many ephemeral ports are tried when TCP finds the port UDP picked already taken. */
export const BIND_ATTEMPTS_MAX = 8;

const OWNER = 'createNetTransport';

/** UDP/TCP implementation of {@link Transport}. */
class NetTransport implements Transport {
  readonly localAddress: string;
  private readonly options: ResolvedTransportOptions;
  private readonly udp: UdpEndpoint;
  private readonly tcp: TcpServer;
  private readonly counts: TransportCounters;
  private readonly inbox: Inbox;
  private readonly pending = new Set<PendingSend>();
  private readonly watches = new Set<Watch>();
  private closing: Promise<void> | undefined;

  constructor(
    options: ResolvedTransportOptions,
    localAddress: string,
    udp: UdpEndpoint,
    tcp: TcpServer,
    counts: TransportCounters,
    inbox: Inbox,
    private readonly framing: StreamFraming,
  ) {
    this.options = options;
    this.localAddress = localAddress;
    this.udp = udp;
    this.tcp = tcp;
    this.counts = counts;
    this.inbox = inbox;
  }

  sendDatagram(address: string, bytes: Uint8Array): void {
    if (this.closing !== undefined) {
      this.sendError(new NetworkError('FDKIT_SEND_FAILED', address, 'the transport is closed'));
      return;
    }
    this.udp.send(address, bytes, this.sent);
  }

  // One callback for every datagram, rather than a closure or a promise per send.
  private readonly sent = (error: NetworkError | undefined, bytes: number): void => {
    if (error !== undefined) {
      this.sendError(error);
      return;
    }
    this.counts.datagramsOut++;
    this.counts.datagramBytesOut += bytes;
  };

  probeConnect(address: string, timeoutMs: number): Promise<ConnectOutcome> {
    return probeConnect(address, timeoutMs, this.options.clock);
  }

  watch(address: string, onEnd: (reason: WatchEnd) => void): Watch {
    let cancelled = false;
    const end = (reason: WatchEnd): void => {
      this.watches.delete(handle);
      if (!cancelled) onEnd(reason);
    };
    let inner: Watch | undefined;
    const handle: Watch = {
      cancel: () => {
        cancelled = true;
        this.watches.delete(handle);
        inner?.cancel();
      },
    };
    let host: string;
    let port: number;
    try {
      if (this.closing !== undefined)
        throw new LifecycleError('FDKIT_STOPPED', 'watch: the transport is closed');
      ({ host, port } = parseAddress(address, { label: 'watch destination' }));
    } catch {
      queueMicrotask(() => end('failed'));
      return handle;
    }
    this.watches.add(handle);
    inner = openWatch(host, port, this.options.clock, this.options.connectTimeoutMs, end, this.framing);
    return handle;
  }

  async sendStream(address: string, bytes: Uint8Array): Promise<void> {
    await this.exchange(address, bytes);
  }

  async exchange(address: string, bytes: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.closing !== undefined) {
      throw new LifecycleError('FDKIT_STOPPED', 'sendStream: the transport is closed');
    }
    let reply: Uint8Array | undefined;
    try {
      const { host, port } = parseAddress(address, { label: 'stream destination' });
      if (bytes.length === 0) throw emptyStreamMessage();
      if (bytes.length > FRAME_BYTES_MAX) {
        throw new NetworkError(
          'FDKIT_STREAM_FAILED',
          address,
          `a stream message is limited to ${FRAME_BYTES_MAX} bytes`,
        );
      }
      const send = sendFrame(host, port, bytes, address, { ...this.options, framing: this.framing });
      this.pending.add(send);
      try {
        reply = await send.done;
      } finally {
        this.pending.delete(send);
      }
    } catch (error) {
      this.counts.streamSendErrors++;
      this.options.logger.debug({ address, err: error }, 'stream not sent');
      throw error;
    }
    this.counts.streamsOut++;
    this.counts.streamBytesOut += bytes.length;
    return reply;
  }

  onDatagram(handler: MessageHandler): void {
    this.inbox.onDatagram(handler);
  }

  onStream(handler: MessageHandler): void {
    this.inbox.onStream(handler);
  }

  counters(): TransportCounters {
    return snapshotCounters(this.counts, this.tcp.openConnections);
  }

  close(): Promise<void> {
    if (this.closing === undefined) {
      const stopped = new LifecycleError('FDKIT_STOPPED', 'sendStream: the transport was closed');
      for (const send of this.pending) send.abort(stopped);
      for (const watch of [...this.watches]) watch.cancel();
      this.closing = Promise.all([this.udp.close(), this.tcp.close()]).then(() => {
        this.options.logger.debug({ localAddress: this.localAddress }, 'transport closed');
      });
    }
    return this.closing;
  }

  private sendError(error: NetworkError): void {
    this.counts.datagramSendErrors++;
    this.options.logger.debug({ address: error.address, err: error }, 'datagram not sent');
    this.options.onSendError?.(error);
  }
}

/** The IP address and version to bind for `host`, resolving a host name to its first address. */
async function bindHost(
  host: string,
  kind: 'ipv4' | 'ipv6' | 'name',
  address: string,
): Promise<[string, 4 | 6]> {
  if (kind === 'ipv4') return [host, 4];
  if (kind === 'ipv6') return [host, 6];
  try {
    const found = await lookup(host);
    return [found.address, found.family === 6 ? 6 : 4];
  } catch (error) {
    throw new NetworkError(
      'FDKIT_RESOLVE_FAILED',
      address,
      `cannot bind ${address}: the host name ${host} does not resolve (${systemErrorCode(error) ?? String(error)}); bind an IP address`,
      { cause: error },
    );
  }
}

/**
 * Binds UDP and TCP on `options.bind` and returns the transport.
 *
 * Every failure is a rejection, never a synchronous throw: a `NetworkError` with code
 * `FDKIT_BAD_ADDRESS` (a malformed `bind` or `advertise`), `FDKIT_ADDRESS_IN_USE` (the port is taken,
 * over UDP or TCP), `FDKIT_BIND_FAILED` (not a local address, privileged port, no IPv6) or
 * `FDKIT_RESOLVE_FAILED` (a bind host name that does not resolve), and an `InvalidOptionError` for any
 * other option out of range.
 *
 * @example
 * ```ts
 * const transport = await createNetTransport({ bind: '127.0.0.1:0' });
 * transport.localAddress; // '127.0.0.1:41234', the ephemeral port bound for both UDP and TCP
 * ```
 */
export function createNetTransport(options: NetTransportOptions): Promise<Transport> {
  return createFramedNetTransport(options, LENGTH_PREFIXED);
}

/**
 * {@link createNetTransport} with the streams delimited by `framing` (memberlist's wire, for the node's
 * `wire: 'memberlist'`).
 */
export async function createFramedNetTransport(
  options: NetTransportOptions,
  framing: StreamFraming,
): Promise<Transport> {
  const resolved = resolveTransportOptions(OWNER, options, ['udpBufferBytes']);
  const udpBufferBytes = checkNumber(OWNER, 'udpBufferBytes', options.udpBufferBytes ?? 2 * 1024 * 1024, {
    min: 64 * 1024,
    max: 256 * 1024 * 1024,
    integer: true,
  });
  const requested = formatAddress(resolved.bind.host, resolved.bind.port);
  const kind = resolved.bind.kind;
  const [host, family] = await bindHost(resolved.bind.host, kind, requested);
  const counts = zeroCounters();
  const inbox = new Inbox(counts, resolved.logger);
  const [udp, tcp] = await bindSamePort(
    {
      bindUdp: () =>
        UdpEndpoint.bind(host, resolved.bind.port, family, udpBufferBytes, (bytes, from) =>
          inbox.datagram(bytes, from),
        ),
      listenTcp: (port) =>
        TcpServer.listen(host, port, {
          clock: resolved.clock,
          streamTimeoutMs: resolved.streamTimeoutMs,
          streamBytesMax: resolved.streamBytesMax,
          maxInboundStreams: resolved.maxInboundStreams,
          framing,
          accepted: () => {
            counts.connectionsIn++;
          },
          deliver: (frame, fromAddress, reply) => inbox.stream(frame, fromAddress, reply),
          drop: (reason, fields) => inbox.drop(reason, fields),
        }),
      retrying: (port, attempt) =>
        resolved.logger.debug({ port, attempt }, 'TCP port taken; trying another ephemeral port'),
    },
    resolved.bind.port === 0 ? BIND_ATTEMPTS_MAX : 1,
    requested,
  );
  const advertise = resolved.advertise;
  const advertisedHost =
    advertise?.host ?? (isUnspecifiedHost(host) ? chooseAdvertiseHost(family, networkInterfaces()) : host);
  const advertisedPort = advertise === undefined || advertise.port === 0 ? udp.port : advertise.port;
  const localAddress = formatAddress(advertisedHost, advertisedPort);
  resolved.logger.debug({ bound: formatAddress(host, udp.port), localAddress }, 'transport bound');
  return new NetTransport(resolved, localAddress, udp, tcp, counts, inbox, framing);
}

/**
 * What only the UDP/TCP transport has: IPv6 and dual-stack sockets, wildcard binds, the same port for UDP
 * and TCP, the sender's own timeouts, a pino logger. Traffic stays on 127.0.0.1 and ::1, on ephemeral
 * ports; every test closes what it opened.
 */
import { createSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, LifecycleError, NetworkError } from '../../src/errors.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { formatAddress, parseAddress } from '../../src/transport/address.js';
import { chooseAdvertiseHost } from '../../src/transport/advertise.js';
import { createNetTransport, type NetTransportOptions } from '../../src/transport/net-transport.js';
import type { TransportOptions } from '../../src/transport/options.js';
import { bindSamePort } from '../../src/transport/same-port.js';
import type { Transport } from '../../src/transport/transport.js';

const opened: Transport[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

async function open(options: NetTransportOptions): Promise<Transport> {
  const transport = await createNetTransport(options);
  opened.push(transport);
  return transport;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Polls `condition` every 2 ms for at most 1.5 s of wall time. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > 1500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A TCP server on 127.0.0.1 that accepts and reads but never answers; closed after the test. */
async function silentServer(): Promise<{ server: Server; address: string }> {
  const sockets: Socket[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const info = server.address();
  return { server, address: formatAddress('127.0.0.1', typeof info === 'object' && info ? info.port : 0) };
}

/** Whether this machine can bind a UDP socket on ::1, asked of node:dgram directly. */
async function ipv6Loopback(): Promise<boolean> {
  const socket = createSocket('udp6');
  return new Promise((resolve) => {
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(0, '::1', () => socket.close(() => resolve(true)));
  });
}

describe('IPv6', () => {
  it('binds [::1] and round-trips datagrams and streams, or rejects with FDKIT_BIND_FAILED where IPv6 is off', async () => {
    const supported = await ipv6Loopback();
    if (!supported) {
      const error = await createNetTransport({ bind: '[::1]:0' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).code).toBe('FDKIT_BIND_FAILED');
      return;
    }
    const a = await open({ bind: '[::1]:0' });
    const b = await open({ bind: '[::1]:0' });
    expect(a.localAddress).toMatch(/^\[::1\]:[1-9]\d*$/);
    const datagrams: string[] = [];
    const streams: string[] = [];
    b.onDatagram((_bytes, from) => datagrams.push(from));
    b.onStream((_bytes, from) => streams.push(from));
    a.sendDatagram(b.localAddress, new Uint8Array([1]));
    await a.sendStream(b.localAddress, new Uint8Array([2]));
    await waitFor(() => datagrams.length === 1, 'the IPv6 datagram');
    expect(datagrams).toEqual([a.localAddress]);
    expect(parseAddress(streams[0] ?? '').host).toBe('::1');
  });

  it('on a dual-stack [::] socket, talks to IPv4 peers under their plain IPv4 addresses', async () => {
    if (!(await ipv6Loopback())) {
      const error = await createNetTransport({ bind: '[::]:0' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'FDKIT_BIND_FAILED' });
      return;
    }
    const dual = await open({ bind: '[::]:0' });
    const v4 = await open({ bind: '127.0.0.1:0' });
    const dualPort = parseAddress(dual.localAddress).port;
    expect(dual.localAddress).not.toMatch(/^\[::\]/);
    expect(parseAddress(dual.localAddress).host).toBe(
      parseAddress(formatAddress(chooseAdvertiseHost(6, networkInterfaces()), 1)).host,
    );
    const atDual: string[] = [];
    const atV4: string[] = [];
    dual.onDatagram((_bytes, from) => atDual.push(from));
    v4.onDatagram((_bytes, from) => atV4.push(from));
    v4.sendDatagram(`127.0.0.1:${dualPort}`, new Uint8Array([1]));
    await waitFor(() => atDual.length === 1, 'the datagram at the dual-stack socket');
    expect(atDual).toEqual([v4.localAddress]);
    dual.sendDatagram(atDual[0] ?? '', new Uint8Array([2]));
    await waitFor(() => atV4.length === 1, 'the reply from the dual-stack socket');
    expect(atV4).toEqual([`127.0.0.1:${dualPort}`]);
  });

  it('reports a malformed destination as a send error each time, and still sends to good ones', async () => {
    const errors: NetworkError[] = [];
    const a = await open({ bind: '127.0.0.1:0', onSendError: (e) => errors.push(e) });
    const b = await open({ bind: '127.0.0.1:0' });
    const got: number[] = [];
    b.onDatagram((bytes) => got.push(bytes[0] ?? -1));
    // The second send of the same bad address fails as the first did: failures are not remembered.
    a.sendDatagram('no-port-here', new Uint8Array([1]));
    a.sendDatagram('no-port-here', new Uint8Array([2]));
    for (let i = 3; i <= 5; i++) a.sendDatagram(b.localAddress, new Uint8Array([i]));
    await waitFor(() => errors.length === 2 && got.length === 3, 'two errors and three datagrams');
    expect(errors.map((e) => e.code)).toEqual(['FDKIT_BAD_ADDRESS', 'FDKIT_BAD_ADDRESS']);
    expect(got.sort()).toEqual([3, 4, 5]);
    expect(a.counters()).toMatchObject({ datagramSendErrors: 2, datagramsOut: 3, datagramBytesOut: 3 });
  });

  it('sends to a destination written as a host name, resolving it', async () => {
    const a = await open({ bind: '127.0.0.1:0' });
    const b = await open({ bind: '127.0.0.1:0' });
    const from: string[] = [];
    b.onDatagram((_bytes, sender) => from.push(sender));
    a.sendDatagram(`localhost:${parseAddress(b.localAddress).port}`, new Uint8Array([7]));
    await waitFor(() => from.length === 1, 'the datagram sent to localhost');
    expect(from).toEqual([a.localAddress]);
  });

  it('counts a datagram from an IPv4 socket to an IPv6 address as a send error', async () => {
    const errors: NetworkError[] = [];
    const a = await open({ bind: '127.0.0.1:0', onSendError: (e) => errors.push(e) });
    a.sendDatagram('[::1]:7946', new Uint8Array([1]));
    await waitFor(() => errors.length === 1, 'the send error');
    expect(errors[0]?.code).toBe('FDKIT_SEND_FAILED');
    expect(errors[0]?.message).toContain('bind [::]');
    expect(a.counters().datagramSendErrors).toBe(1);
  });
});

describe('binding', () => {
  it('advertises an address of this machine, not 0.0.0.0, for a wildcard bind', async () => {
    const t = await open({ bind: '0.0.0.0:0' });
    const { host, port } = parseAddress(t.localAddress);
    expect(host).toBe(chooseAdvertiseHost(4, networkInterfaces()));
    expect(host).not.toBe('0.0.0.0');
    expect(port).toBeGreaterThan(0);
  });

  it('binds a host name to its address', async () => {
    const t = await open({ bind: 'localhost:0' });
    expect(['127.0.0.1', '::1']).toContain(parseAddress(t.localAddress).host);
  });

  it('binds an explicit port for both UDP and TCP', async () => {
    const probe = await open({ bind: '127.0.0.1:0' });
    const address = probe.localAddress;
    await probe.close();
    const t = await open({ bind: address });
    expect(t.localAddress).toBe(address);
    const peer = await open({ bind: '127.0.0.1:0' });
    const received: number[] = [];
    t.onDatagram((bytes) => received.push(bytes[0] ?? -1));
    t.onStream((bytes) => received.push(bytes[0] ?? -1));
    peer.sendDatagram(address, new Uint8Array([1]));
    await peer.sendStream(address, new Uint8Array([2]));
    await waitFor(() => received.length === 2, 'both messages');
    expect(received.sort()).toEqual([1, 2]);
  });

  it('rejects a port taken for TCP only with FDKIT_ADDRESS_IN_USE, and releases the UDP socket', async () => {
    const { address } = await silentServer();
    const error = await createNetTransport({ bind: address }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('FDKIT_ADDRESS_IN_USE');
    expect((error as NetworkError).message).toContain(`${address} (TCP)`);
    expect((error as NetworkError).cause).toMatchObject({ code: 'EADDRINUSE' });
    const { port } = parseAddress(address);
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
  });

  it('rejects an address that is not on this machine with FDKIT_BIND_FAILED saying what to bind', async () => {
    // 192.0.2.0/24 is reserved for documentation: never a local address, and binding sends nothing.
    const error = await createNetTransport({ bind: '192.0.2.1:0' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('FDKIT_BIND_FAILED');
    expect((error as NetworkError).message).toContain('0.0.0.0');
  });

  it('rejects a udpBufferBytes out of range', async () => {
    await expect(createNetTransport({ bind: '127.0.0.1:0', udpBufferBytes: 10 })).rejects.toBeInstanceOf(
      InvalidOptionError,
    );
  });
});

describe('bindSamePort', () => {
  class FakeUdp {
    closed = false;
    constructor(readonly port: number) {}
    async close(): Promise<void> {
      this.closed = true;
    }
  }
  const inUse = (port: number) =>
    new NetworkError('FDKIT_ADDRESS_IN_USE', `127.0.0.1:${port}`, `cannot bind 127.0.0.1:${port} (TCP)`);

  it('retries with a new ephemeral port while TCP finds the port taken', async () => {
    const udps: FakeUdp[] = [];
    const retried: number[] = [];
    const [udp, tcp] = await bindSamePort(
      {
        bindUdp: async () => {
          const fake = new FakeUdp(40000 + udps.length);
          udps.push(fake);
          return fake;
        },
        listenTcp: async (port) => {
          if (port < 40002) throw inUse(port);
          return `tcp:${port}`;
        },
        retrying: (port) => retried.push(port),
      },
      8,
      '127.0.0.1:0',
    );
    expect([udp.port, tcp]).toEqual([40002, 'tcp:40002']);
    expect(udps.map((u) => u.closed)).toEqual([true, true, false]);
    expect(retried).toEqual([40000, 40001]);
  });

  it('gives up after the bound, and never retries other failures or fixed ports', async () => {
    let binds = 0;
    const steps = (error: (port: number) => Error) => ({
      bindUdp: async () => new FakeUdp(40000 + binds++),
      listenTcp: async (port: number): Promise<string> => {
        throw error(port);
      },
    });
    const exhausted = await bindSamePort(steps(inUse), 3, '127.0.0.1:0').catch((e: unknown) => e);
    expect(exhausted).toMatchObject({ code: 'FDKIT_ADDRESS_IN_USE' });
    expect((exhausted as Error).message).toContain('3 ephemeral ports');
    expect(binds).toBe(3);
    binds = 0;
    const fixed = await bindSamePort(steps(inUse), 1, '127.0.0.1:7946').catch((e: unknown) => e);
    expect((fixed as Error).message).toBe('cannot bind 127.0.0.1:40000 (TCP)');
    expect(binds).toBe(1);
    binds = 0;
    const other = new NetworkError('FDKIT_BIND_FAILED', undefined, 'no');
    expect(
      await bindSamePort(
        steps(() => other),
        8,
        '127.0.0.1:0',
      ).catch((e: unknown) => e),
    ).toBe(other);
    expect(binds).toBe(1);
  });
});

describe('sending streams', () => {
  it('rejects with FDKIT_CONNECT_FAILED when the connect timeout passes first (virtual clock)', async () => {
    const clock = new VirtualClock();
    const a = await open({ bind: '127.0.0.1:0', clock, connectTimeoutMs: 50 });
    const b = await open({ bind: '127.0.0.1:0' });
    const sent = a.sendStream(b.localAddress, new Uint8Array([1]));
    // The connection cannot complete before this turn ends, so the timer wins.
    clock.advance(50);
    const error = await sent.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FDKIT_CONNECT_FAILED' });
    expect((error as Error).message).toContain('connectTimeoutMs (50 ms)');
  });

  it('rejects with FDKIT_STREAM_TIMEOUT when the receiver never confirms', async () => {
    const { address } = await silentServer();
    const a = await open({ bind: '127.0.0.1:0', streamTimeoutMs: 100 });
    const error = await a.sendStream(address, new Uint8Array(10)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FDKIT_STREAM_TIMEOUT', address });
    expect(a.counters().streamSendErrors).toBe(1);
  });

  it('rejects a pending send with FDKIT_STOPPED when the transport closes', async () => {
    const { address } = await silentServer();
    const a = await open({ bind: '127.0.0.1:0' });
    const sent = a.sendStream(address, new Uint8Array(10)).catch((e: unknown) => e);
    await a.close();
    const error = await sent;
    expect(error).toBeInstanceOf(LifecycleError);
    expect((error as LifecycleError).code).toBe('FDKIT_STOPPED');
  });
});

describe('logging', () => {
  it('takes a pino logger and logs drops through a transport child', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const options: TransportOptions = { bind: '127.0.0.1:0', logger };
    const a = await open(options);
    const b = await open({ bind: '127.0.0.1:0' });
    b.sendDatagram(a.localAddress, new Uint8Array([1]));
    await waitFor(() => a.counters().drops['no-handler'] === 1, 'the drop');
    expect(lines).toContainEqual(
      expect.objectContaining({ component: 'transport', reason: 'no-handler', msg: 'inbound bytes dropped' }),
    );
  });
});

describe('probeConnect over TCP', () => {
  it('is accepted while the transport listens and refused once it is closed; the listener counts no drop', async () => {
    const a = await open({ bind: '127.0.0.1:0' });
    const b = await open({ bind: '127.0.0.1:0' });
    expect(await a.probeConnect!(b.localAddress, 2000)).toBe('accepted');
    // The listener saw a connection that closed without a byte: not a message, and not a drop.
    await waitFor(() => b.counters().connectionsIn === 1 && b.counters().connectionsOpen === 0, 'closed');
    expect(Object.values(b.counters().drops).reduce((x, y) => x + y, 0)).toBe(0);
    expect(b.counters().streamsIn).toBe(0);
    await b.close();
    expect(await a.probeConnect!(b.localAddress, 2000)).toBe('refused');
    expect(await a.probeConnect!('nonsense', 2000)).toBe('timeout');
  });
});

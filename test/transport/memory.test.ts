/**
 * What only the in-memory network has: partitions, link filters and latency, all on a virtual clock, so
 * every timing below is exact.
 */
import { describe, expect, it } from 'vitest';
import { LifecycleError, NetworkError } from '../../src/errors.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import type { Transport } from '../../src/transport/transport.js';

/** Lets queued microtasks (memory deliveries at zero latency) run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

async function pair(network: MemoryNetwork): Promise<[Transport, Transport]> {
  return [
    await network.createTransport({ bind: '10.0.0.1:7946' }),
    await network.createTransport({ bind: '10.0.0.2:7946' }),
  ];
}

function inbox(transport: Transport): string[] {
  const got: string[] = [];
  transport.onDatagram((bytes, from) => got.push(`d${bytes[0]} from ${from}`));
  transport.onStream((bytes) => got.push(`s${bytes[0]}`));
  return got;
}

describe('MemoryNetwork', () => {
  it('never delivers inside the send call', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const [a, b] = await pair(network);
    const got = inbox(b);
    a.sendDatagram(b.localAddress, new Uint8Array([1]));
    expect(got).toEqual([]);
    await flush();
    expect(got).toEqual(['d1 from 10.0.0.1:7946']);
  });

  it('copies datagram bytes at send, as a socket does', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const [a, b] = await pair(network);
    const got = inbox(b);
    const buffer = new Uint8Array([1]);
    a.sendDatagram(b.localAddress, buffer);
    buffer[0] = 2;
    await flush();
    expect(got).toEqual(['d1 from 10.0.0.1:7946']);
  });

  it('delivers after exactly latencyMs of virtual time', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock, latencyMs: 5 });
    const [a, b] = await pair(network);
    const got = inbox(b);
    a.sendDatagram(b.localAddress, new Uint8Array([1]));
    clock.advance(4);
    await flush();
    expect(got).toEqual([]);
    clock.advance(1);
    expect(got).toEqual(['d1 from 10.0.0.1:7946']);
  });

  it('cuts a partition both ways until healed; streams across it time out on connect', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock });
    const [a, b] = await pair(network);
    const c = await network.createTransport({ bind: '10.0.0.3:7946', connectTimeoutMs: 300 });
    const atA = inbox(a);
    const atB = inbox(b);
    network.partition([a.localAddress], [b.localAddress, c.localAddress]);
    a.sendDatagram(b.localAddress, new Uint8Array([1]));
    b.sendDatagram(a.localAddress, new Uint8Array([2]));
    c.sendDatagram(b.localAddress, new Uint8Array([3]));
    await flush();
    expect(atA).toEqual([]);
    expect(atB).toEqual(['d3 from 10.0.0.3:7946']);
    expect(a.counters().datagramsOut).toBe(1);

    let outcome: unknown;
    c.sendStream(a.localAddress, new Uint8Array([4])).catch((e: unknown) => {
      outcome = e;
    });
    clock.advance(299);
    await flush();
    expect(outcome).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(outcome).toBeInstanceOf(NetworkError);
    expect(outcome).toMatchObject({ code: 'FDKIT_CONNECT_FAILED' });

    network.heal();
    a.sendDatagram(b.localAddress, new Uint8Array([5]));
    await c.sendStream(a.localAddress, new Uint8Array([6]));
    await flush();
    expect(atB).toContain('d5 from 10.0.0.1:7946');
    expect(atA).toEqual(['s6']);
  });

  it('applies a link filter per direction and kind', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const [a, b] = await pair(network);
    const atA = inbox(a);
    const atB = inbox(b);
    network.setLinkFilter((from, _to, kind) => !(from === '10.0.0.1:7946' && kind === 'datagram'));
    a.sendDatagram(b.localAddress, new Uint8Array([1]));
    b.sendDatagram(a.localAddress, new Uint8Array([2]));
    await a.sendStream(b.localAddress, new Uint8Array([3]));
    await flush();
    expect(atA).toEqual(['d2 from 10.0.0.2:7946']);
    expect(atB).toEqual(['s3']);
    network.setLinkFilter(undefined);
    a.sendDatagram(b.localAddress, new Uint8Array([4]));
    await flush();
    expect(atB).toEqual(['s3', 'd4 from 10.0.0.1:7946']);
  });

  it('rejects a send pending across a cut with FDKIT_STOPPED when the sender closes', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const [a, b] = await pair(network);
    network.partition([a.localAddress], [b.localAddress]);
    const sent = a.sendStream(b.localAddress, new Uint8Array([1])).catch((e: unknown) => e);
    await a.close();
    const error = await sent;
    expect(error).toBeInstanceOf(LifecycleError);
    expect(a.counters().streamSendErrors).toBe(1);
  });

  it('hands out distinct ephemeral ports, lists held addresses, and frees them on close', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const first = await network.createTransport({ bind: 'node-a:0' });
    const second = await network.createTransport({ bind: 'node-a:0' });
    expect(first.localAddress).toBe('node-a:49152');
    expect(second.localAddress).toBe('node-a:49153');
    expect(network.addresses()).toEqual(['node-a:49152', 'node-a:49153']);
    await first.close();
    expect(network.addresses()).toEqual(['node-a:49153']);
    await expect(network.connectRaw('node-a:49152')).rejects.toMatchObject({ code: 'FDKIT_CONNECT_FAILED' });
  });

  it('shows a stream source as the sender host with an ephemeral port, like TCP', async () => {
    const network = new MemoryNetwork({ clock: new VirtualClock() });
    const [a, b] = await pair(network);
    const sources: string[] = [];
    b.onStream((_bytes, from) => sources.push(from));
    await a.sendStream(b.localAddress, new Uint8Array([1]));
    await a.sendStream(b.localAddress, new Uint8Array([1]));
    expect(sources).toHaveLength(2);
    expect(sources.every((s) => s.startsWith('10.0.0.1:') && s !== a.localAddress)).toBe(true);
    expect(sources[0]).not.toBe(sources[1]);
  });
});

describe('MemoryNetwork probeConnect', () => {
  it('is accepted where a transport listens, refused where none does, silent across a cut', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock });
    const [a, b] = await pair(network);
    expect(await a.probeConnect!(b.localAddress, 500)).toBe('accepted');
    expect(await a.probeConnect!('10.0.0.9:7946', 500)).toBe('refused');
    expect(await a.probeConnect!('not an address', 500)).toBe('timeout');
    network.partition([a.localAddress], [b.localAddress]);
    let outcome: string | undefined;
    void a.probeConnect!(b.localAddress, 500).then((o) => {
      outcome = o;
    });
    clock.advance(499);
    await flush();
    expect(outcome).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(outcome).toBe('timeout');
    network.heal();
    await b.close();
    expect(await a.probeConnect!(b.localAddress, 500)).toBe('refused');
  });
});

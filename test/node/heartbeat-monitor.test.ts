/**
 * The heartbeat monitor in the node runtime, on an in-memory network and a virtual clock: three monitors
 * watching each other, a crash and a restart, the event stream with an AbortSignal, garbage datagrams
 * counted and ignored, peers added and removed at run time, the lifecycle's typed errors, GC local
 * health, and the pino logger. Deterministic: virtual time, seeded randomness, no sleeps.
 */
import { Packr } from 'msgpackr';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, LifecycleError, NetworkError } from '../../src/errors.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import type { HeartbeatMonitorOptions } from '../../src/node/heartbeat-monitor-options.js';
import type { StressSource } from '../../src/node/local-health.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { encodeHeartbeat, encodePacket } from '../../src/wire/index.js';
import { rejection, run, thrown } from '../support/node-harness.js';

const address = (i: number): string => `10.0.0.${i}:7947`;
const ALL = [1, 2, 3].map((i) => ({ name: `m${i}`, address: address(i) }));

class World {
  readonly clock = new VirtualClock();
  readonly network = new MemoryNetwork({ clock: this.clock });
  readonly events = new Map<string, MemberEvent[]>();
  private readonly created: HeartbeatMonitor[] = [];

  constructor(readonly seed: number) {}

  /** Monitor `m<i>` at 10.0.0.i:7947, given the whole list of peers (it skips itself). */
  create(i: number, overrides: Partial<HeartbeatMonitorOptions> = {}): HeartbeatMonitor {
    const monitor = createHeartbeatMonitor({
      name: `m${i}`,
      bind: address(i),
      peers: ALL,
      transport: (o) => this.network.createTransport(o),
      clock: this.clock,
      random: new Random(this.seed * 100 + i + this.created.length * 10),
      localHealth: false,
      ...overrides,
    });
    const log: MemberEvent[] = [];
    this.events.set(`m${i}`, log);
    for (const type of ['alive', 'suspect', 'dead'] as const) {
      monitor.on(type, (event) => {
        expect(event.type).toBe(type); // emitted under its own name
        log.push(event);
      });
    }
    this.created.push(monitor);
    return monitor;
  }

  async start(i: number, overrides: Partial<HeartbeatMonitorOptions> = {}): Promise<HeartbeatMonitor> {
    const monitor = this.create(i, overrides);
    await monitor.start();
    return monitor;
  }

  story(observer: string, member: string): string[] {
    return (this.events.get(observer) ?? [])
      .filter((e) => e.member === member)
      .map((e) => `${e.type}:${e.cause}`);
  }

  run(ms: number): Promise<void> {
    return run(this.clock, ms);
  }

  async close(): Promise<void> {
    await Promise.all(this.created.map((m) => m.shutdown()));
  }
}

describe('three monitors on one network', () => {
  it('see each other alive, see a crashed one suspected then dead, and its restart as rejoined', async () => {
    const world = new World(1);
    const [m1, m2, m3] = [
      await world.start(1),
      await world.start(2),
      await world.start(3, { incarnation: 1000 }),
    ];
    await world.run(5000);
    for (const [observer, others] of [
      ['m1', ['m2', 'm3']],
      ['m2', ['m1', 'm3']],
      ['m3', ['m1', 'm2']],
    ] as const) {
      for (const other of others) expect(world.story(observer, other)).toEqual(['alive:joined']);
    }
    expect(m1!.peers().map((p) => [p.name, p.address, p.state, p.incarnation])).toEqual([
      ['m2', address(2), 'alive', expect.any(Number)],
      ['m3', address(3), 'alive', 1000],
    ]);
    expect(m1!.peers()[0]!.phi).toBeLessThan(1);

    await m3!.shutdown();
    await world.run(10_000);
    for (const observer of ['m1', 'm2']) {
      expect(world.story(observer, 'm3')).toEqual([
        'alive:joined',
        'suspect:phi-threshold',
        'dead:suspicion-timeout',
      ]);
    }
    expect(world.story('m1', 'm2')).toEqual(['alive:joined']);

    // The same member comes back: a new life, reported as a rejoin with its new incarnation.
    await world.start(3, { incarnation: 1001 });
    await world.run(3000);
    expect(world.story('m1', 'm3').at(-1)).toBe('alive:rejoined');
    expect(world.events.get('m1')!.at(-1)).toMatchObject({ previous: 'dead', incarnation: 1001 });
    const counters = m1!.counters();
    expect(counters).toMatchObject({ suspicions: 1, deaths: 1, restarts: 1, freezes: 0 });
    expect(counters.heartbeatsIn).toBeGreaterThan(20);
    expect(counters.heartbeatsOut).toBe(counters.packetsOut);
    expect(counters.packetsIn).toBe(counters.heartbeatsIn);
    expect(m2!.localHealth).toBe(0);
    await world.close();
  });

  it('peers added at run time by address take their names; removed ones produce no more events', async () => {
    const world = new World(2);
    const m1 = await world.start(1, { peers: [] });
    await world.start(2, { peers: [{ name: 'm1', address: address(1) }] });
    m1.addPeer('10.0.0.2:7947');
    expect(m1.peers()[0]).toMatchObject({ name: address(2), state: 'unknown' });
    await world.run(2000);
    expect(m1.peers()[0]).toMatchObject({ name: 'm2', state: 'alive' });
    expect(world.story('m1', 'm2')).toEqual(['alive:joined']);
    expect(m1.removePeer('10.0.0.2:7947')).toBe(true);
    expect(m1.removePeer('m2')).toBe(false);
    m1.addPeer({ name: 'ghost', address: '10.0.0.9:7947' });
    expect(m1.removePeer('ghost')).toBe(true);
    await world.run(20_000);
    expect(world.story('m1', 'm2')).toEqual(['alive:joined']);
    expect(world.story('m1', 'ghost')).toEqual([]);
    expect(m1.peers()).toEqual([]);

    expect(thrown(() => m1.addPeer('10.0.0.2'))).toMatchObject({ code: 'FDKIT_BAD_ADDRESS' });
    expect(thrown(() => m1.addPeer({ name: 'x', address: '10.0.0.2:0' }))).toBeInstanceOf(NetworkError);
    expect(thrown(() => m1.addPeer(address(1)))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => m1.addPeer({ name: '', address: address(4) }))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => m1.addPeer(42 as never))).toBeInstanceOf(InvalidArgumentError);
    await world.close();
  });
});

describe('events as an async iterator', () => {
  it('yields every transition in order until the signal aborts; ends at shutdown', async () => {
    const world = new World(3);
    const m1 = await world.start(1);
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of m1.events({ signal: controller.signal }))
        seen.push(`${event.member}:${event.type}`);
    })();
    const m2 = await world.start(2);
    await world.run(2000);
    await m2.shutdown();
    await world.run(10_000);
    controller.abort();
    await reading;
    // m3 was never started: a listed peer that never speaks is reported too.
    expect(seen).toEqual(['m2:alive', 'm3:suspect', 'm2:suspect', 'm3:dead', 'm2:dead']);

    const late = m1.events();
    const pending = late.next();
    await m1.shutdown();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await m1.events().next()).toEqual({ done: true, value: undefined });
    const aborted = m1.events({ signal: AbortSignal.abort() });
    expect(await aborted.next()).toMatchObject({ done: true });
    expect(thrown(() => m1.events({ bufferSize: 0 }))).toBeInstanceOf(InvalidArgumentError);
    await world.close();
  });
});

describe('garbage on the heartbeat port', () => {
  it('is counted by reason and ignored: no event, no exception, monitoring goes on', async () => {
    const world = new World(4);
    const m1 = await world.start(1, { peers: [ALL[1]!] });
    await world.start(2, { peers: [ALL[0]!] });
    const raw = await world.network.createTransport({ bind: '10.0.0.99:7947' });
    const packr = new Packr({ useRecords: false });
    const pack = (value: unknown): Uint8Array => packr.pack(value);
    const send = (bytes: Uint8Array): void => raw.sendDatagram(address(1), bytes);
    const random = new Random(4);
    for (let i = 0; i < 50; i++) {
      const bytes = new Uint8Array(1 + random.int(60));
      for (let j = 0; j < bytes.length; j++) bytes[j] = random.int(256);
      send(bytes);
    }
    send(encodePacket({ type: 'ack', seq: 1, from: 'm2', updates: [] })); // SWIM on the wrong port
    send(pack([1, 9, 'm2', address(2), 1, 2, -5])); // a negative sequence number
    send(pack([1, 9, 'm2', address(2), 1, 2])); // one element short
    send(pack([2, 9, 'm2', address(2), 1, 2, 3])); // a version from the future
    send(encodeHeartbeat({ from: 'stranger', address: '10.0.0.99:7947', incarnation: 1, nonce: 1, seq: 0 }));
    await world.run(3000);
    const drops = m1.counters().drops;
    expect(drops['unknown-type']).toBeGreaterThanOrEqual(1);
    expect(drops['invalid-field']).toBeGreaterThanOrEqual(1);
    expect(drops['unknown-version']).toBeGreaterThanOrEqual(1);
    expect(drops['unknown-sender']).toBe(1);
    const total = Object.values(drops).reduce((a, b) => a + b, 0);
    expect(total).toBe(55); // every garbage datagram, dropped once
    expect(m1.counters().packetsIn).toBe(55 + m1.counters().heartbeatsIn);
    expect(world.story('m1', 'm2')).toEqual(['alive:joined']);
    // A heartbeat of an earlier life of m2, arriving late, is stale: no restart, no event.
    const incarnation = m1.peers()[0]!.incarnation;
    send(
      encodeHeartbeat({ from: 'm2', address: address(2), incarnation: incarnation - 1, nonce: 0, seq: 9 }),
    );
    await world.run(10);
    expect(m1.counters()).toMatchObject({ restarts: 0, drops: expect.objectContaining({ stale: 1 }) });
    expect(world.story('m1', 'm2')).toEqual(['alive:joined']);
    await raw.close();
    await world.close();
  });
});

describe('lifecycle', () => {
  it('typed errors in the wrong phase; start rejects on a bound address; shutdown is idempotent', async () => {
    const world = new World(5);
    const m1 = world.create(1);
    expect(thrown(() => m1.addPeer(address(2)))).toMatchObject({ code: 'FDKIT_NOT_STARTED' });
    expect(thrown(() => m1.localAddress)).toBeInstanceOf(LifecycleError);
    expect(m1.peers()).toEqual([]);
    expect(m1.counters().heartbeatsOut).toBe(0);
    await m1.start();
    expect([m1.localAddress, m1.localName]).toEqual([address(1), 'm1']);
    expect(await rejection(m1.start())).toMatchObject({ code: 'FDKIT_ALREADY_STARTED' });
    const clash = world.create(1);
    expect(await rejection(clash.start())).toMatchObject({ code: 'FDKIT_ADDRESS_IN_USE' });
    expect(await rejection(clash.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
    const first = m1.shutdown();
    expect(m1.shutdown()).toBe(first);
    await first;
    expect(thrown(() => m1.addPeer(address(2)))).toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(thrown(() => m1.removePeer('m2'))).toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(await rejection(m1.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
    await world.close();
  });

  it('lifecycle errors name the HeartbeatMonitor and the call', async () => {
    const world = new World(7);
    const m1 = world.create(1);
    expect(thrown(() => m1.localName)).toMatchObject({
      message: 'HeartbeatMonitor: localName before start() has resolved',
    });
    await m1.start();
    expect(await rejection(m1.start())).toMatchObject({
      message: 'HeartbeatMonitor: start() may be called once',
    });
    await m1.shutdown();
    expect(thrown(() => m1.removePeer('m2'))).toMatchObject({
      message: 'HeartbeatMonitor: removePeer() after shutdown()',
    });
    expect(await rejection(m1.start())).toMatchObject({
      message: 'HeartbeatMonitor: start() after shutdown()',
    });
    await world.close();
  });

  it('the default name is the host name and the bound port', async () => {
    const world = new World(6);
    const m = createHeartbeatMonitor({
      bind: '10.0.0.7:0',
      transport: (o) => world.network.createTransport(o),
      clock: world.clock,
      localHealth: false,
    });
    await m.start();
    const port = m.localAddress.split(':')[1];
    expect(m.localName.endsWith(`-${port}`)).toBe(true);
    await m.shutdown();
  });
});

describe('local health and logs', () => {
  it('GC pauses raise the health score; on-time beats bring it down again', async () => {
    const world = new World(7);
    let pauseMs = 0;
    const source: StressSource = { sample: () => pauseMs, close: () => {} };
    const m1 = await world.start(1, { peers: [ALL[1]!], localHealth: { source } });
    await world.start(2, { peers: [ALL[0]!] });
    await world.run(3000);
    expect(m1.localHealth).toBe(0);
    pauseMs = 2000; // four thresholds of 500 ms
    await world.run(1000);
    expect(m1.localHealth).toBeGreaterThanOrEqual(3);
    pauseMs = 0;
    await world.run(10_000);
    expect(m1.localHealth).toBe(0);
    await world.close();
  });

  it('logs through the pino logger it is given (silent without one)', async () => {
    const world = new World(8);
    const lines: { msg: string; component: string; member?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    await world.start(1, { peers: [ALL[1]!], logger });
    await world.run(10_000);
    expect(lines.map((l) => l.msg)).toEqual(['started', 'suspect', 'dead']);
    expect(lines.every((l) => l.component === 'heartbeat')).toBe(true);
    expect(lines[1]!.member).toBe('m2');
    await world.close();
    expect(lines.at(-1)!.msg).toBe('stopped');
  });
});

/**
 * `createHeartbeatMonitor({ keyring, label })` (docs/design.md, "Wire"): monitors sharing keys and a label
 * hear each other over sealed heartbeats, each datagram sealed with its own nonce; a monitor with another
 * key or another label is dropped as `decrypt-failed` (none: `not-encrypted`) and never seen alive; keys rotate with no
 * suspicion; without a keyring the wire is unchanged; the options fail as createNode's do. On the
 * in-memory network in virtual time, and once over real UDP.
 */
import { createSocket } from 'node:dgram';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import type { HeartbeatDropReason } from '../../src/node/heartbeat-monitor-counters.js';
import type { HeartbeatMonitorOptions } from '../../src/node/heartbeat-monitor-options.js';
import { createNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { decodeHeartbeat } from '../../src/wire/decode.js';
import { encodeHeartbeat } from '../../src/wire/encode.js';
import { KEY_BYTES, Keyring } from '../../src/wire/keyring.js';
import { SEAL_OVERHEAD_BYTES, Sealer } from '../../src/wire/seal.js';
import { poll, run, thrown } from '../support/node-harness.js';

const address = (i: number): string => `10.0.0.${i}:7947`;
const ALL = [1, 2, 3, 4].map((i) => ({ name: `m${i}`, address: address(i) }));
const key = (fill: number): Uint8Array => new Uint8Array(KEY_BYTES).fill(fill);
/** Each monitor its own keyring object with the same keys: nothing shared but the bytes. */
const ring = (...fills: number[]): Keyring => new Keyring(fills.map(key));
const sealed = (label = 'prod', ...fills: number[]): Partial<HeartbeatMonitorOptions> => ({
  keyring: ring(...(fills.length === 0 ? [1] : fills)),
  label,
});

interface Sent {
  readonly from: string;
  readonly to: string;
  readonly bytes: Uint8Array;
}

class World {
  readonly clock = new VirtualClock();
  readonly network = new MemoryNetwork({ clock: this.clock });
  /** Every datagram any monitor sent, in order. */
  readonly sent: Sent[] = [];
  readonly created: HeartbeatMonitor[] = [];
  /** Every `alive` event, as `observer>member`. */
  readonly alive: string[] = [];

  constructor(readonly seed: number) {}

  async start(i: number, overrides: Partial<HeartbeatMonitorOptions> = {}): Promise<HeartbeatMonitor> {
    const monitor = createHeartbeatMonitor({
      name: `m${i}`,
      bind: address(i),
      peers: ALL,
      transport: async (o) => {
        const transport = await this.network.createTransport(o);
        const send = transport.sendDatagram.bind(transport);
        transport.sendDatagram = (to, bytes) => {
          this.sent.push({ from: `m${i}`, to, bytes });
          send(to, bytes);
        };
        return transport;
      },
      clock: this.clock,
      random: new Random(this.seed * 100 + i),
      localHealth: false,
      ...overrides,
    });
    monitor.on('alive', (e) => this.alive.push(`m${i}>${e.member}`));
    this.created.push(monitor);
    await monitor.start();
    return monitor;
  }

  run(ms: number): Promise<void> {
    return run(this.clock, ms);
  }

  async close(): Promise<void> {
    await Promise.all(this.created.map((m) => m.shutdown()));
  }
}

/** A world whose monitors shut down when the test ends, passed or failed. */
function newWorld(seed: number): World {
  const world = new World(seed);
  onTestFinished(() => world.close());
  return world;
}

const stateOf = (monitor: HeartbeatMonitor, name: string): string | undefined =>
  monitor.peers().find((p) => p.name === name || p.address === address(Number(name.slice(1))))?.state;

function nonzeroDrops(monitor: HeartbeatMonitor): Record<string, number> {
  return Object.fromEntries(Object.entries(monitor.counters().drops).filter(([, count]) => count > 0));
}

const peersOf = (...members: number[]) => ({ peers: members.map((i) => ALL[i - 1]!) });

describe('encrypted heartbeats on the memory network', () => {
  it('monitors sharing keys and label see each other alive; every datagram is sealed with a nonce of its own', async () => {
    const world = newWorld(1);
    const monitors: HeartbeatMonitor[] = [];
    for (const i of [1, 2, 3]) monitors.push(await world.start(i, { ...sealed(), ...peersOf(1, 2, 3) }));
    await world.run(10_000);
    for (const monitor of monitors) {
      expect(monitor.peers().map((p) => p.state)).toEqual(['alive', 'alive']);
      expect(nonzeroDrops(monitor)).toEqual({});
      expect(monitor.counters().heartbeatsIn).toBeGreaterThan(15);
      expect(monitor.keyring?.keys()).toEqual([key(1)]);
    }
    const opener = new Sealer(ring(1), 'prod', () => {});
    const plains = world.sent.map((d) => opener.open(d.bytes));
    expect(plains.filter((p) => p === undefined)).toEqual([]);
    for (const [i, plain] of plains.entries()) {
      const result = decodeHeartbeat(plain!);
      expect(result.ok && result.heartbeat.from).toBe(world.sent[i]!.from);
      expect(world.sent[i]!.bytes.length).toBe(plain!.length + SEAL_OVERHEAD_BYTES);
    }
    // One beat goes to both peers as the same heartbeat, yet no two datagrams share a nonce.
    const nonces = new Set(world.sent.map((d) => Buffer.from(d.bytes.subarray(1, 13)).toString('hex')));
    expect(nonces.size).toBe(world.sent.length);
    const firstBeat = world.sent.filter((d) => d.from === 'm1').slice(0, 2);
    expect(firstBeat.map((d) => d.to).sort()).toEqual([address(2), address(3)]);
    expect(opener.open(firstBeat[0]!.bytes)).toEqual(opener.open(firstBeat[1]!.bytes));
  });

  it.each([
    {
      what: 'another key',
      outsider: sealed('prod', 2),
      drops: 'decrypt-failed',
      outsiderDrops: 'decrypt-failed',
    },
    {
      what: 'another label',
      outsider: sealed('staging'),
      drops: 'decrypt-failed',
      outsiderDrops: 'decrypt-failed',
    },
    {
      what: 'no label',
      outsider: { keyring: ring(1) },
      drops: 'decrypt-failed',
      outsiderDrops: 'decrypt-failed',
    },
    {
      what: 'no keyring at all',
      outsider: {},
      drops: 'not-encrypted',
      outsiderDrops: 'unexpected-encryption',
    },
  ])(
    'drops a monitor with $what as $drops: it is never alive',
    async ({ outsider, drops, outsiderDrops }) => {
      const world = newWorld(2);
      const m1 = await world.start(1, { ...sealed(), ...peersOf(1, 2, 3) });
      const m2 = await world.start(2, { ...sealed(), ...peersOf(1, 2, 3) });
      const m3 = await world.start(3, { ...outsider, ...peersOf(1, 2, 3) });
      await world.run(15_000);
      // Never heard, m3 is only the silent peer it was listed as: suspected, then dead, never alive.
      expect(world.alive.sort()).toEqual(['m1>m2', 'm2>m1']);
      for (const monitor of [m1, m2]) {
        expect(stateOf(monitor, 'm3')).toBe('dead');
        expect(stateOf(monitor, monitor === m1 ? 'm2' : 'm1')).toBe('alive');
        // Every heartbeat m3 sent was dropped, and for that reason only.
        const fromM3 = world.sent.filter((d) => d.from === 'm3' && d.to === monitor.localAddress).length;
        expect(fromM3).toBeGreaterThan(10);
        expect(nonzeroDrops(monitor)).toEqual({ [drops]: fromM3 });
        expect(monitor.counters().suspicions).toBe(1);
      }
      // Nor does the outsider hear the cluster.
      expect(m3.peers().map((p) => p.state)).toEqual(['dead', 'dead']);
      expect(m3.counters().drops[outsiderDrops as HeartbeatDropReason]).toBeGreaterThan(10);
      expect(m3.counters().heartbeatsIn).toBe(0);
    },
  );

  it('a rolling rotation (install everywhere, then use everywhere, then remove the old) raises no suspicion', async () => {
    const world = newWorld(3);
    const monitors: HeartbeatMonitor[] = [];
    for (const i of [1, 2, 3])
      monitors.push(await world.start(i, { ...sealed('prod', 1), ...peersOf(1, 2, 3) }));
    await world.run(5_000);
    const step = async (change: (keyring: Keyring) => void): Promise<void> => {
      for (const monitor of monitors) {
        change(monitor.keyring!);
        await world.run(1_500); // more than one interval between members: heartbeats flow mid-rotation
      }
    };
    await step((k) => k.install(key(2)));
    await step((k) => k.use(key(2)));
    await step((k) => k.remove(key(1)));
    const rotatedFrom = world.sent.length;
    await world.run(10_000);
    for (const monitor of monitors) {
      expect(monitor.keyring!.keys()).toEqual([key(2)]);
      expect(monitor.peers().map((p) => p.state)).toEqual(['alive', 'alive']);
      expect(monitor.counters().suspicions).toBe(0);
      expect(nonzeroDrops(monitor)).toEqual({});
    }
    // What is sent now opens under the new key only.
    const after = world.sent.slice(rotatedFrom);
    expect(after.every((d) => new Sealer(ring(2), 'prod', () => {}).open(d.bytes) !== undefined)).toBe(true);
    expect(after.some((d) => new Sealer(ring(1), 'prod', () => {}).open(d.bytes) !== undefined)).toBe(false);
    // A monitor still on the old key is kept out.
    const late = await world.start(4, { ...sealed('prod', 1), ...peersOf(1, 2, 3, 4) });
    monitors[0]!.addPeer(ALL[3]!);
    await world.run(5_000);
    expect(world.alive.filter((a) => a.includes('m4'))).toEqual([]);
    expect(monitors[0]!.counters().drops['decrypt-failed']).toBeGreaterThan(0);
    expect(late.counters().heartbeatsIn).toBe(0);
  });

  it('using the new key before every monitor installed it silences that monitor: the order matters', async () => {
    const world = newWorld(4);
    const m1 = await world.start(1, { ...sealed('prod', 1), ...peersOf(1, 2) });
    const m2 = await world.start(2, { ...sealed('prod', 1), ...peersOf(1, 2) });
    await world.run(5_000);
    m1.keyring!.install(key(2));
    m1.keyring!.use(key(2));
    await world.run(10_000);
    expect(m2.counters().drops['decrypt-failed']).toBeGreaterThan(0);
    expect(m2.counters().suspicions).toBe(1);
    expect(stateOf(m2, 'm1')).toBe('dead');
    // m1 still opens m2's heartbeats under the old key it kept installed.
    expect(stateOf(m1, 'm2')).toBe('alive');
  });

  it('without a keyring the wire is unchanged: plain heartbeats, no keyring', async () => {
    const world = newWorld(5);
    const m1 = await world.start(1, peersOf(1, 2));
    await world.start(2, peersOf(1, 2));
    await world.run(3_000);
    expect(m1.keyring).toBeUndefined();
    expect(world.sent.length).toBeGreaterThan(4);
    for (const d of world.sent) {
      const result = decodeHeartbeat(d.bytes);
      expect(result.ok).toBe(true);
      if (result.ok) expect(Buffer.from(encodeHeartbeat(result.heartbeat))).toEqual(Buffer.from(d.bytes));
    }
    expect(stateOf(m1, 'm2')).toBe('alive');
  });
});

/** The option each mistake is blamed on, and the options that make it. */
const MISTAKES: [option: string, options: Record<string, unknown>][] = [
  ['label', { label: 'prod' }], // without a keyring
  ['keyring', { keyring: [key(1)] }], // not a Keyring
  ['label', { keyring: ring(1), label: 'é'.repeat(128) }], // 256 bytes
  ['label', { keyring: ring(1), label: 7 }], // not a string
];

describe('options', () => {
  it.each(MISTAKES)('refuses a bad %s as createNode does (%o)', (option, options) => {
    const error = thrown(() => createHeartbeatMonitor(options as HeartbeatMonitorOptions));
    const nodeError = thrown(() => createNode(options as NodeOptions));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option });
    expect(nodeError).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option });
    // The same words, each naming its own owner.
    expect((error as Error).message).toBe(
      (nodeError as Error).message.replace(/^createNode:/, 'createHeartbeatMonitor:'),
    );
  });

  it('accepts a keyring, with or without a label, and exposes it', () => {
    const keyring = ring(1);
    expect(createHeartbeatMonitor({ keyring }).keyring).toBe(keyring);
    expect(createHeartbeatMonitor({ keyring, label: 'é'.repeat(127) }).keyring).toBe(keyring);
    expect(createHeartbeatMonitor({}).keyring).toBeUndefined();
  });
});

describe('over real UDP on 127.0.0.1', () => {
  it('two encrypted monitors see each other alive, and a plaintext heartbeat sent at them is dropped and counted', async () => {
    const monitors: HeartbeatMonitor[] = [];
    for (const name of ['u1', 'u2']) {
      const monitor = createHeartbeatMonitor({
        name,
        bind: '127.0.0.1:0',
        intervalMs: 50,
        acceptableHeartbeatPauseMs: 600,
        keyring: ring(5, 6),
        label: 'udp',
      });
      monitors.push(monitor);
      onTestFinished(() => monitor.shutdown());
      await monitor.start();
    }
    const [u1, u2] = monitors as [HeartbeatMonitor, HeartbeatMonitor];
    u1.addPeer({ name: 'u2', address: u2.localAddress });
    u2.addPeer({ name: 'u1', address: u1.localAddress });
    await poll(() => monitors.every((m) => m.peers()[0]?.state === 'alive'), 'both monitors alive', 10_000);
    expect(u1.counters().drops['decrypt-failed']).toBe(0);

    const plain = encodeHeartbeat({ from: 'u2', address: u2.localAddress, incarnation: 1, nonce: 1, seq: 0 });
    // From a socket of its own: the datagram comes from no peer's address, and only the seal is judged.
    const socket = createSocket('udp4');
    onTestFinished(() => {
      socket.close();
    });
    socket.send(plain, Number(u1.localAddress.split(':')[1]), '127.0.0.1');
    await poll(
      () => u1.counters().drops['not-encrypted'] > 0,
      'the plaintext heartbeat to be dropped',
      10_000,
    );
    expect(u1.counters().drops['not-encrypted']).toBe(1);
    expect(u1.counters().drops['decrypt-failed']).toBe(0);
    expect(u1.counters().restarts).toBe(0);
  });
});

/**
 * `createNode({ keyring, label })` (docs/design.md, "Wire"): members sharing keys and a label form a cluster
 * over sealed datagrams and streams; a member with another key, another label or none cannot join, and
 * what it sends is dropped as `decrypt-failed`; keys rotate with no suspicion; sealed datagrams stay
 * within `packetBytesMax`. On the in-memory network in virtual time, and once over real UDP.
 */
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import { encodePacket } from '../../src/wire/encode.js';
import { KEY_BYTES, Keyring } from '../../src/wire/keyring.js';
import { SEAL_OVERHEAD_BYTES, Sealer } from '../../src/wire/seal.js';
import {
  holds,
  type Member,
  MemoryCluster,
  poll,
  settleWhileRunning,
  thrown,
  view,
} from '../support/node-harness.js';

const clusters: MemoryCluster[] = [];
const udpNodes: SwimNode[] = [];

afterEach(async () => {
  for (const cluster of clusters.splice(0)) await cluster.close();
  await Promise.all(udpNodes.splice(0).map((node) => node.shutdown()));
});

function newCluster(seed: number): MemoryCluster {
  const cluster = new MemoryCluster(seed);
  clusters.push(cluster);
  return cluster;
}

const key = (fill: number): Uint8Array => new Uint8Array(KEY_BYTES).fill(fill);
/** Each member its own keyring object with the same keys: nothing shared but the bytes. */
const ring = (...fills: number[]): Keyring => new Keyring(fills.map(key));
const sealed = (label = 'prod', ...fills: number[]): Partial<NodeOptions> => ({
  keyring: ring(...(fills.length === 0 ? [1] : fills)),
  label,
});

/** Starts members 1..n with `options(i)`, joins 2..n through n1 and waits until all hold all alive. */
async function formWith(c: MemoryCluster, n: number, options: (i: number) => Partial<NodeOptions>) {
  const members: Member[] = [];
  for (let i = 1; i <= n; i++) members.push(await c.start(i, options(i)));
  for (const m of members.slice(1)) await m.node.join([members[0]!.address]);
  const names = members.map((m) => m.name);
  await c.runUntil(() => members.every((m) => holds(m.node, names, 'alive')), 30_000, 'all alive');
  return members;
}

function otherDrops(node: SwimNode): Record<string, number> {
  return Object.fromEntries(Object.entries(node.counters().drops).filter(([, count]) => count > 0));
}

describe('an encrypted cluster on the memory network', () => {
  it('forms with shared keys and label, with nothing dropped', async () => {
    const c = newCluster(1);
    const members = await formWith(c, 4, () => sealed());
    await c.run(10_000);
    for (const m of members) {
      expect(otherDrops(m.node), m.name).toEqual({});
      expect(m.node.keyring?.keys()).toEqual([key(1)]);
      expect(m.log.about('n1', 'suspect')).toEqual([]);
    }
  });

  it.each([
    {
      what: 'another key',
      outsider: sealed('prod', 2),
      code: 'FDKIT_JOIN_KEY_MISMATCH',
      reason: 'no installed key could open the message',
      drop: 'decrypt-failed',
    },
    {
      what: 'another label',
      outsider: sealed('staging'),
      code: 'FDKIT_JOIN_LABEL_MISMATCH',
      reason: 'cluster label differs (seed: "prod", this member: "staging")',
      drop: 'decrypt-failed',
    },
    {
      what: 'no label',
      outsider: { keyring: ring(1) },
      code: 'FDKIT_JOIN_LABEL_MISMATCH',
      reason: 'cluster label differs (seed: "prod", this member: "")',
      drop: 'decrypt-failed',
    },
    {
      what: 'no keyring at all',
      outsider: {},
      code: 'FDKIT_JOIN_NOT_ENCRYPTED',
      reason: 'the seed requires encryption, and the message was not encrypted (this member has no keyring)',
      drop: 'not-encrypted',
    },
  ])(
    'keeps out a member with $what: its join fails at once with $code, the seed counts $drop',
    async ({ outsider, code, reason, drop }) => {
      const c = newCluster(2);
      const members = await formWith(c, 3, () => sealed());
      const intruder = await c.start(4, outsider);
      const startedAt = c.clock.now();
      const joined = await settleWhileRunning(c.clock, intruder.node.join([members[0]!.address]), 15_000);
      // The refusal comes back on the join's own connection: no timeout is waited for.
      expect(c.clock.now() - startedAt).toBeLessThan(100);
      expect(joined).toMatchObject({
        ok: false,
        error: { name: 'JoinError', code, seed: members[0]!.address, reason },
      });
      await c.run(15_000);
      expect(Object.keys(view(intruder.node))).toEqual(['n4']);
      for (const m of members) expect(Object.keys(view(m.node)).sort()).toEqual(['n1', 'n2', 'n3']);
      // The seed got at least the join's state sync; no other reason counted anything.
      expect(members[0]!.node.counters().drops[drop as 'decrypt-failed']).toBeGreaterThan(0);
      for (const m of members) expect(Object.keys(otherDrops(m.node))).not.toContain('malformed');
    },
  );

  it('an encrypted member cannot join a plaintext cluster either: FDKIT_JOIN_UNEXPECTED_ENCRYPTION', async () => {
    const c = newCluster(3);
    const members = await formWith(c, 3, () => ({}));
    const loner = await c.start(4, sealed());
    const joined = await settleWhileRunning(c.clock, loner.node.join([members[0]!.address]), 15_000);
    expect(joined).toMatchObject({
      ok: false,
      error: {
        name: 'JoinError',
        code: 'FDKIT_JOIN_UNEXPECTED_ENCRYPTION',
        reason: 'the message was encrypted, and the seed has no keyring',
      },
    });
    await c.run(15_000);
    expect(Object.keys(view(loner.node))).toEqual(['n4']);
    for (const m of members) expect(view(m.node).n4).toBeUndefined();
    const drops = members[0]!.node.counters().drops;
    expect(drops['unexpected-encryption']).toBeGreaterThan(0);
    expect(drops.malformed + drops['unknown-version'] + drops['too-large']).toBe(0);
  });

  it('a rolling rotation (install everywhere, then use everywhere, then remove the old) raises no suspicion', async () => {
    const c = newCluster(4);
    const members = await formWith(c, 5, () => sealed('prod', 1));
    const step = async (change: (keyring: Keyring) => void): Promise<void> => {
      for (const m of members) {
        change(m.node.keyring!);
        await c.run(700); // more than one probe period between members: traffic flows mid-rotation
      }
    };
    await step((k) => k.install(key(2)));
    await step((k) => k.use(key(2)));
    await step((k) => k.remove(key(1)));
    await c.run(10_000);
    const names = members.map((m) => m.name);
    for (const m of members) {
      expect(m.node.keyring!.keys()).toEqual([key(2)]);
      expect(holds(m.node, names, 'alive'), m.name).toBe(true);
      expect(m.node.counters().suspicions, m.name).toBe(0);
      expect(otherDrops(m.node), m.name).toEqual({});
    }
    // The old key no longer opens anything: a member still on it is kept out.
    const late = await c.start(6, sealed('prod', 1));
    const joined = await settleWhileRunning(c.clock, late.node.join([members[0]!.address]), 15_000);
    expect(joined).toMatchObject({ ok: false, error: { code: 'FDKIT_JOIN_KEY_MISMATCH' } });
    await c.run(5_000);
    expect(Object.keys(view(late.node))).toEqual(['n6']);
    expect(members[0]!.node.counters().drops['decrypt-failed']).toBeGreaterThan(0);
  });

  it('using the new key before every member installed it cuts the cluster: the rotation order matters', async () => {
    const c = newCluster(5);
    const members = await formWith(c, 3, () => sealed('prod', 1));
    members[0]!.node.keyring!.install(key(2));
    members[0]!.node.keyring!.use(key(2));
    await c.run(10_000);
    expect(members[1]!.node.counters().drops['decrypt-failed']).toBeGreaterThan(0);
    expect(members[1]!.node.counters().suspicions).toBeGreaterThan(0);
  });

  it('keeps every sealed datagram within packetBytesMax when the core fills a packet to its budget', async () => {
    const c = newCluster(6);
    const sent: Uint8Array[] = [];
    const members = await formWith(c, 3, () => ({
      ...sealed(),
      transport: async (o) => {
        const t = await c.network.createTransport(o);
        const send = t.sendDatagram.bind(t);
        t.sendDatagram = (address, bytes) => {
          sent.push(bytes);
          send(address, bytes);
        };
        return t;
      },
    }));
    // The largest broadcast the core accepts fills a gossip packet to the core's budget.
    let payloadBytes = 1400;
    while (thrownOrUndefined(() => members[0]!.node.broadcast(new Uint8Array(payloadBytes))) !== undefined) {
      payloadBytes--;
    }
    // The core's budget is the configured one less the seal.
    expect(payloadBytes).toBeLessThan(1400 - SEAL_OVERHEAD_BYTES);
    await c.run(5_000);
    for (const m of members.slice(1)) expect(m.log.messages().length, m.name).toBe(1);
    // Every datagram on the wire is sealed under the cluster's key and label.
    const opener = new Sealer(ring(1), 'prod', () => {});
    expect(sent.filter((d) => opener.open(d) === undefined)).toEqual([]);
    const largest = Math.max(...sent.map((d) => d.length));
    expect(largest).toBeLessThanOrEqual(1400);
    expect(largest).toBeGreaterThan(1400 - SEAL_OVERHEAD_BYTES);
  });
});

function thrownOrUndefined(fn: () => void): unknown {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('options', () => {
  it.each([
    { what: 'a label without a keyring', options: { label: 'prod' }, option: 'label' },
    { what: 'a keyring that is not a Keyring', options: { keyring: [key(1)] }, option: 'keyring' },
    {
      what: 'a label over 255 bytes',
      options: { keyring: ring(1), label: 'é'.repeat(128) },
      option: 'label',
    },
    {
      what: 'a packet budget with no room for the seal',
      options: { keyring: ring(1), config: { packetBytesMax: 600 } },
      option: 'config.packetBytesMax',
    },
  ])('refuses $what', ({ options, option }) => {
    const error = thrown(() => createNode(options as NodeOptions));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe(option);
  });

  it('accepts the smallest packet budget that leaves room for the seal', () => {
    expect(() => createNode({ keyring: ring(1), config: { packetBytesMax: 605 } })).not.toThrow();
    expect(createNode({}).keyring).toBeUndefined();
  });
});

describe('over real UDP on 127.0.0.1', () => {
  it('three encrypted members form a cluster, and a plaintext datagram sent at them is dropped and counted', async () => {
    const config = { probeIntervalMs: 200, probeTimeoutMs: 100, gossipIntervalMs: 50 };
    for (const name of ['u1', 'u2', 'u3']) {
      const node = createNode({ name, bind: '127.0.0.1:0', config, keyring: ring(5, 6), label: 'udp' });
      udpNodes.push(node);
      await node.start();
    }
    const [first, ...rest] = udpNodes as [SwimNode, ...SwimNode[]];
    for (const node of rest) await node.join([first.localAddress]);
    await poll(
      () => udpNodes.every((n) => holds(n, ['u1', 'u2', 'u3'], 'alive')),
      'three members alive',
      10_000,
    );
    expect(first.counters().drops['decrypt-failed']).toBe(0);

    const ping = encodePacket({ type: 'ping', seq: 1, from: 'u9', target: 'u1', updates: [] });
    const socket = createSocket('udp4');
    const port = Number(first.localAddress.split(':')[1]);
    await new Promise<void>((resolve, reject) =>
      socket.send(ping, port, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
    );
    socket.close();
    await poll(() => first.counters().drops['not-encrypted'] > 0, 'the plaintext ping to be dropped', 10_000);
    expect(first.counters().drops['not-encrypted']).toBe(1);
    expect(first.counters().drops['decrypt-failed']).toBe(0);
    expect(view(first).u9).toBeUndefined();
  });

  it.each([
    { what: 'another key', options: { keyring: ring(7), label: 'udp' }, code: 'FDKIT_JOIN_KEY_MISMATCH' },
    { what: 'another label', options: { keyring: ring(5), label: 'dev' }, code: 'FDKIT_JOIN_LABEL_MISMATCH' },
    { what: 'no keyring', options: {}, code: 'FDKIT_JOIN_NOT_ENCRYPTED' },
  ])(
    'a member with $what fails join over TCP with $code, well within the join timeout',
    async ({ options, code }) => {
      const seed = createNode({ name: 's1', bind: '127.0.0.1:0', keyring: ring(5), label: 'udp' });
      const joiner = createNode({ name: 'j1', bind: '127.0.0.1:0', joinTimeoutMs: 5000, ...options });
      udpNodes.push(seed, joiner);
      await seed.start();
      await joiner.start();
      const startedAt = performance.now();
      const error = await joiner.join([seed.localAddress]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(performance.now() - startedAt).toBeLessThan(2500);
      expect(error).toMatchObject({ name: 'JoinError', code, seed: seed.localAddress });
      expect(joiner.members().map((m) => m.name)).toEqual(['j1']);
    },
  );

  it('an encrypted member fails join over TCP against a plaintext seed with FDKIT_JOIN_UNEXPECTED_ENCRYPTION', async () => {
    const seed = createNode({ name: 's1', bind: '127.0.0.1:0' });
    const joiner = createNode({ name: 'j1', bind: '127.0.0.1:0', keyring: ring(5), label: 'udp' });
    udpNodes.push(seed, joiner);
    await seed.start();
    await joiner.start();
    const error = await joiner.join([seed.localAddress]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'JoinError', code: 'FDKIT_JOIN_UNEXPECTED_ENCRYPTION' });
  });
});

/**
 * Three heartbeat monitors over real UDP on 127.0.0.1, ephemeral ports, the system clock: they see each
 * other alive; one shuts down; the other two see it suspected, then dead. Waits are bounded polls on the
 * wall clock (they bound the test; nothing asserts how fast detection is).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { poll } from '../support/node-harness.js';

const monitors: HeartbeatMonitor[] = [];

afterEach(async () => {
  await Promise.all(monitors.splice(0).map((m) => m.shutdown()));
});

describe('heartbeat monitors over UDP on loopback', () => {
  it('see a monitor that shut down suspected, then dead', async () => {
    const events = new Map<string, MemberEvent[]>();
    for (const name of ['u1', 'u2', 'u3']) {
      // Fast beats, with a generous acceptable pause: a loaded test machine delays timers.
      const monitor = createHeartbeatMonitor({
        name,
        bind: '127.0.0.1:0',
        intervalMs: 50,
        acceptableHeartbeatPauseMs: 600,
        suspicionTimeoutMs: 1000,
      });
      const log: MemberEvent[] = [];
      events.set(name, log);
      for (const type of ['alive', 'suspect', 'dead'] as const) monitor.on(type, (e) => log.push(e));
      await monitor.start();
      monitors.push(monitor);
    }
    const peers = monitors.map((m) => ({ name: m.localName, address: m.localAddress }));
    for (const monitor of monitors)
      for (const peer of peers) if (peer.name !== monitor.localName) monitor.addPeer(peer);

    const states = (m: HeartbeatMonitor): string =>
      m
        .peers()
        .map((p) => `${p.name}:${p.state}`)
        .join(' ');
    await poll(
      () => monitors.every((m) => m.peers().every((p) => p.state === 'alive')),
      () => `every monitor to see the others alive (${monitors.map(states).join(' | ')})`,
      10_000,
    );

    const closed = monitors[2]!;
    await closed.shutdown();
    const survivors = monitors.slice(0, 2);
    await poll(
      () => survivors.every((m) => m.peers().find((p) => p.name === 'u3')?.state === 'dead'),
      () => `u1 and u2 to hold u3 dead (${survivors.map(states).join(' | ')})`,
      10_000,
    );
    for (const observer of ['u1', 'u2']) {
      const about = events
        .get(observer)!
        .filter((e) => e.member === 'u3')
        .map((e) => e.type);
      expect(about[0]).toBe('alive');
      // The last suspicion came before the death.
      expect(about.slice(-2)).toEqual(['suspect', 'dead']);
    }
    for (const monitor of survivors) {
      const counters = monitor.counters();
      expect(counters.heartbeatsIn).toBeGreaterThan(0);
      expect(Object.values(counters.drops).reduce((a, b) => a + b, 0)).toBe(0);
    }
  });
});

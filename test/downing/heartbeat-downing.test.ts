/**
 * The split-brain resolver over heartbeat monitors: five `HeartbeatMonitor`s watching each other on an
 * in-memory network and a virtual clock, each with a keep-majority `SplitBrainResolver`, cut 3/2. A
 * heartbeat monitor hears from every peer all the time, so it needs no probe: the three down the two,
 * the two down themselves, and none decides before the wait after it saw the cut.
 */
import { describe, expect, it } from 'vitest';
import type { DownDecision, DownedSelfDecision } from '../../src/downing/downing-types.js';
import { SplitBrainResolver } from '../../src/downing/split-brain-resolver.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { createHeartbeatMonitor, type HeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { run } from '../support/node-harness.js';

const address = (i: number): string => `10.0.0.${i}:7947`;
const NAMES = [1, 2, 3, 4, 5].map((i) => `m${i}`);
const PEERS = NAMES.map((name, i) => ({ name, address: address(i + 1) }));
const STABLE = 3_000;

describe('SplitBrainResolver on heartbeat monitors', () => {
  it('a 3/2 cut: the three down the two, the two down themselves, each after the wait', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock });
    const monitors: HeartbeatMonitor[] = [];
    for (const [i, name] of NAMES.entries()) {
      const monitor = createHeartbeatMonitor({
        name,
        bind: address(i + 1),
        peers: PEERS,
        transport: (o) => network.createTransport(o),
        clock,
        random: new Random(7 + i),
        localHealth: false,
        incarnation: 100 + i,
      });
      await monitor.start();
      monitors.push(monitor);
    }
    await run(clock, 5_000);
    const decisions = new Map<string, Array<DownDecision | DownedSelfDecision>>();
    /** When each member last saw a member become unreachable: the decision waits from there. */
    const lastCut = new Map<string, number>();
    const resolvers = monitors.map((m) => {
      const r = new SplitBrainResolver(m, { strategy: 'keep-majority', stableAfterMs: STABLE, clock });
      const log: Array<DownDecision | DownedSelfDecision> = [];
      decisions.set(m.localName, log);
      r.on('down', (d) => log.push(d));
      r.on('downed-self', (d) => log.push(d));
      m.on('suspect', (e: MemberEvent) =>
        lastCut.set(m.localName, Math.max(lastCut.get(m.localName) ?? 0, e.atMs)),
      );
      return r;
    });
    expect(resolvers[0]!.sides()).toEqual({ reachable: NAMES, unreachable: [] });
    network.partition([address(1), address(2), address(3)], [address(4), address(5)]);
    await run(clock, 30_000);
    for (const name of ['m1', 'm2', 'm3']) {
      expect(decisions.get(name)).toMatchObject([
        { kind: 'down', members: ['m4', 'm5'], reason: 'majority: 3 of 5 reachable' },
      ]);
    }
    for (const name of ['m4', 'm5']) {
      expect(decisions.get(name)).toMatchObject([
        { kind: 'downed-self', reachable: [name, name === 'm4' ? 'm5' : 'm4'] },
      ]);
    }
    // Not before the wait from the last suspicion each member heard, and within a beat of it.
    for (const name of NAMES) {
      const at = decisions.get(name)![0]!.atMs;
      expect(at).toBeGreaterThanOrEqual(lastCut.get(name)! + STABLE);
      expect(at).toBeLessThan(lastCut.get(name)! + STABLE + 1_000);
    }
    for (const r of resolvers) r.stop();
    await Promise.all(monitors.map((m) => m.shutdown()));
  });

  it('refuses a source it cannot tell its own member from', () => {
    expect(
      () =>
        new SplitBrainResolver({ on: () => undefined, off: () => undefined }, { strategy: 'keep-majority' }),
    ).toThrow(/neither localMember nor localName and localIncarnation/);
  });
});

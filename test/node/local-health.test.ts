/**
 * Local health: GC pauses (read in the node) and late protocol timers (event-loop delay, measured by the
 * core) raise the Lifeguard health score.
 */
import { describe, expect, it } from 'vitest';
import {
  createNode,
  InvalidOptionError,
  MemoryNetwork,
  Random,
  SwimCore,
  VirtualClock,
} from '../../src/index.js';
import { gcStressSource, LocalHealthMonitor } from '../../src/node/local-health.js';

function fakeSource(pauses: number[]): { sample: () => number; close: () => void; closed: boolean } {
  const source = {
    closed: false,
    sample: (): number => pauses.shift() ?? 0,
    close: (): void => {
      source.closed = true;
    },
  };
  return source;
}

describe('LocalHealthMonitor', () => {
  it('reports pauses above the threshold, graded by how many thresholds they span, at most every everyMs', () => {
    const reports: number[] = [];
    const source = fakeSource([100, 300, 800, 60_000]);
    const monitor = new LocalHealthMonitor(source, 250, 500, (s) => reports.push(s));
    monitor.poll(0); // 100 ms: under the threshold
    monitor.poll(100); // too soon: not sampled
    monitor.poll(500); // 300 ms: one threshold
    monitor.poll(1000); // 800 ms: three
    monitor.poll(1500); // a minute: capped at 4
    expect(reports).toEqual([1, 3, 4]);
    expect(monitor.reports).toBe(3);
    expect(monitor.longestPauseMs).toBe(60_000);
    monitor.close();
    expect(source.closed).toBe(true);
  });

  it('reads the garbage collector of the process', async () => {
    const source = gcStressSource();
    try {
      let garbage: unknown[] = [];
      for (let round = 0; round < 40; round++) {
        garbage = Array.from({ length: 50_000 }, (_, i) => ({ i, s: `x${i}` }));
      }
      expect(garbage.length).toBe(50_000);
      await new Promise((resolve) => setTimeout(resolve, 50)); // GC entries are delivered asynchronously
      expect(source.sample()).toBeGreaterThan(0);
      expect(source.sample()).toBe(0); // reset by the previous sample
    } finally {
      source.close();
    }
  });
});

describe('late timers: the core measures its own event-loop delay', () => {
  it('raises the health score when its probe tick fires more than half a probe timeout late', () => {
    const clock = new VirtualClock();
    let block = 0;
    // A clock whose timers fire `block` ms late, as in a process whose event loop is stalled.
    const laggy = {
      now: () => clock.now(),
      wallNow: () => clock.wallNow(),
      setTimer: (delayMs: number, callback: () => void) => clock.setTimer(delayMs + block, callback),
    };
    const core = new SwimCore(
      { name: 'a', address: 'a:1' },
      { clock: laggy, random: new Random(1), sendPacket: () => {}, sendStream: () => {}, emit: () => {} },
    );
    core.start();
    clock.advance(5000);
    expect([core.localHealth, core.counters.lateTimers]).toEqual([0, 0]);
    block = 120; // under half lan's 300 ms probe timeout: normal jitter
    clock.advance(3000);
    expect(core.localHealth).toBe(0);
    block = 450; // 3 half-timeouts late
    clock.advance(4000);
    expect(core.localHealth).toBeGreaterThanOrEqual(3);
    expect(core.counters.lateTimers).toBeGreaterThan(0);
  });
});

describe('a node under GC stress', () => {
  it('raises its health score when a datagram arrives after a long pause, and lowers it with good probes', async () => {
    const clock = new VirtualClock();
    const network = new MemoryNetwork({ clock });
    const source = fakeSource([]);
    const make = (i: number, stressed: boolean) =>
      createNode({
        name: `n${i}`,
        bind: `10.0.0.${i}:7946`,
        transport: (o) => network.createTransport(o),
        clock,
        random: new Random(i),
        ...(stressed ? { localHealth: { source } } : { localHealth: false as const }),
      });
    const a = make(1, true);
    const b = make(2, false);
    await a.start();
    await b.start();
    await b.join(['10.0.0.1:7946']);
    const step = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 10) {
        clock.advance(10);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await step(3000);
    expect(a.localHealth).toBe(0);
    source.sample = () => 1000; // 1 s pauses: 4 thresholds of 250 ms
    await step(1000);
    expect(a.localHealth).toBeGreaterThanOrEqual(3);
    source.sample = () => 0;
    await step(30_000);
    expect(a.localHealth).toBe(0); // successful probes bring it back down
    await a.shutdown();
    await b.shutdown();
    expect(source.closed).toBe(true);
  });

  it('rejects a bad localHealth option', () => {
    expect(() => createNode({ localHealth: { thresholdMs: 0 } })).toThrow(InvalidOptionError);
    expect(() => createNode({ localHealth: true as never })).toThrow(/localHealth/);
  });
});

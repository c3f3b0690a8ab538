/**
 * Unit tests of the simulator's parts: the network model, the simulated process, the fault planner, the
 * report's quantiles and the metrics that a small simulation produces. Every random draw is seeded.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors.js';
import { Random } from '../src/runtime/random.js';
import { VirtualClock } from '../src/runtime/virtual-clock.js';
import { type FaultPlan, type FaultRequest, planFaults } from '../src/sim/faults.js';
import { MetricsCollector } from '../src/sim/metrics.js';
import { lanNetwork, type NetworkModel, SimNetwork } from '../src/sim/network.js';
import { SimProcess, SOCKET_BUFFER_PACKETS } from '../src/sim/process.js';
import { quantiles, type SimulationReport } from '../src/sim/report.js';
import { Simulation, type SimulationOptions, simName } from '../src/sim/simulation.js';
import type { SwimCore } from '../src/swim/core.js';
import type { MemberEvent, SwimEvent } from '../src/swim/events.js';
import type { Packet, StreamMessage } from '../src/swim/messages.js';

// ---------------------------------------------------------------------------------------------------
// SimNetwork

function network(model: Partial<NetworkModel>, endpoints: number, seed = 1): SimNetwork {
  return new SimNetwork({ ...lanNetwork, ...model }, endpoints, new Random(seed));
}

/** Whether each of `count` packets from `from` to `to` was lost. */
function lossPattern(net: SimNetwork, count: number, from = 0, to = 1): boolean[] {
  return Array.from({ length: count }, () => net.packetDelay(from, to) < 0);
}

/** Mean length of the runs of consecutive losses. */
function meanLossRun(lost: readonly boolean[]): number {
  let runs = 0;
  let total = 0;
  let current = 0;
  for (const l of [...lost, false]) {
    if (l) {
      current++;
      continue;
    }
    if (current > 0) {
      runs++;
      total += current;
    }
    current = 0;
  }
  return runs === 0 ? 0 : total / runs;
}

describe('SimNetwork', () => {
  it.each([0.01, 0.1, 0.5])('loses a fraction %f of packets within binomial bounds', (loss) => {
    const n = 20_000;
    const net = network({ loss }, 2, 42);
    const lost = lossPattern(net, n).filter(Boolean).length;
    const sd = Math.sqrt(n * loss * (1 - loss));
    expect(Math.abs(lost - n * loss)).toBeLessThan(5 * sd);
  });

  it('loses nothing at loss 0 and everything at loss 1', () => {
    expect(lossPattern(network({ loss: 0 }, 2), 5000).some(Boolean)).toBe(false);
    expect(lossPattern(network({ loss: 1 }, 2), 5000).every(Boolean)).toBe(true);
  });

  it('bursty (Gilbert-Elliott) loss has longer loss runs than independent loss at the same rate', () => {
    const n = 50_000;
    const bursty = lossPattern(network({ burstEnter: 0.02, burstExit: 0.2, burstLoss: 1 }, 2, 7), n);
    const rate = bursty.filter(Boolean).length / n;
    // Stationary share of the bursty state: enter / (enter + exit) = 1/11.
    expect(rate).toBeGreaterThan(0.07);
    expect(rate).toBeLessThan(0.115);
    const independent = lossPattern(network({ loss: rate }, 2, 7), n);
    const independentRate = independent.filter(Boolean).length / n;
    expect(Math.abs(independentRate - rate)).toBeLessThan(0.01);
    const burstyRun = meanLossRun(bursty);
    const independentRun = meanLossRun(independent);
    // Independent runs average 1 / (1 − p) ≈ 1.1; bursts last 1 / exit = 5 packets on average.
    expect(independentRun).toBeLessThan(1.2);
    expect(burstyRun).toBeGreaterThan(4);
    expect(burstyRun).toBeGreaterThan(3 * independentRun);
  });

  it('never delivers faster than baseDelayMs, and jitter averages jitterMs', () => {
    const model = { baseDelayMs: 2, linkSpreadMs: 3, jitterMs: 0.5 };
    const net = network(model, 10, 11);
    const fixed = network({ ...model, jitterMs: 0 }, 10, 11);
    let jitterSum = 0;
    let count = 0;
    for (let a = 0; a < 10; a++) {
      for (let b = 0; b < 10; b++) {
        if (a === b) continue;
        const link = fixed.streamDelay(a, b);
        for (let k = 0; k < 50; k++) {
          const packet = net.packetDelay(a, b);
          const stream = net.streamDelay(a, b);
          expect(packet).toBeGreaterThanOrEqual(model.baseDelayMs);
          expect(stream).toBeGreaterThanOrEqual(model.baseDelayMs);
          expect(packet).toBeGreaterThanOrEqual(link);
          jitterSum += packet - link + (stream - link);
          count += 2;
        }
      }
    }
    expect(jitterSum / count).toBeGreaterThan(0.45);
    expect(jitterSum / count).toBeLessThan(0.55);
  });

  it('gives each link a fixed extra delay in [0, linkSpreadMs), the same both ways', () => {
    const model = { baseDelayMs: 1, linkSpreadMs: 4, jitterMs: 0 };
    const net = network(model, 20);
    const extras = new Set<number>();
    for (let a = 0; a < 20; a++) {
      for (let b = a + 1; b < 20; b++) {
        const there = net.packetDelay(a, b);
        expect(net.packetDelay(a, b)).toBe(there);
        expect(net.streamDelay(a, b)).toBe(there);
        expect(net.packetDelay(b, a)).toBe(there);
        expect(net.streamDelay(b, a)).toBe(there);
        expect(there).toBeGreaterThanOrEqual(model.baseDelayMs);
        expect(there).toBeLessThan(model.baseDelayMs + model.linkSpreadMs);
        extras.add(there);
      }
    }
    // Links differ: 190 links should not share a handful of values.
    expect(extras.size).toBeGreaterThan(150);
    // The extra depends on the endpoints only, not on the generator or its history.
    const other = network(model, 20, 999);
    for (let k = 0; k < 100; k++) other.packetDelay(k % 20, (k * 7 + 1) % 20);
    expect(other.packetDelay(3, 17)).toBe(net.packetDelay(17, 3));
  });

  it('a stream crosses the lossy link as TCP would: three legs, lost segments resent after 1 s (handshake) or 200 ms (data)', () => {
    // No jitter and one fixed delay per link, so that every leg takes exactly `delay`.
    const model = { baseDelayMs: 2, linkSpreadMs: 0, jitterMs: 0 };
    const clean = network({ ...model, loss: 0 }, 2);
    expect(clean.streamTransferDelay(0, 1, 10_000)).toBe(6);
    expect(clean.handshakeDelay(0, 1, 10_000)).toBe(4);
    expect(network({ ...model, loss: 1 }, 2).streamTransferDelay(0, 1, 10_000)).toBe(-1);
    const cut = network({ ...model, loss: 0 }, 2);
    cut.partition((i) => i, [[0, 1]]);
    expect(cut.streamTransferDelay(0, 1, 10_000)).toBe(-1);
    // One-way: the SYN gets through but its answer never comes back.
    const oneWay = network({ ...model, loss: 0 }, 2);
    oneWay.partition((i) => i, [[1, 0]]);
    expect(oneWay.handshakeDelay(0, 1, 10_000)).toBe(-1);
    // At 20% loss each delay is 6 ms plus a sum of retransmission timeouts, and the shares match TCP's:
    // all three legs through at once (0.8^3), or the handshake through and the data resent once.
    const lossy = network({ ...model, loss: 0.2 }, 2, 5);
    const runs = 20_000;
    let direct = 0;
    let dataResentOnce = 0;
    let givenUp = 0;
    for (let k = 0; k < runs; k++) {
      const delay = lossy.streamTransferDelay(0, 1, 10_000);
      if (delay < 0) {
        givenUp++;
        continue;
      }
      const waited = delay - 6;
      // Retransmission waits are sums of 1000·2^i and 200·2^j: whole multiples of 200 ms.
      expect(waited % 200).toBe(0);
      if (waited === 0) direct++;
      if (waited === 200) dataResentOnce++;
    }
    expect(direct / runs).toBeCloseTo(0.8 ** 3, 1);
    expect(dataResentOnce / runs).toBeCloseTo(0.8 ** 3 * 0.2, 1);
    expect(givenUp / runs).toBeLessThan(0.01);
  });

  const side = new Set([1, 3]);
  const groupOf = (i: number): number => (side.has(i) ? 1 : 0);
  const pairs: Array<[number, number]> = [];
  for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) if (a !== b) pairs.push([a, b]);

  /** Checks `reachable` for every pair against `expected`, and that packetDelay agrees with it. */
  function expectReach(net: SimNetwork, expected: (a: number, b: number) => boolean): void {
    for (const [a, b] of pairs) {
      expect({ a, b, reachable: net.reachable(a, b) }).toEqual({ a, b, reachable: expected(a, b) });
      expect({ a, b, lost: net.packetDelay(a, b) === -1 }).toEqual({ a, b, lost: !expected(a, b) });
    }
  }

  it('a partition in both directions blocks both ways across the cut and nothing inside a side', () => {
    const net = network({}, 6);
    net.partition(groupOf, [
      [1, 0],
      [0, 1],
    ]);
    expectReach(net, (a, b) => side.has(a) === side.has(b));
  });

  it('a one-way partition blocks only side → rest', () => {
    const net = network({}, 6);
    net.partition(groupOf, [[1, 0]]);
    expectReach(net, (a, b) => !(side.has(a) && !side.has(b)));
  });

  it('heal restores every link', () => {
    const net = network({}, 6);
    net.partition(groupOf, [
      [1, 0],
      [0, 1],
    ]);
    net.heal();
    expectReach(net, () => true);
    net.partition(groupOf, [[1, 0]]);
    net.heal();
    expectReach(net, () => true);
  });

  it('packetDelay is -1 exactly where reachable is false (loss 0, one-way rest → side)', () => {
    const net = network({ loss: 0 }, 6, 5);
    net.partition(groupOf, [[0, 1]]);
    for (const [a, b] of pairs) expect(net.packetDelay(a, b) === -1).toBe(!net.reachable(a, b));
  });
});

// ---------------------------------------------------------------------------------------------------
// SimProcess

interface Recorder {
  readonly log: string[];
  readonly core: SwimCore;
  stops: number;
}

/** A core that records every call with the virtual time, cast to the type SimProcess holds. */
function fakeCore(clock: VirtualClock, label = ''): Recorder {
  const recorder = {
    log: [] as string[],
    stops: 0,
    core: undefined as unknown as SwimCore,
  };
  const core = {
    handlePacket(from: string, packet: Packet): void {
      recorder.log.push(
        `${label}packet ${(packet as unknown as { id: number }).id} from ${from} @${clock.now()}`,
      );
    },
    handleStream(from: string, message: StreamMessage): void {
      recorder.log.push(
        `${label}stream ${(message as unknown as { id: number }).id} from ${from} @${clock.now()}`,
      );
    },
    stop(): void {
      recorder.stops++;
    },
  };
  recorder.core = core as unknown as SwimCore;
  return recorder;
}

function packet(id: number): Packet {
  return { id } as unknown as Packet;
}

function stream(id: number): StreamMessage {
  return { id } as unknown as StreamMessage;
}

function setup(seed = 1): { clock: VirtualClock; proc: SimProcess; rec: Recorder } {
  const clock = new VirtualClock();
  const proc = new SimProcess(0, clock, new Random(seed));
  const rec = fakeCore(clock);
  proc.core = rec.core;
  return { clock, proc, rec };
}

/** Schedules a packet to arrive at `proc` at virtual time `atMs`. */
function arrive(clock: VirtualClock, proc: SimProcess, atMs: number, id: number): void {
  clock.setTimer(atMs - clock.now(), () => proc.receivePacket('peer', packet(id)));
}

describe('SimProcess', () => {
  it('fires timers on time while running, in due order, and handles packets at once', () => {
    const { clock, proc, rec } = setup();
    proc.setTimer(100, () => rec.log.push(`a @${clock.now()}`));
    proc.setTimer(50, () => rec.log.push(`b @${clock.now()}`));
    proc.setTimer(50, () => rec.log.push(`c @${clock.now()}`));
    arrive(clock, proc, 70, 1);
    clock.advanceTo(200);
    expect(rec.log).toEqual(['b @50', 'c @50', 'packet 1 from peer @70', 'a @100']);
    expect(proc.now()).toBe(200);
    expect(proc.wallNow()).toBe(clock.wallNow());
  });

  it('a cancelled timer does not fire', () => {
    const { clock, proc, rec } = setup();
    const t = proc.setTimer(10, () => rec.log.push('x'));
    t.cancel();
    clock.advanceTo(100);
    expect(rec.log).toEqual([]);
  });

  it('while paused, due timers fire at the resume in their order and before packets that arrived meanwhile', () => {
    const { clock, proc, rec } = setup();
    proc.setTimer(30, () => rec.log.push(`t30 @${clock.now()}`));
    proc.setTimer(10, () => rec.log.push(`t10 @${clock.now()}`));
    proc.setTimer(60, () => rec.log.push(`t60 @${clock.now()}`));
    proc.setTimer(200, () => rec.log.push(`t200 @${clock.now()}`));
    clock.advanceTo(5);
    proc.pause(100); // resumes at 105
    expect(proc.state).toBe('paused');
    arrive(clock, proc, 20, 1);
    arrive(clock, proc, 70, 2);
    clock.setTimer(40, () => proc.deliver(() => rec.core.handleStream('peer', stream(3))));
    clock.advanceTo(104);
    expect(rec.log).toEqual([]);
    clock.advanceTo(300);
    expect(proc.state).toBe('running');
    expect(rec.log).toEqual([
      't10 @105',
      't30 @105',
      't60 @105',
      'packet 1 from peer @105',
      'stream 3 from peer @105',
      'packet 2 from peer @105',
      't200 @200',
    ]);
    expect(proc.bufferDrops).toBe(0);
  });

  it('pausing a paused or crashed process changes nothing', () => {
    const { clock, proc, rec } = setup();
    proc.pause(100);
    clock.advanceTo(50);
    proc.pause(1000); // ignored: still resumes at 100
    proc.setTimer(10, () => rec.log.push(`t @${clock.now()}`));
    clock.advanceTo(200);
    expect(rec.log).toEqual(['t @100']);
    proc.crash();
    proc.pause(10);
    expect(proc.state).toBe('crashed');
  });

  it('drops packets beyond SOCKET_BUFFER_PACKETS during a pause and counts them', () => {
    const { clock, proc, rec } = setup();
    proc.pause(1000);
    const extra = 17;
    for (let i = 0; i < SOCKET_BUFFER_PACKETS + extra; i++) arrive(clock, proc, 10 + i, i);
    clock.advanceTo(999);
    expect(rec.log).toEqual([]);
    expect(proc.bufferDrops).toBe(extra);
    clock.advanceTo(1000);
    expect(rec.log).toEqual(
      Array.from({ length: SOCKET_BUFFER_PACKETS }, (_, i) => `packet ${i} from peer @1000`),
    );
    // The buffer is empty again after the resume: a second pause holds a full buffer anew.
    proc.pause(100);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    expect(proc.bufferDrops).toBe(extra);
    proc.receivePacket('peer', packet(-1));
    expect(proc.bufferDrops).toBe(extra + 1);
  });

  it('timers do not use socket buffer space', () => {
    const { clock, proc, rec } = setup();
    proc.pause(100);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS * 2; i++) proc.setTimer(1, () => rec.log.push('t'));
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    clock.advanceTo(100);
    expect(proc.bufferDrops).toBe(0);
    expect(rec.log.length).toBe(SOCKET_BUFFER_PACKETS * 3);
  });

  it('a crash stops the core and drops pending timers and later deliveries', () => {
    const { clock, proc, rec } = setup();
    proc.setTimer(100, () => rec.log.push('timer'));
    arrive(clock, proc, 80, 1);
    clock.advanceTo(50);
    proc.crash();
    expect(rec.stops).toBe(1);
    expect(proc.state).toBe('crashed');
    proc.deliver(() => rec.log.push('delivered'));
    clock.advanceTo(500);
    expect(rec.log).toEqual([]);
  });

  it('a crash during a pause drops what the pause held', () => {
    const { clock, proc, rec } = setup();
    proc.setTimer(20, () => rec.log.push('timer'));
    proc.pause(100);
    arrive(clock, proc, 30, 1);
    clock.advanceTo(50);
    proc.crash();
    clock.advanceTo(500);
    expect(rec.log).toEqual([]);
    expect(proc.state).toBe('crashed');
  });

  it('timers from before a crash never fire after a restart; the new life works normally', () => {
    const { clock, proc, rec } = setup();
    proc.setTimer(300, () => rec.log.push(`old @${clock.now()}`));
    proc.setTimer(100, () => rec.log.push(`old-early @${clock.now()}`));
    proc.pause(200); // its resume timer belongs to the old life too
    clock.advanceTo(50);
    proc.crash();
    clock.advanceTo(80);
    const next = fakeCore(clock, 'new ');
    proc.restart(next.core);
    expect(proc.state).toBe('running');
    proc.setTimer(100, () => next.log.push(`new timer @${clock.now()}`));
    arrive(clock, proc, 150, 9);
    clock.advanceTo(1000);
    expect(rec.log).toEqual([]);
    expect(next.log).toEqual(['new packet 9 from peer @150', 'new timer @180']);
    expect(proc.state).toBe('running');
  });

  it('a slow CPU delays work by a positive amount and keeps it in FIFO order', () => {
    const { clock, proc, rec } = setup(5);
    clock.advanceTo(10);
    proc.setSlowCpu(10);
    const count = 200;
    for (let i = 0; i < count; i++) {
      if (i % 2 === 0) proc.receivePacket('peer', packet(i));
      else proc.deliver(() => rec.log.push(`work ${i} @${clock.now()}`));
    }
    proc.setTimer(0, () => rec.log.push(`timer @${clock.now()}`));
    expect(rec.log).toEqual([]);
    clock.advanceTo(100_000);
    expect(rec.log.length).toBe(count + 1);
    const ids = rec.log.map((l) => (l.startsWith('timer') ? count : Number(l.split(' ')[1])));
    // The timer came due at 10, after all the deliveries were queued, so it runs last.
    expect(ids).toEqual(Array.from({ length: count + 1 }, (_, i) => i));
    const times = rec.log.map(timeOf);
    expect(times[0]!).toBeGreaterThan(10);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
    // Each item takes an exponential time of mean 10 ms: about 2010 ms for 201 items (sd ≈ 140 ms).
    const busy = times[times.length - 1]! - 10;
    expect(busy).toBeGreaterThan(1400);
    expect(busy).toBeLessThan(2700);
  });

  it('a slow CPU holds its queue during a pause and works it off, in order, after the resume', () => {
    const { clock, proc, rec } = setup(9);
    proc.setSlowCpu(10);
    proc.receivePacket('peer', packet(1));
    proc.receivePacket('peer', packet(2));
    proc.pause(1000);
    arrive(clock, proc, 500, 3);
    clock.advanceTo(999);
    expect(rec.log).toEqual([]);
    clock.advanceTo(5000);
    expect(rec.log.map((l) => l.split(' ')[1])).toEqual(['1', '2', '3']);
    expect(timeOf(rec.log[0]!)).toBeGreaterThanOrEqual(1000);
  });

  it('a slow CPU with timersFirst runs timers that came due before the packets waiting', () => {
    const { clock, proc, rec } = setup(4);
    proc.setSlowCpu(100, true);
    // A packet takes the CPU; while it is busy, two more packets arrive and a timer comes due.
    proc.receivePacket('peer', packet(1));
    arrive(clock, proc, 1, 2);
    arrive(clock, proc, 2, 3);
    proc.setTimer(3, () => rec.log.push(`timer @${clock.now()}`));
    clock.advanceTo(100_000);
    const order = rec.log.map((l) => (l.startsWith('timer') ? 'timer' : l.split(' ').slice(0, 2).join(' ')));
    // Packet 1 was on the CPU already; the timer overtakes packets 2 and 3, which then keep their order.
    expect(order).toEqual(['packet 1', 'timer', 'packet 2', 'packet 3']);
    const times = rec.log.map(timeOf);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
  });

  it('a slow CPU with timersFirst keeps the FIFO order among timers and among packets, and after a pause', () => {
    const { clock, proc, rec } = setup(6);
    proc.setSlowCpu(10, true);
    for (let i = 0; i < 50; i++) {
      proc.receivePacket('peer', packet(i));
      proc.setTimer(0, () => rec.log.push(`timer ${i} @${clock.now()}`));
    }
    proc.pause(500);
    arrive(clock, proc, 100, 50);
    clock.advanceTo(100_000);
    const packets = rec.log.filter((l) => l.startsWith('packet')).map((l) => Number(l.split(' ')[1]));
    const timers = rec.log.filter((l) => l.startsWith('timer')).map((l) => Number(l.split(' ')[1]));
    expect(packets).toEqual(Array.from({ length: 51 }, (_, i) => i));
    expect(timers).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Every timer waits only for the work on the CPU when it came due, never behind the packets queued.
    expect(rec.log.findIndex((l) => l.startsWith('timer 49'))).toBeLessThan(
      rec.log.findIndex((l) => l.startsWith('packet 2 ')),
    );
  });

  it('setSlowCpu(0) restores immediate handling', () => {
    const { clock, proc, rec } = setup(3);
    proc.setSlowCpu(20);
    proc.receivePacket('peer', packet(1));
    clock.advanceTo(10_000);
    expect(rec.log.length).toBe(1);
    proc.setSlowCpu(0);
    proc.receivePacket('peer', packet(2));
    proc.deliver(() => rec.log.push(`work @${clock.now()}`));
    expect(rec.log.slice(1)).toEqual(['packet 2 from peer @10000', 'work @10000']);
    proc.setTimer(5, () => rec.log.push(`timer @${clock.now()}`));
    clock.advanceTo(10_005);
    expect(rec.log.at(-1)).toBe('timer @10005');
  });

  it('setSlowCpu(0) with work still queued keeps FIFO order (new work waits for the backlog)', () => {
    const { clock, proc, rec } = setup(3);
    proc.setSlowCpu(50);
    proc.receivePacket('peer', packet(1));
    proc.receivePacket('peer', packet(2));
    proc.setSlowCpu(0);
    proc.receivePacket('peer', packet(3));
    clock.advanceTo(10_000);
    expect(rec.log.map((l) => l.split(' ')[1])).toEqual(['1', '2', '3']);
  });

  it('a slow CPU holds SOCKET_BUFFER_PACKETS datagrams unread and drops the excess, counted', () => {
    const { clock, proc, rec } = setup(2);
    proc.setSlowCpu(100, true);
    const extra = 9;
    for (let i = 0; i < SOCKET_BUFFER_PACKETS + extra; i++) proc.receivePacket('peer', packet(i));
    expect(proc.bufferDrops).toBe(extra);
    clock.advanceTo(1_000_000);
    // The first ones that arrived were kept, and are handled in order; the last `extra` never are.
    expect(rec.log.map((l) => Number(l.split(' ')[1]))).toEqual(
      Array.from({ length: SOCKET_BUFFER_PACKETS }, (_, i) => i),
    );
    // Worked off, the buffer holds a full load again.
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    expect(proc.bufferDrops).toBe(extra);
  });

  it('a slow CPU drops nothing while its backlog stays within the buffer, which frees as it works', () => {
    const { clock, proc, rec } = setup(8);
    proc.setSlowCpu(100, true);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    expect(proc.bufferDrops).toBe(0);
    while (rec.log.length < 5) clock.advanceTo(clock.now() + 1);
    // Each datagram handled left one place, and only that.
    for (let i = 0; i < 5; i++) proc.receivePacket('peer', packet(1000 + i));
    expect(proc.bufferDrops).toBe(0);
    proc.receivePacket('peer', packet(-1));
    expect(proc.bufferDrops).toBe(1);
    clock.advanceTo(1_000_000);
    expect(rec.log.length).toBe(SOCKET_BUFFER_PACKETS + 5);
  });

  it.each(['paused', 'slow CPU'] as const)(
    'stream messages and timers take no place in the socket buffer and are never dropped (%s)',
    (condition) => {
      const { clock, proc, rec } = setup(7);
      if (condition === 'paused') proc.pause(1000);
      else proc.setSlowCpu(50, true);
      for (let i = 0; i < 100; i++) proc.setTimer(0, () => rec.log.push(`timer ${i} @${clock.now()}`));
      for (let i = 0; i < 200; i++) {
        proc.receivePacket('peer', packet(i));
        proc.deliver(() => rec.core.handleStream('peer', stream(i)));
      }
      for (let i = 200; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
      for (let i = 200; i < 400; i++) proc.deliver(() => rec.core.handleStream('peer', stream(i)));
      expect(proc.bufferDrops).toBe(0);
      proc.receivePacket('peer', packet(-1));
      expect(proc.bufferDrops).toBe(1);
      clock.advanceTo(1_000_000);
      const kinds = (kind: string): number => rec.log.filter((l) => l.startsWith(kind)).length;
      expect([kinds('packet'), kinds('stream'), kinds('timer')]).toEqual([SOCKET_BUFFER_PACKETS, 400, 100]);
    },
  );

  it('what a pause held stays in the buffer after the resume while a slow CPU works it off', () => {
    const { clock, proc, rec } = setup(3);
    proc.setSlowCpu(100, true);
    proc.pause(50);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) arrive(clock, proc, 10, i);
    clock.advanceTo(50);
    expect(proc.state).toBe('running');
    expect(rec.log).toEqual([]);
    proc.receivePacket('peer', packet(-1));
    expect(proc.bufferDrops).toBe(1);
  });

  it('a crash empties the buffer: the next life holds a full load again', () => {
    const { clock, proc } = setup(3);
    proc.setSlowCpu(100, true);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    proc.crash();
    const next = fakeCore(clock, 'new ');
    proc.restart(next.core);
    for (let i = 0; i < SOCKET_BUFFER_PACKETS; i++) proc.receivePacket('peer', packet(i));
    expect(proc.bufferDrops).toBe(0);
    proc.receivePacket('peer', packet(-1));
    expect(proc.bufferDrops).toBe(1);
    clock.advanceTo(1_000_000);
    expect(next.log.length).toBe(SOCKET_BUFFER_PACKETS);
  });
});

function timeOf(line: string): number {
  return Number(line.slice(line.lastIndexOf('@') + 1));
}

// ---------------------------------------------------------------------------------------------------
// planFaults

describe('planFaults', () => {
  const request: FaultRequest = {
    crash: 4,
    pause: { count: 3, durationMs: 2500 },
    partition: { fraction: 0.3, durationMs: 8000 },
  };

  it('is deterministic for a seed and differs between seeds', () => {
    const a = planFaults(request, 40, 60_000, new Random(7), new Set([39]));
    const b = planFaults(request, 40, 60_000, new Random(7), new Set([39]));
    const c = planFaults(request, 40, 60_000, new Random(8), new Set([39]));
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('picks the requested number of distinct members, never the excluded ones', () => {
    for (let seed = 0; seed < 300; seed++) {
      const members = 12;
      const excluded = new Set([11, seed % 11]);
      const plan = planFaults(request, members, 30_000, new Random(seed), excluded);
      expect(plan.crashes.length).toBe(4);
      expect(plan.pauses.length).toBe(3);
      const chosen = [...plan.crashes.map((c) => c.member), ...plan.pauses.map((p) => p.member)];
      expect(new Set(chosen).size).toBe(chosen.length);
      for (const m of chosen) {
        expect(Number.isInteger(m) && m >= 0 && m < members).toBe(true);
        expect(excluded.has(m)).toBe(false);
      }
      for (const p of plan.pauses) expect(p.durationMs).toBe(2500);
      for (const c of plan.crashes) expect(c.restartAtMs).toBeUndefined();
      expect(plan.slowCpus).toEqual([]);
    }
  });

  it('asks for no more members than there are: takes what the pool holds', () => {
    const plan = planFaults(
      { crash: 10, pause: { count: 5, durationMs: 100 } },
      6,
      10_000,
      new Random(1),
      new Set([5]),
    );
    expect(plan.crashes.map((c) => c.member).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(plan.pauses).toEqual([]);
  });

  it('places every fault within [5 %, 33 %] of the run', () => {
    for (const durationMs of [10_000, 37_000, 600_000]) {
      for (let seed = 0; seed < 200; seed++) {
        const plan = planFaults(request, 30, durationMs, new Random(seed), new Set([29]));
        const times = [
          ...plan.crashes.map((c) => c.atMs),
          ...plan.pauses.map((p) => p.atMs),
          ...plan.partitions.map((p) => p.atMs),
        ];
        expect(times.length).toBe(8);
        for (const t of times) {
          expect(t).toBeGreaterThanOrEqual(Math.floor(durationMs * 0.05));
          expect(t).toBeLessThanOrEqual(Math.ceil(durationMs * 0.33));
        }
      }
    }
  });

  it.each([
    [0.3, 30, 9],
    [0.25, 10, 3],
    [0.5, 7, 4],
    [0.1, 4, 0],
    [0.99, 50, 50],
    [0.5, 1000, 500],
  ])(
    'a partition of fraction %f of %i members has round(fraction × members) = %i distinct members on its side',
    (fraction, members, size) => {
      for (let seed = 0; seed < 20; seed++) {
        const plan = planFaults(
          { crash: 0, partition: { fraction, durationMs: 1234 } },
          members,
          20_000,
          new Random(seed),
          new Set(),
        );
        expect(plan.partitions.length).toBe(1);
        const part = plan.partitions[0]!;
        expect(part.side.length).toBe(size);
        expect(new Set(part.side).size).toBe(size);
        for (const m of part.side) expect(m >= 0 && m < members).toBe(true);
        expect(part.durationMs).toBe(1234);
        expect(part.oneWay).toBeUndefined();
      }
    },
  );

  it('plans nothing beyond what was asked', () => {
    const plan = planFaults({ crash: 0 }, 10, 10_000, new Random(1), new Set());
    expect(plan).toEqual({ crashes: [], pauses: [], partitions: [], slowCpus: [] });
  });

  it('never puts an excluded member (the late joiner) on a partition side, so Simulation accepts the plan', () => {
    const failures: string[] = [];
    for (let seed = 0; seed < 30; seed++) {
      const nodes = 10;
      const plan = planFaults(
        { crash: 1, partition: { fraction: 0.3, durationMs: 2000 } },
        nodes,
        5000,
        new Random(seed),
        new Set([nodes - 1]),
      );
      const side = plan.partitions[0]!.side;
      if (side.includes(nodes - 1)) failures.push(`seed ${seed}: side ${JSON.stringify(side)}`);
    }
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// quantiles

describe('quantiles (nearest rank)', () => {
  it.each<[number[], { p50: number; p99: number; max: number }]>([
    [[5], { p50: 5, p99: 5, max: 5 }],
    [[3, 1, 2], { p50: 2, p99: 3, max: 3 }],
    [[4, 4, 1, 1], { p50: 1, p99: 4, max: 4 }],
    [[10, 2, 8, 4, 6, 1, 9, 3, 7, 5], { p50: 5, p99: 10, max: 10 }],
    [Array.from({ length: 100 }, (_, i) => 100 - i), { p50: 50, p99: 99, max: 100 }],
    [Array.from({ length: 200 }, (_, i) => i + 1), { p50: 100, p99: 198, max: 200 }],
    [Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000), { p50: 499, p99: 989, max: 999 }],
    [[-3, 0.5, 2.25], { p50: 0.5, p99: 2.25, max: 2.25 }],
  ])('of %j', (values, expected) => {
    const copy = [...values];
    expect(quantiles(values)).toEqual(expected);
    expect(values).toEqual(copy);
  });

  it('is null for an empty list', () => {
    expect(quantiles([])).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------
// MetricsCollector through a small Simulation, and Simulation's option checks

describe('metrics of a small simulation', () => {
  const faults: Partial<FaultPlan> = {
    crashes: [
      { member: 1, atMs: 10_000 },
      { member: 4, atMs: 12_500 },
    ],
    pauses: [{ member: 2, atMs: 15_000, durationMs: 3000 }],
  };
  const events: Array<{ observer: number; event: MemberEvent }> = [];
  const sim = new Simulation({
    nodes: 8,
    seconds: 60,
    seed: 4,
    faults,
    onEvent: (observer: number, event: SwimEvent) => {
      if (event.type !== 'message') events.push({ observer, event });
    },
  });
  const report = sim.run();

  it('echoes the run and counts the planned crashes, none missed', () => {
    expect(report.nodes).toBe(8);
    expect(report.seconds).toBe(60);
    expect(report.seed).toBe(4);
    expect(report.profile).toBe('lan');
    expect(report.detection.crashed).toBe(2);
    expect(report.detection.missed).toBe(0);
    expect(sim.clock.now()).toBe(60_000);
  });

  it('orders the detection figures: first suspicion <= first death <= all know dead', () => {
    const { firstSuspectMs, firstDeadMs, allKnowDeadMs } = report.detection;
    expect(firstSuspectMs).not.toBeNull();
    expect(firstDeadMs).not.toBeNull();
    expect(allKnowDeadMs).not.toBeNull();
    for (const q of ['p50', 'p99', 'max'] as const) {
      expect(firstSuspectMs![q]).toBeGreaterThan(0);
      expect(firstSuspectMs![q]).toBeLessThanOrEqual(firstDeadMs![q]);
      expect(firstDeadMs![q]).toBeLessThanOrEqual(allKnowDeadMs![q]);
    }
    for (const q of [firstSuspectMs!, firstDeadMs!, allKnowDeadMs!]) {
      expect(q.p50).toBeLessThanOrEqual(q.p99);
      expect(q.p99).toBeLessThanOrEqual(q.max);
    }
  });

  it('matches the detection figures recomputed from the members’ events', () => {
    const firstSuspect: number[] = [];
    const firstDead: number[] = [];
    const allKnow: number[] = [];
    const crashed = new Set(faults.crashes!.map((c) => c.member));
    for (const c of faults.crashes!) {
      const about = events.filter((e) => e.event.member === simName(c.member) && e.event.atMs >= c.atMs);
      const suspects = about.filter((e) => e.event.type === 'suspect').map((e) => e.event.atMs);
      const deaths = about.filter((e) => e.event.type === 'dead');
      firstSuspect.push(Math.min(...suspects) - c.atMs);
      firstDead.push(Math.min(...deaths.map((e) => e.event.atMs)) - c.atMs);
      let last = c.atMs;
      for (let o = 0; o < 8; o++) {
        if (crashed.has(o)) continue;
        const own = deaths.filter((e) => e.observer === o).map((e) => e.event.atMs);
        expect(own.length).toBeGreaterThan(0);
        last = Math.max(last, ...own);
        expect(sim.viewOf(o, c.member)).toBe('dead');
      }
      allKnow.push(last - c.atMs);
    }
    expect(report.detection.firstSuspectMs).toEqual(quantiles(firstSuspect));
    expect(report.detection.firstDeadMs).toEqual(quantiles(firstDead));
    expect(report.detection.allKnowDeadMs).toEqual(quantiles(allKnow));
  });

  it('reports load, join convergence and counts of false positives', () => {
    expect(report.load.msgsPerNodePerSec).toBeGreaterThan(0);
    expect(report.load.bytesPerNodePerSec).toBeGreaterThan(report.load.msgsPerNodePerSec);
    expect(report.convergence.joinAllKnowMs).not.toBeNull();
    expect(report.convergence.joinAllKnowMs!).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(report.falsePositives.suspicions)).toBe(true);
    expect(report.falsePositives.deaths).toBeGreaterThanOrEqual(0);
    expect(report.falsePositives.deaths).toBeLessThanOrEqual(report.falsePositives.suspicions);
    expect(report.wallMs).toBe(0);
    expect(report.eventsPerSec).toBe(0);
    expect(report.peakRssMb).toBe(0);
  });

  it('replays the same report from the same seed', () => {
    const again = new Simulation({ nodes: 8, seconds: 60, seed: 4, faults }).run();
    expect(again).toEqual(report);
  });
});

describe('a slow member in a simulation', () => {
  // A large suspicionMult keeps the cluster from declaring the slow member dead, so traffic keeps coming.
  const run = (meanMs: number, seed = 1): { report: SimulationReport; drops: number[] } => {
    const sim = new Simulation({
      nodes: 30,
      seconds: 40,
      seed,
      config: { suspicionMult: 20 },
      faults: { slowCpus: [{ member: 1, atMs: 5000, durationMs: 35_000, meanMs, timersFirst: true }] },
    });
    const report = sim.run();
    return { report, drops: sim.processes.map((p) => p.bufferDrops) };
  };

  it('drops what overflows the slow member’s socket buffer, and reports it', () => {
    const { report, drops } = run(300);
    expect(drops[1]!).toBeGreaterThan(0);
    expect(drops.filter((d, i) => i !== 1 && d > 0)).toEqual([]);
    expect(report.drops.socketBuffer).toBe(drops[1]);
  });

  it('drops nothing when the slow member keeps up', () => {
    const { report, drops } = run(20);
    expect(drops.every((d) => d === 0)).toBe(true);
    expect(report.drops.socketBuffer).toBe(0);
  });

  it('replays the same drops and report from the same seed', () => {
    const a = run(300, 2);
    expect(a.report.drops.socketBuffer).toBeGreaterThan(0);
    expect(run(300, 2)).toEqual(a);
  });
});

describe('MetricsCollector: resurrections', () => {
  const event = (type: MemberEvent['type'], incarnation: number, atMs: number): MemberEvent => ({
    type,
    member: 'n1',
    address: 'sim-1:7946',
    incarnation,
    previous: type === 'alive' ? 'dead' : 'alive',
    atMs,
    wallMs: atMs,
    cause: type === 'alive' ? 'rejoined' : 'dead-gossip',
    confirmations: 0,
    localHealth: 0,
  });

  it('counts an alive from an observer that held the life that ended dead, and nothing else', () => {
    let up = true;
    const metrics = new MetricsCollector(4, {
      isUp: (m) => m !== 1 || up,
      lifeIncarnation: () => 3,
      indexOf: (name) => Number(name.slice(1)),
    });
    metrics.record(0, event('alive', 3, 100)); // not crashed yet
    up = false;
    metrics.crashed(1, 1000, 5);
    metrics.record(0, event('dead', 5, 2000));
    metrics.record(0, event('alive', 5, 3000)); // held that life dead: a ghost
    metrics.record(2, event('alive', 5, 3000)); // never held it dead: old news, not a revival
    metrics.record(3, event('dead', 4, 2500)); // an earlier life's death, caught up on late
    metrics.record(3, event('alive', 5, 3000));
    expect(metrics.resurrections).toBe(1);
    up = true;
    metrics.restarted(1);
    metrics.record(0, event('alive', 6, 9000)); // its next life
    expect(metrics.resurrections).toBe(1);
  });
});

describe('Simulation option checks', () => {
  const base: SimulationOptions = { nodes: 8, seconds: 10, seed: 1 };

  function rejects(options: unknown, option: string, code = 'FDKIT_INVALID_OPTION'): void {
    let caught: unknown;
    try {
      new Simulation(options as SimulationOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidOptionError);
    expect((caught as InvalidOptionError).option).toBe(option);
    expect((caught as InvalidOptionError).code).toBe(code);
    expect((caught as InvalidOptionError).message).toContain(option);
  }

  it.each([1, 0, -5, 20_001, 2.5, Number.NaN])('rejects nodes = %d', (nodes) => {
    rejects({ ...base, nodes }, 'nodes');
  });

  it('rejects seconds and seed out of range', () => {
    rejects({ ...base, seconds: 0 }, 'seconds');
    rejects({ ...base, seed: -1 }, 'seed');
    rejects({ ...base, seed: 1.5 }, 'seed');
  });

  it('rejects a fault that names the late joiner', () => {
    rejects({ ...base, faults: { crashes: [{ member: 7, atMs: 1000 }] } }, 'faults.crashes');
    rejects({ ...base, faults: { pauses: [{ member: 7, atMs: 1000, durationMs: 100 }] } }, 'faults.pauses');
    rejects(
      { ...base, faults: { partitions: [{ atMs: 1000, durationMs: 100, side: [0, 7] }] } },
      'faults.partitions',
    );
    rejects(
      { ...base, faults: { slowCpus: [{ member: 7, atMs: 1000, durationMs: 100, meanMs: 5 }] } },
      'faults.slowCpus',
    );
  });

  it.each([-1, 1.5, 2 ** 32])('rejects a restart from incarnation %d', (restartIncarnation) => {
    rejects(
      { ...base, faults: { crashes: [{ member: 1, atMs: 1000, restartAtMs: 2000, restartIncarnation }] } },
      'faults.crashes.restartIncarnation',
    );
  });

  it('accepts the last member in faults when there is no late joiner', () => {
    expect(
      () => new Simulation({ ...base, lateJoiner: false, faults: { crashes: [{ member: 7, atMs: 1000 }] } }),
    ).not.toThrow();
  });

  it.each([-1, 8, 100, 1.5])('rejects a fault naming member %d, out of range', (member) => {
    rejects({ ...base, lateJoiner: false, faults: { crashes: [{ member, atMs: 1000 }] } }, 'faults.crashes');
    rejects(
      { ...base, faults: { partitions: [{ atMs: 1, durationMs: 1, side: [member] }] } },
      'faults.partitions',
    );
  });

  it('rejects an unknown option', () => {
    rejects({ ...base, node: 8 }, 'node', 'FDKIT_UNKNOWN_OPTION');
  });

  it('rejects a profile that does not exist', () => {
    rejects({ ...base, profile: 'mars' }, 'profile');
  });
});

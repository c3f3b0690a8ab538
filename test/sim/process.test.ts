/**
 * The simulated process (`SimProcess`) around a fake core: delivery, pauses, slow CPUs, the socket buffer.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { SimProcess, SOCKET_BUFFER_PACKETS } from '../../src/sim/process.js';
import type { SwimCore } from '../../src/swim/core.js';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';

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

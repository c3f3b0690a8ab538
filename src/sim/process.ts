/**
 * A simulated member process: the unchanged SWIM core, behind a clock and an inbox that model what a
 * real process goes through.
 * - pause (a long GC, SIGSTOP): its timers fire late, at the resume; packets wait in the socket buffer;
 * - crash: everything stops and arrives nowhere; a restart is a new core under the same name, with a
 *   new incarnation from the wall clock, joining through its seeds;
 * - slow CPU: every timer and packet waits its turn behind the previous ones, each taking an
 *   exponentially distributed time to process; in one queue (FIFO), or, with `timersFirst`, timers that
 *   came due ahead of packets that arrived, as Node's event loop runs expired timers before it polls the
 *   sockets: a starved member's probe then times out although the ack is waiting in its socket buffer.
 *
 * A datagram takes a place in the socket buffer from its arrival until the core has handled it (the one
 * on the CPU keeps its place, which simplifies by one of 256), whether the process is paused or its CPU
 * is behind; the buffer holds {@link SOCKET_BUFFER_PACKETS} and the kernel drops what arrives beyond.
 * Stream messages never take a datagram's place and are never dropped: TCP's flow control holds them
 * (in the connection's buffers, then at the sender) until the process reads them, so here they wait in
 * the same queues, unbounded.
 */
import type { Clock, Timer } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { VirtualClock } from '../runtime/virtual-clock.js';
import type { SwimCore } from '../swim/core.js';
import type { Packet } from '../swim/messages.js';

/** Datagrams a process holds unread before its socket buffer overflows (about Linux's 208 KiB default). */
export const SOCKET_BUFFER_PACKETS = 256;

type Work = () => void;

/** Lifecycle of a simulated process. */
export type ProcessState = 'running' | 'paused' | 'crashed';

/**
 * One member's process in a {@link Simulation}, as `Simulation.processes` lists them: the clock its core
 * runs on, and the faults the simulation applies to it. Read `core`, `state` and `bufferDrops` to
 * inspect a run; the simulation drives the rest.
 */
export class SimProcess implements Clock {
  /** The member's protocol core; replaced on restart. */
  core: SwimCore | undefined;
  /** Whether it runs, is frozen by a pause fault, or is down after a crash. */
  state: ProcessState = 'running';
  /** While crashed: whether its host is up, so that connections to its port are refused. */
  hostUp = false;
  /** Incremented on crash, so that timers of a previous life never fire into the next one. */
  private generation = 0;
  // Work that came due while paused: timers and network arrivals, each in order.
  private readonly deferredTimers: Work[] = [];
  private readonly deferredPackets: Work[] = [];
  /** Datagrams that arrived and that the core has not handled yet: the socket buffer's content. */
  private unreadPackets = 0;
  private slowMeanMs = 0;
  private cpuQueue: Work[] = [];
  /** Timers waiting for the CPU while `timersFirst`: they run before anything in `cpuQueue`. */
  private timerQueue: Work[] = [];
  private timersFirst = false;
  private cpuBusy = false;
  /** Datagrams dropped because the socket buffer was full (the process paused, or its CPU behind). */
  bufferDrops = 0;

  constructor(
    /** The member's index in the simulation (named `n<index>`). */
    readonly index: number,
    private readonly clock: VirtualClock,
    private readonly random: Random,
  ) {}

  now(): number {
    return this.clock.now();
  }

  wallNow(): number {
    return this.clock.wallNow();
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    return this.clock.setTimerWith(delayMs, SimProcess.fireTimer, this, callback, this.generation);
  }

  private static fireTimer(process: SimProcess, callback: Work, generation: number): void {
    if (generation === process.generation) process.run(callback, false);
  }

  /** @internal Delivers a datagram from `from`: the simulator's callback for a packet in flight. */
  static receivePacket(process: SimProcess, from: string, packet: Packet): void {
    process.receivePacket(from, packet);
  }

  /** @internal Delivers a datagram from `from`, or drops it when the socket buffer is full. */
  receivePacket(from: string, packet: Packet): void {
    if (this.state === 'running' && this.slowMeanMs <= 0 && !this.cpuBusy) {
      this.core?.handlePacket(from, packet);
      return;
    }
    if (this.state === 'crashed') return;
    if (this.unreadPackets >= SOCKET_BUFFER_PACKETS) {
      this.bufferDrops++;
      return;
    }
    this.unreadPackets++;
    this.run(() => {
      this.unreadPackets--;
      this.core?.handlePacket(from, packet);
    }, true);
  }

  /**
   * @internal Delivers a stream message (`work` handles it): it waits its turn as a datagram does, never
   * dropped.
   */
  deliver(work: Work): void {
    this.run(work, true);
  }

  /** @internal Freezes the process; it resumes by itself after `durationMs`. */
  pause(durationMs: number): void {
    if (this.state !== 'running') return;
    this.state = 'paused';
    const generation = this.generation;
    this.clock.setTimer(durationMs, () => {
      if (generation === this.generation) this.resume();
    });
  }

  /**
   * @internal Kills the process (its host stays up with `hostUp`, or goes down with it): pending work is
   * lost.
   */
  crash(hostUp = false): void {
    this.core?.stop();
    this.state = 'crashed';
    this.hostUp = hostUp;
    this.generation++;
    this.deferredTimers.length = 0;
    this.deferredPackets.length = 0;
    this.cpuQueue = [];
    this.timerQueue = [];
    this.cpuBusy = false;
    this.unreadPackets = 0;
  }

  /** @internal Brings a crashed process back with a fresh core. */
  restart(core: SwimCore): void {
    this.state = 'running';
    this.core = core;
  }

  /**
   * Makes every later piece of work take an exponential time of mean `meanMs` (0: a normal CPU). With
   * `timersFirst`, timers waiting for the CPU run before packets waiting for it (Node's timers phase
   * comes before its poll phase); otherwise work runs in the order it came due.
   *
   * @internal
   */
  setSlowCpu(meanMs: number, timersFirst = false): void {
    this.slowMeanMs = meanMs;
    this.timersFirst = timersFirst;
  }

  private resume(): void {
    this.state = 'running';
    // Node runs expired timers before it polls the sockets.
    const work = [...this.deferredTimers, ...this.deferredPackets];
    const timers = this.deferredTimers.length;
    this.deferredTimers.length = 0;
    this.deferredPackets.length = 0;
    for (let i = 0; i < work.length; i++) this.execute(work[i]!, i >= timers);
    if (!this.cpuBusy && this.cpuQueue.length + this.timerQueue.length > 0) this.nextOnCpu();
  }

  private run(work: Work, fromNetwork: boolean): void {
    if (this.state === 'crashed') return;
    if (this.state === 'paused') {
      (fromNetwork ? this.deferredPackets : this.deferredTimers).push(work);
      return;
    }
    this.execute(work, fromNetwork);
  }

  private execute(work: Work, fromNetwork: boolean): void {
    // A CPU back to normal still works off its backlog first, in order.
    if (this.slowMeanMs <= 0 && !this.cpuBusy) {
      work();
      return;
    }
    (this.timersFirst && !fromNetwork ? this.timerQueue : this.cpuQueue).push(work);
    if (!this.cpuBusy) this.nextOnCpu();
  }

  private nextOnCpu(): void {
    const queue = this.timerQueue.length > 0 ? this.timerQueue : this.cpuQueue;
    const work = queue.shift();
    if (work === undefined) {
      this.cpuBusy = false;
      return;
    }
    this.cpuBusy = true;
    const generation = this.generation;
    const cost = -this.slowMeanMs * Math.log(1 - this.random.next());
    this.clock.setTimer(cost, () => {
      if (generation !== this.generation) return;
      if (this.state === 'paused') {
        queue.unshift(work);
        this.cpuBusy = false;
        return;
      }
      work();
      this.nextOnCpu();
    });
  }
}

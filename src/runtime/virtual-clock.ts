/**
 * Virtual time for tests and the simulator: time moves only when the owner advances it, and timers fire in
 * (due time, scheduling order), so a run is a pure function of its inputs and seed.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Clock, Timer } from './clock.js';
import { type TimerCallback, TimerQueue } from './timer-queue.js';

/** Options of {@link VirtualClock}. */
export interface VirtualClockOptions {
  /** Monotonic time at the start, in ms. Default 0. */
  readonly startMs?: number;
  /** Wall time (Unix ms) that corresponds to `startMs`. Default 1,700,000,000,000 (November 2023). */
  readonly wallStartMs?: number;
}

/**
 * A {@link Clock} whose time is advanced by hand.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * clock.setTimer(100, () => console.log('fired at', clock.now()));
 * clock.advance(250); // prints "fired at 100"; clock.now() is then 250
 * ```
 */
export class VirtualClock implements Clock {
  private nowMs: number;
  private readonly wallOffsetMs: number;
  private readonly queue = new TimerQueue();

  constructor(options: VirtualClockOptions = {}) {
    this.nowMs = options.startMs ?? 0;
    this.wallOffsetMs = (options.wallStartMs ?? 1_700_000_000_000) - this.nowMs;
  }

  now(): number {
    return this.nowMs;
  }

  wallNow(): number {
    return this.nowMs + this.wallOffsetMs;
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    if (Number.isNaN(delayMs))
      throw new InvalidArgumentError('delayMs', 'setTimer: delayMs must be a number, got NaN');
    return this.queue.push(this.nowMs + Math.max(0, delayMs), callback);
  }

  /**
   * Like {@link VirtualClock.setTimer}, for `callback(a, b, c)`: the arguments are stored with the timer
   * instead of captured by a closure, which spares the simulator an allocation per packet in flight.
   */
  setTimerWith<A, B, C>(delayMs: number, callback: (a: A, b: B, c: C) => void, a: A, b: B, c: C): Timer {
    if (Number.isNaN(delayMs))
      throw new InvalidArgumentError('delayMs', 'setTimer: delayMs must be a number, got NaN');
    // The queue stores arguments untyped; they go back to the callback that was given them.
    return this.queue.push(this.nowMs + Math.max(0, delayMs), callback as TimerCallback, a, b, c);
  }

  /** Due time of the earliest pending timer, or undefined when none is pending. */
  nextDueMs(): number | undefined {
    return this.queue.peek()?.dueMs;
  }

  /**
   * Fires the earliest pending timer, moving time to its due time. Returns false when nothing is pending.
   */
  runNext(): boolean {
    const timer = this.queue.peek();
    if (timer === undefined) return false;
    this.queue.pop();
    this.nowMs = Math.max(this.nowMs, timer.dueMs);
    timer.fire();
    return true;
  }

  /**
   * Moves time to `targetMs`, firing every timer due up to and including it (timers scheduled meanwhile
   * included). Returns the number of timers fired.
   */
  advanceTo(targetMs: number): number {
    if (!Number.isFinite(targetMs) || targetMs < this.nowMs) {
      throw new InvalidArgumentError(
        'targetMs',
        `advanceTo: targetMs must be a finite number >= now (${this.nowMs}), got ${targetMs}`,
      );
    }
    let fired = 0;
    for (
      let next = this.queue.peek();
      next !== undefined && next.dueMs <= targetMs;
      next = this.queue.peek()
    ) {
      this.runNext();
      fired++;
    }
    this.nowMs = targetMs;
    return fired;
  }

  /** Moves time forward by `ms` (at least 0); see {@link VirtualClock.advanceTo}. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new InvalidArgumentError('ms', `advance: ms must be a finite number >= 0, got ${ms}`);
    }
    return this.advanceTo(this.nowMs + ms);
  }
}

/**
 * The one file that touches the host's time, timers and entropy. Everything else receives a
 * {@link Clock} or a seed, which is what lets the same protocol code run under the simulator's virtual
 * time and be replayed from a seed. The tidy test enforces this.
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Clock, Timer } from './clock.js';

/** Options of {@link createSystemClock}. */
export interface SystemClockOptions {
  /** When true, pending timers do not keep the process alive. Default false. */
  readonly unrefTimers?: boolean;
}

/** A {@link Clock} on `performance.now()`, `Date.now()` and the host's timers. */
export function createSystemClock(options: SystemClockOptions = {}): Clock {
  const unref = options.unrefTimers === true;
  return {
    now: () => performance.now(),
    wallNow: () => Date.now(),
    setTimer(delayMs: number, callback: () => void): Timer {
      // Node dates timeouts in whole milliseconds, so a bare setTimeout can fire up to 1 ms early by
      // performance.now(), and a caller that measures a duration with now() would see it short.
      // Rearming for the remainder keeps the contract "not before delayMs".
      const dueMs = performance.now() + Math.max(0, delayMs);
      let handle: NodeJS.Timeout;
      const arm = (ms: number): void => {
        handle = setTimeout(fire, ms);
        if (unref) handle.unref();
      };
      const fire = (): void => {
        const leftMs = dueMs - performance.now();
        if (leftMs > 0) arm(Math.ceil(leftMs));
        else callback();
      };
      arm(Math.max(0, delayMs));
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

/** The shared system clock, used when a component is given no clock. */
export const systemClock: Clock = createSystemClock();

/** A fresh 32-bit seed from the operating system's entropy, for runs that need not be replayed. */
export function entropySeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

/**
 * Fills `bytes` from the operating system's cryptographic generator: the nonces of encrypted packets,
 * which must never repeat under one key and so cannot come from a seeded generator.
 */
export function fillSecureRandom(bytes: Uint8Array): void {
  randomFillSync(bytes);
}

/** Starts a stopwatch on the host's monotonic clock; calling the result gives the elapsed ms. */
export function stopwatch(): () => number {
  const start = performance.now();
  return () => performance.now() - start;
}

/**
 * Node-native local health for Lifeguard: a member whose garbage collector stops it for long is the
 * likely cause of the silences it observes, so it should accuse others less readily. Lifeguard infers
 * that from missed nacks and refutations, after the fact; inside one Node process the pauses can be read
 * directly (GC performance entries) and fed to the awareness score before the member convicts anyone.
 *
 * Event-loop delay is measured by the protocol itself, from how late its own timers fire (`noteTimer` in
 * `src/swim/core.ts`), which also works in the simulator and costs no timer. `monitorEventLoopDelay` was
 * tried first and dropped: on Node 20 its histogram missed a 400 ms stall (its maximum stayed at the
 * resolution), and a fine resolution wakes an idle member dozens of times a second.
 *
 * Samples are read on events the member handles anyway (every datagram), at most twice a probe interval.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { InvalidOptionError } from '../errors.js';
import { checkNumber, describeReceived } from '../options.js';

/** Where pauses come from; the default reads the process's GC entries, tests inject their own. */
export interface StressSource {
  /** The longest pause, in ms, since the previous call. */
  sample(): number;
  /** Stops observing; called once, when the member stops. */
  close(): void;
}

/**
 * The `localHealth` option of `createNode` and `createHeartbeatMonitor`: `false` turns the GC part off;
 * `thresholdMs` is the pause that counts as stress, `source` replaces the GC entries (tests).
 */
export type LocalHealthOption =
  | false
  | {
      /**
       * A GC pause longer than this, in ms, is stress, one level more per further multiple. In [1, 600,000];
       * default half the probe timeout (a node) or half the interval (a heartbeat monitor).
       */
      readonly thresholdMs?: number;
      /** Where pauses are read from. Default the process's GC performance entries. */
      readonly source?: StressSource;
    };

/** Checks a `localHealth` option of `owner` (undefined is the default), naming it in the error. */
export function checkLocalHealthOption(owner: string, health: LocalHealthOption | undefined): void {
  if (health === undefined || health === false) return;
  if (typeof health !== 'object' || health === null) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'localHealth',
      `${owner}: option localHealth must be false or { thresholdMs?, source? }, got ${describeReceived(health)}`,
    );
  }
  if (health.thresholdMs !== undefined) {
    checkNumber(owner, 'localHealth.thresholdMs', health.thresholdMs, { min: 1, max: 600_000 });
  }
}

/** The process's garbage-collection pauses. */
export function gcStressSource(): StressSource {
  let longestMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestMs = Math.max(longestMs, entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    sample: () => {
      const pause = longestMs;
      longestMs = 0;
      return pause;
    },
    close: () => observer.disconnect(),
  };
}

/**
 * Turns samples into stress reports: a pause above `thresholdMs` is one level of stress, and one more for
 * each further multiple of it, at most 4 (a 2 s pause at a 250 ms threshold is severe, a 300 ms one mild).
 */
export class LocalHealthMonitor {
  private lastSampleMs = Number.NEGATIVE_INFINITY;
  /** Stress reports made, and the longest pause seen. */
  reports = 0;
  longestPauseMs = 0;

  constructor(
    private readonly source: StressSource,
    private readonly thresholdMs: number,
    private readonly everyMs: number,
    private readonly report: (severity: number) => void,
  ) {}

  /** Samples when the last sample is at least `everyMs` old. */
  poll(nowMs: number): void {
    if (nowMs - this.lastSampleMs < this.everyMs) return;
    this.lastSampleMs = nowMs;
    const pauseMs = this.source.sample();
    this.longestPauseMs = Math.max(this.longestPauseMs, pauseMs);
    if (pauseMs <= this.thresholdMs) return;
    this.reports++;
    this.report(Math.min(4, Math.floor(pauseMs / this.thresholdMs)));
  }

  close(): void {
    this.source.close();
  }
}

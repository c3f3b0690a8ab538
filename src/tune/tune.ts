/**
 * Tuning detectors on a trace: every setting of a sweep (`grid.ts`) is replayed over the trace
 * ({@link replayTrace}) and measured by the QoS metrics of Chen, Toueg and Aguilera
 * ({@link qosMetrics}); per family, the settings that no other setting beats on both detection time
 * and mistakes form the Pareto frontier (`frontier.ts`), and the recommendation is picked by the rule of
 * {@link TuneOptions}.
 *
 * Detection time here is one statistic of T_D over a crash right after each heartbeat: the maximum by
 * default (the bound T_D^U of the paper, on this trace), or the 99th percentile or the mean.
 */

import { InvalidArgumentError } from '../errors.js';
import { checkChoice, checkKnownKeys, checkNumber } from '../options.js';
import type { QosMetrics } from '../qos/metrics.js';
import { qosMetrics } from '../qos/metrics.js';
import { prepareTrace, replayTrace } from '../trace/replay.js';
import { summarizeTrace, type TraceSummary } from '../trace/summary.js';
import type { Trace } from '../trace/trace.js';
import {
  createDetector,
  DETECTOR_FAMILIES,
  type DetectorConfig,
  type DetectorFamily,
} from './detector-config.js';
import { paretoFrontier } from './frontier.js';
import { defaultGrid } from './grid.js';

/** Which statistic of T_D is compared with the target and plotted. */
export type DetectionStat = 'max' | 'p99' | 'mean';

/** Options of {@link tuneDetectors}. */
export interface TuneOptions {
  /**
   * The detection time to meet, in ms. With it, the recommendation is the setting with the fewest
   * mistakes among those that detect within it (then the fastest, then the most accurate).
   */
  readonly targetDetectionMs?: number;
  /**
   * The most mistakes per hour to accept. With a target, one more condition; without one, the
   * recommendation is the fastest setting within this bound. Without either, the bound is 0: the fastest
   * setting that made no mistake on the trace.
   */
  readonly maxMistakesPerHour?: number;
  /** The statistic of T_D over the trace's heartbeats that is compared and plotted. Default `'max'`. */
  readonly detectionStat?: DetectionStat;
  /** The settings to try. Default {@link defaultGrid} for the trace's interval. */
  readonly configs?: readonly DetectorConfig[];
  /** Called after each setting is measured. */
  readonly onProgress?: (progress: TuneProgress) => void;
}

/** What {@link TuneOptions.onProgress} receives. */
export interface TuneProgress {
  /** Settings measured so far, this one included. */
  readonly done: number;
  /** Settings to measure in all. */
  readonly total: number;
  /** The family of the setting just measured. */
  readonly family: DetectorFamily;
}

/** One setting and how it did. */
export interface TuneCandidate {
  /** The setting. */
  readonly config: DetectorConfig;
  /** Chen, Toueg and Aguilera's QoS metrics of the setting over the trace. */
  readonly qos: QosMetrics;
  /** The chosen statistic of T_D, in ms. */
  readonly detectionMs: number;
}

/** What {@link tuneDetectors} found. */
export interface TuneResult {
  /** The trace the settings were measured over. */
  readonly trace: TraceSummary;
  /** The statistic of T_D compared and plotted, {@link TuneOptions.detectionStat}. */
  readonly detectionStat: DetectionStat;
  /** The detection time to meet, in ms; null when none was given. */
  readonly targetDetectionMs: number | null;
  /** The most mistakes per hour accepted; null when none was given (then 0 applies without a target). */
  readonly maxMistakesPerHour: number | null;
  /** The rule the recommendation follows, in words. */
  readonly rule: string;
  /** Every setting tried, in the order tried. */
  readonly candidates: readonly TuneCandidate[];
  /** Per family, its Pareto frontier by detection time, fastest first. */
  readonly frontiers: Readonly<Record<DetectorFamily, readonly TuneCandidate[]>>;
  /** Per family, the setting the rule picks within it; null when none of it qualifies. */
  readonly best: Readonly<Record<DetectorFamily, TuneCandidate | null>>;
  /** The setting the rule picks among all; null when none qualifies. */
  readonly recommendation: TuneCandidate | null;
}

const OWNER = 'tuneDetectors';

/**
 * Sweeps detector settings over a trace and recommends one.
 *
 * @example
 * ```ts
 * const result = tuneDetectors(trace, { targetDetectionMs: 5000 });
 * result.recommendation?.config; // e.g. { family: 'phi-normal', threshold: 3, ... }
 * result.recommendation?.qos.mistakesPerHour;
 * ```
 * @throws `InvalidOptionError` for bad options; `InvalidArgumentError` for a trace with fewer than two
 *   heartbeats; `TraceFormatError` for a malformed trace.
 */
export function tuneDetectors(trace: Trace, options: TuneOptions = {}): TuneResult {
  checkKnownKeys(OWNER, options, [
    'targetDetectionMs',
    'maxMistakesPerHour',
    'detectionStat',
    'configs',
    'onProgress',
  ]);
  const target =
    options.targetDetectionMs === undefined
      ? null
      : checkNumber(OWNER, 'targetDetectionMs', options.targetDetectionMs, { min: 0, minExclusive: true });
  const bound =
    options.maxMistakesPerHour === undefined
      ? null
      : checkNumber(OWNER, 'maxMistakesPerHour', options.maxMistakesPerHour, { min: 0 });
  const stat = checkChoice(OWNER, 'detectionStat', options.detectionStat ?? 'max', ['max', 'p99', 'mean']);
  const prepared = prepareTrace(trace);
  if (prepared.arrivalMs.length < 2) {
    throw new InvalidArgumentError('trace', `${OWNER}: the trace needs at least two heartbeats to tune on`);
  }
  const intervalMs = trace.header.intervalMs;
  const configs = options.configs ?? defaultGrid(intervalMs);

  const candidates: TuneCandidate[] = [];
  for (const config of configs) {
    const qos = qosMetrics(replayTrace(prepared, createDetector(config, intervalMs)));
    // At least two heartbeats, so the distribution exists.
    candidates.push({ config, qos, detectionMs: qos.detectionMs![stat] });
    options.onProgress?.({ done: candidates.length, total: configs.length, family: config.family });
  }

  const rule = ruleOf(target, bound);
  const frontiers = {} as Record<DetectorFamily, TuneCandidate[]>;
  const best = {} as Record<DetectorFamily, TuneCandidate | null>;
  for (const family of DETECTOR_FAMILIES) {
    const own = candidates.filter((c) => c.config.family === family);
    frontiers[family] = paretoFrontier(own);
    best[family] = rule.pick(own);
  }
  return {
    trace: summarizeTrace(trace),
    detectionStat: stat,
    targetDetectionMs: target,
    maxMistakesPerHour: bound,
    rule: rule.text,
    candidates,
    frontiers,
    best,
    recommendation: rule.pick(candidates),
  };
}

interface Rule {
  readonly text: string;
  pick(candidates: readonly TuneCandidate[]): TuneCandidate | null;
}

/** Compares by mistakes, then detection time, then accuracy. */
function fewestMistakes(a: TuneCandidate, b: TuneCandidate): number {
  return (
    a.qos.mistakes - b.qos.mistakes ||
    a.detectionMs - b.detectionMs ||
    b.qos.queryAccuracy - a.qos.queryAccuracy
  );
}

/** Compares by detection time, then mistakes, then accuracy. */
function fastest(a: TuneCandidate, b: TuneCandidate): number {
  return (
    a.detectionMs - b.detectionMs ||
    a.qos.mistakes - b.qos.mistakes ||
    b.qos.queryAccuracy - a.qos.queryAccuracy
  );
}

function ruleOf(target: number | null, bound: number | null): Rule {
  const maxRate = bound ?? (target === null ? 0 : Number.POSITIVE_INFINITY);
  const order = target === null ? fastest : fewestMistakes;
  const conditions = [
    ...(target === null ? [] : [`detects within ${target} ms`]),
    ...(maxRate === Number.POSITIVE_INFINITY ? [] : [`makes at most ${maxRate} mistakes per hour`]),
  ];
  const text =
    target === null
      ? `the fastest setting that ${conditions.join(' and ')}`
      : `the setting with the fewest mistakes (then the fastest) that ${conditions.join(' and ')}`;
  return {
    text,
    pick(candidates) {
      let chosen: TuneCandidate | null = null;
      for (const c of candidates) {
        if (target !== null && !(c.detectionMs <= target)) continue;
        if (!(c.qos.mistakesPerHour <= maxRate)) continue;
        // Strictly better only: among equals, the first tried stays, so results do not depend on sorting.
        if (chosen === null || order(c, chosen) < 0) chosen = c;
      }
      return chosen;
    },
  };
}

/**
 * `report.json` of `fdkit tune`: everything the HTML report shows, for programs. Every candidate is
 * listed with its parameters and its full metrics; times are milliseconds, and a detection time that is
 * infinite (a setting that would never suspect) is written as null, as JSON has no infinity.
 */

import type { Trace } from '../../trace/trace.js';
import { DETECTOR_FAMILIES, type DetectorConfig, describeConfig } from '../../tune/detector-config.js';
import type { TuneCandidate, TuneResult } from '../../tune/tune.js';

/** One candidate as written: the family, its parameters, a description and the metrics. */
export interface CandidateJson {
  readonly family: DetectorConfig['family'];
  readonly parameters: Readonly<Record<string, number>>;
  readonly description: string;
  readonly detectionMs: number;
  readonly qos: TuneCandidate['qos'];
}

function candidateJson(c: TuneCandidate): CandidateJson {
  const { family, ...parameters } = c.config;
  return {
    family,
    parameters,
    description: describeConfig(c.config),
    detectionMs: c.detectionMs,
    qos: c.qos,
  };
}

/** What `report.json` holds. */
export interface TuneReportJson {
  readonly fdkit: string;
  readonly trace: {
    readonly file: string;
    readonly header: Trace['header'];
    readonly summary: TuneResult['trace'];
  };
  readonly detectionStat: TuneResult['detectionStat'];
  readonly targetDetectionMs: number | null;
  readonly maxMistakesPerHour: number | null;
  readonly rule: string;
  readonly recommendation: CandidateJson | null;
  readonly best: Readonly<Record<string, CandidateJson | null>>;
  readonly frontiers: Readonly<Record<string, readonly CandidateJson[]>>;
  readonly candidates: readonly CandidateJson[];
  readonly run: { readonly settings: number; readonly wallMs: number };
}

/** The report as an object. */
export function tuneReportJson(
  result: TuneResult,
  trace: Trace,
  file: string,
  version: string,
  wallMs: number,
): TuneReportJson {
  const best: Record<string, CandidateJson | null> = {};
  const frontiers: Record<string, CandidateJson[]> = {};
  for (const family of DETECTOR_FAMILIES) {
    const b = result.best[family];
    best[family] = b === null ? null : candidateJson(b);
    frontiers[family] = result.frontiers[family].map(candidateJson);
  }
  return {
    fdkit: version,
    trace: { file, header: trace.header, summary: result.trace },
    detectionStat: result.detectionStat,
    targetDetectionMs: result.targetDetectionMs,
    maxMistakesPerHour: result.maxMistakesPerHour,
    rule: result.rule,
    recommendation: result.recommendation === null ? null : candidateJson(result.recommendation),
    best,
    frontiers,
    candidates: result.candidates.map(candidateJson),
    run: { settings: result.candidates.length, wallMs: Math.round(wallMs) },
  };
}

/** JSON text of the report: numbers rounded to the microsecond (or 9 digits for ratios), indented. */
export function formatReportJson(report: TuneReportJson): string {
  return `${JSON.stringify(report, roundNumbers, 1)}\n`;
}

function roundNumbers(_key: string, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  if (!Number.isFinite(value)) return null;
  if (Number.isInteger(value)) return value;
  return Math.abs(value) >= 1 ? Math.round(value * 1000) / 1000 : Number(value.toPrecision(9));
}

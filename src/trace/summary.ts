/**
 * What a trace says about the network and the sender, before any detector looks at it: how many
 * heartbeats came, how many were lost (gaps in the sequence numbers), how far apart they arrived, how
 * long they took when send times are known, and the longest silence. Reports show it beside the detector
 * metrics, so that a recommendation can be read against the conditions it was made for.
 */
import { type Distribution, distribution } from './distribution.js';
import { prepareTrace } from './replay.js';
import type { Trace } from './trace.js';

/** A summary of a trace; times in ms. */
export interface TraceSummary {
  /** Whether the trace was generated (`generateTrace`) or recorded from real members (`recordTraces`). */
  readonly source: 'generated' | 'recorded';
  /** The sender's heartbeat interval from the header, in ms. */
  readonly intervalMs: number;
  /** The length of the observation from the header, in ms. */
  readonly durationMs: number;
  /** When the sender crashed, in ms since the start; null when it did not or it is not known. */
  readonly crashAtMs: number | null;
  /** Arrival lines. */
  readonly arrivals: number;
  /** Heartbeats a detector is fed: arrivals less duplicates and reordered ones. */
  readonly heartbeats: number;
  /** Arrivals ignored as duplicated or overtaken. */
  readonly stale: number;
  /** Sequence numbers never seen between the first and the last of each life of the sender. */
  readonly lost: number;
  /** lost / (heartbeats seen + lost). */
  readonly lossRate: number;
  /** Time between consecutive accepted heartbeats. */
  readonly gapMs: Distribution | null;
  /** The longest silence between heartbeats, and when it began. */
  readonly longestGap: {
    /** The arrival the silence began with, in ms since the start of the trace. */
    readonly atMs: number;
    /** The silence's length, in ms. */
    readonly ms: number;
  } | null;
  /** One-way delay (arrival − sent), when the trace knows send times. */
  readonly delayMs: Distribution | null;
}

/** Summarizes a trace. */
export function summarizeTrace(trace: Trace): TraceSummary {
  const prepared = prepareTrace(trace);
  const { arrivalMs } = prepared;
  const n = arrivalMs.length;
  const gaps = new Float64Array(Math.max(0, n - 1));
  let longestGap: { atMs: number; ms: number } | null = null;
  for (let i = 1; i < n; i++) {
    const gap = arrivalMs[i]! - arrivalMs[i - 1]!;
    gaps[i - 1] = gap;
    if (longestGap === null || gap > longestGap.ms) longestGap = { atMs: arrivalMs[i - 1]!, ms: gap };
  }

  // Per life, the sequence numbers seen (duplicates once) against the range they span.
  const seen = new Map<number, { min: number; max: number; seqs: Set<number> }>();
  const delays: number[] = [];
  for (const a of trace.arrivals) {
    const life = a.life ?? 0;
    let entry = seen.get(life);
    if (entry === undefined) {
      entry = { min: a.seq, max: a.seq, seqs: new Set() };
      seen.set(life, entry);
    }
    entry.min = Math.min(entry.min, a.seq);
    entry.max = Math.max(entry.max, a.seq);
    entry.seqs.add(a.seq);
    if (a.sent !== undefined) delays.push(a.t - a.sent);
  }
  let lost = 0;
  let distinct = 0;
  for (const entry of seen.values()) {
    lost += entry.max - entry.min + 1 - entry.seqs.size;
    distinct += entry.seqs.size;
  }

  const header = trace.header;
  return {
    source: header.source,
    intervalMs: header.intervalMs,
    durationMs: header.durationMs,
    crashAtMs: header.crashAtMs ?? null,
    arrivals: trace.arrivals.length,
    heartbeats: n,
    stale: prepared.stale,
    lost,
    lossRate: distinct + lost > 0 ? lost / (distinct + lost) : 0,
    gapMs: distribution(gaps),
    longestGap,
    delayMs: distribution(Float64Array.from(delays)),
  };
}

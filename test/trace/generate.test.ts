/**
 * The synthetic trace generator: the same seed gives the same trace; delays, losses and bursts have the
 * statistics asked for (tolerances are several standard errors of the sample sizes used, fixed seeds);
 * pauses hold the sender back and a crash silences it.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { type GenerateTraceOptions, generateTrace, randomPauses } from '../../src/trace/generate.js';
import { burstyLoss } from '../../src/trace/loss.js';
import { summarizeTrace } from '../../src/trace/summary.js';
import type { Trace } from '../../src/trace/trace.js';
import { formatTrace } from '../../src/trace/trace-format.js';

/** 40,000 heartbeats at 10 ms. */
const MANY = { durationMs: 400_000, intervalMs: 10 } as const;

function delays(trace: Trace): number[] {
  return trace.arrivals.map((a) => a.t - a.sent!);
}

function meanSd(values: readonly number[]): { mean: number; sd: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, sd: Math.sqrt(variance) };
}

/** Lengths of the runs of consecutive sequence numbers missing from the trace. */
function bursts(trace: Trace, sent: number): number[] {
  const seen = new Set(trace.arrivals.map((a) => a.seq));
  const runs: number[] = [];
  let run = 0;
  for (let seq = 0; seq < sent; seq++) {
    if (!seen.has(seq)) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  return runs;
}

describe('generateTrace', () => {
  const options: GenerateTraceOptions = {
    seed: 42,
    durationMs: 600_000,
    delay: { distribution: 'normal', meanMs: 20, stdDeviationMs: 8 },
    loss: burstyLoss(0.02, 3),
    pauses: [{ atMs: 100_000, durationMs: 2500 }],
    crashAtMs: 500_000,
  };

  it('gives the same trace for the same seed, and another for another seed', () => {
    expect(formatTrace(generateTrace(options))).toBe(formatTrace(generateTrace(options)));
    expect(formatTrace(generateTrace({ ...options, seed: 43 }))).not.toBe(
      formatTrace(generateTrace(options)),
    );
  });

  it('keeps the delays of a seed when only the loss changes', () => {
    const lossless = generateTrace({ ...options, loss: { model: 'none' } });
    const lossy = generateTrace(options);
    const bySeq = new Map(lossless.arrivals.map((a) => [a.seq, a.t]));
    for (const a of lossy.arrivals) expect(a.t).toBe(bySeq.get(a.seq));
  });

  it('writes its parameters and the crash into the header', () => {
    const trace = generateTrace(options);
    expect(trace.header).toMatchObject({
      source: 'generated',
      intervalMs: 1000,
      durationMs: 600_000,
      crashAtMs: 500_000,
    });
    expect(trace.header.generator).toMatchObject({ seed: 42, pauses: [{ atMs: 100_000, durationMs: 2500 }] });
  });

  it.each([
    ['normal', 20, 8],
    ['lognormal', 20, 15],
    ['pareto', 20, 10],
  ] as const)('draws %s delays with mean %d ms and standard deviation %d ms', (distribution, meanMs, sd) => {
    const trace = generateTrace({ seed: 1, ...MANY, delay: { distribution, meanMs, stdDeviationMs: sd } });
    const d = delays(trace);
    const stats = meanSd(d);
    expect(stats.mean).toBeGreaterThan(meanMs * 0.97);
    expect(stats.mean).toBeLessThan(meanMs * 1.03);
    // Heavy tails converge slowly: a wider band for the deviation.
    expect(stats.sd).toBeGreaterThan(sd * 0.85);
    expect(stats.sd).toBeLessThan(sd * 1.15);
    expect(Math.min(...d)).toBeGreaterThanOrEqual(0);
  });

  it('puts Pareto delays above the floor mean·(α − 1)/α, with a tail far beyond the mean', () => {
    const trace = generateTrace({
      seed: 2,
      ...MANY,
      delay: { distribution: 'pareto', meanMs: 20, stdDeviationMs: 10 },
    });
    const shape = 1 + Math.sqrt(1 + 1 / 0.25);
    const d = delays(trace);
    expect(Math.min(...d)).toBeGreaterThanOrEqual((20 * (shape - 1)) / shape - 0.001);
    expect(Math.max(...d)).toBeGreaterThan(20 * 4);
  });

  it('gives a log-normal median below its mean (skewed right)', () => {
    const d = delays(
      generateTrace({
        seed: 3,
        ...MANY,
        delay: { distribution: 'lognormal', meanMs: 20, stdDeviationMs: 15 },
      }),
    );
    d.sort((a, b) => a - b);
    expect(d[d.length >> 1]!).toBeLessThan(18);
  });

  it('loses heartbeats independently at the rate asked for', () => {
    const trace = generateTrace({ seed: 4, ...MANY, loss: { model: 'independent', probability: 0.1 } });
    const summary = summarizeTrace(trace);
    expect(summary.lossRate).toBeGreaterThan(0.09);
    expect(summary.lossRate).toBeLessThan(0.11);
    // Independent losses rarely come two in a row: runs average 1 / (1 − p) ≈ 1.11.
    expect(meanSd(bursts(trace, 40_000)).mean).toBeLessThan(1.2);
  });

  it('loses heartbeats in bursts of the mean length asked for (Gilbert-Elliott)', () => {
    const trace = generateTrace({ seed: 5, ...MANY, loss: burstyLoss(0.05, 4) });
    const summary = summarizeTrace(trace);
    expect(summary.lossRate).toBeGreaterThan(0.04);
    expect(summary.lossRate).toBeLessThan(0.06);
    const runs = bursts(trace, 40_000);
    expect(meanSd(runs).mean).toBeGreaterThan(3.5);
    expect(meanSd(runs).mean).toBeLessThan(4.5);
  });

  it('holds the sender back during a pause: the beat due goes out when it ends, the next an interval later', () => {
    const trace = generateTrace({
      seed: 6,
      durationMs: 20_000,
      delay: { distribution: 'normal', meanMs: 5, stdDeviationMs: 0 },
      pauses: [{ atMs: 5500, durationMs: 3000 }],
    });
    const sent = trace.arrivals.map((a) => a.sent);
    expect(sent.slice(0, 8)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 8500, 9500]);
    expect(trace.arrivals.map((a) => a.seq).slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('sends nothing from the crash on', () => {
    const trace = generateTrace({ ...options, loss: { model: 'none' } });
    const sent = trace.arrivals.map((a) => a.sent!);
    expect(Math.max(...sent)).toBeLessThan(500_000);
    expect(Math.max(...sent)).toBeGreaterThanOrEqual(499_000 - 2500);
    expect(trace.arrivals.every((a) => a.t <= 600_000)).toBe(true);
  });

  it('lists arrivals in order of arrival, with reordered sequence numbers under heavy jitter', () => {
    const trace = generateTrace({
      seed: 8,
      durationMs: 300_000,
      delay: { distribution: 'pareto', meanMs: 300, stdDeviationMs: 900 },
    });
    const ts = trace.arrivals.map((a) => a.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(summarizeTrace(trace).stale).toBeGreaterThan(0);
  });

  it.each([
    [{ durationMs: -1 }, 'durationMs'],
    [{ intervalMs: 0 }, 'intervalMs'],
    [{ crashAtMs: 700_000 }, 'crashAtMs'],
    [{ delay: { distribution: 'lognormal', meanMs: 0, stdDeviationMs: 1 } }, 'meanMs'],
    [{ delay: { distribution: 'cauchy', meanMs: 1, stdDeviationMs: 1 } }, 'distribution'],
    [{ loss: { model: 'independent', probability: 2 } }, 'probability'],
    [{ loss: { model: 'gilbert-elliott', goodToBad: 0.1, badToGood: 0 } }, 'badToGood'],
    [{ pauses: [{ atMs: -5, durationMs: 10 }] }, 'pauses[0].atMs'],
    [{ jitter: 3 }, 'jitter'],
  ])('rejects %j, naming %s', (bad, option) => {
    const run = (): Trace => generateTrace({ ...options, ...(bad as object) } as GenerateTraceOptions);
    expect(run).toThrow(InvalidOptionError);
    expect(run).toThrow(option);
  });
});

describe('randomPauses', () => {
  it('places non-overlapping pauses within the span, the same for the same seed', () => {
    const options = { seed: 9, count: 5, durationMs: 2000, fromMs: 10_000, toMs: 100_000 };
    const pauses = randomPauses(options);
    expect(pauses).toEqual(randomPauses(options));
    expect(pauses).toHaveLength(5);
    for (const [i, p] of pauses.entries()) {
      expect(p.atMs).toBeGreaterThanOrEqual(10_000);
      expect(p.atMs + p.durationMs).toBeLessThanOrEqual(100_000);
      if (i > 0) expect(p.atMs - pauses[i - 1]!.atMs).toBeGreaterThanOrEqual(4000);
    }
  });

  it('places fewer when they do not fit', () => {
    expect(
      randomPauses({ seed: 1, count: 10, durationMs: 5000, fromMs: 0, toMs: 12_000 }).length,
    ).toBeLessThan(10);
  });
});

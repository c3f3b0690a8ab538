/**
 * Tuning on a generated trace: the recommendation follows its rule (checked against every candidate),
 * frontiers are Pareto frontiers, and the report's chart, page and JSON carry the series and the
 * recommendation.
 */
import { describe, expect, it } from 'vitest';
import { tuneReportHtml } from '../../src/cli/tune/report-html.js';
import { formatReportJson, tuneReportJson } from '../../src/cli/tune/report-json.js';
import { timelineChart } from '../../src/cli/tune/timeline-chart.js';
import { tradeoffChart } from '../../src/cli/tune/tradeoff-chart.js';
import { InvalidArgumentError, InvalidOptionError } from '../../src/errors.js';
import { generateTrace } from '../../src/trace/generate.js';
import { burstyLoss } from '../../src/trace/loss.js';
import { prepareTrace, replayTrace } from '../../src/trace/replay.js';
import { createDetector, DETECTOR_FAMILIES } from '../../src/tune/detector-config.js';
import { paretoFrontier } from '../../src/tune/frontier.js';
import { defaultGrid } from '../../src/tune/grid.js';
import { type TuneCandidate, tuneDetectors } from '../../src/tune/tune.js';

const trace = generateTrace({
  seed: 21,
  durationMs: 1_200_000,
  delay: { distribution: 'normal', meanMs: 20, stdDeviationMs: 10 },
  loss: burstyLoss(0.02, 3),
  pauses: [
    { atMs: 300_000, durationMs: 2500 },
    { atMs: 700_000, durationMs: 4000 },
  ],
  crashAtMs: 1_100_000,
});
const TARGET_MS = 5000;
const result = tuneDetectors(trace, { targetDetectionMs: TARGET_MS });

function dominates(a: TuneCandidate, b: TuneCandidate): boolean {
  return (
    a.detectionMs <= b.detectionMs &&
    a.qos.mistakes <= b.qos.mistakes &&
    (a.detectionMs < b.detectionMs || a.qos.mistakes < b.qos.mistakes)
  );
}

describe('tuneDetectors', () => {
  it('tries every setting of the default grid, from every family', () => {
    expect(result.candidates).toHaveLength(defaultGrid(1000).length);
    for (const family of DETECTOR_FAMILIES) {
      expect(result.candidates.filter((c) => c.config.family === family).length).toBeGreaterThan(20);
    }
  });

  it('recommends the setting with the fewest mistakes among those that meet the target', () => {
    const rec = result.recommendation!;
    expect(rec).not.toBeNull();
    expect(rec.detectionMs).toBeLessThanOrEqual(TARGET_MS);
    expect(rec.detectionMs).toBe(rec.qos.detectionMs!.max);
    const meeting = result.candidates.filter((c) => c.detectionMs <= TARGET_MS);
    const fewest = Math.min(...meeting.map((c) => c.qos.mistakes));
    expect(rec.qos.mistakes).toBe(fewest);
    const fastestOfThose = Math.min(
      ...meeting.filter((c) => c.qos.mistakes === fewest).map((c) => c.detectionMs),
    );
    expect(rec.detectionMs).toBe(fastestOfThose);
    // The trace has bursts and pauses: detecting within 5 s costs some mistakes, and fewer than the fastest settings make.
    expect(rec.qos.mistakes).toBeGreaterThan(0);
    expect(rec.qos.crashDetectionMs).toBeLessThanOrEqual(TARGET_MS);
    expect(result.rule).toContain('fewest mistakes');
  });

  it('picks the best of each family by the same rule', () => {
    for (const family of DETECTOR_FAMILIES) {
      const best = result.best[family]!;
      expect(best.config.family).toBe(family);
      expect(best.detectionMs).toBeLessThanOrEqual(TARGET_MS);
      const own = result.candidates.filter((c) => c.config.family === family && c.detectionMs <= TARGET_MS);
      expect(best.qos.mistakes).toBe(Math.min(...own.map((c) => c.qos.mistakes)));
    }
    expect(Object.values(result.best)).toContain(result.recommendation);
  });

  it('keeps on each frontier exactly the settings no other of the family dominates', () => {
    for (const family of DETECTOR_FAMILIES) {
      const frontier = result.frontiers[family];
      const own = result.candidates.filter((c) => c.config.family === family);
      expect(frontier.length).toBeGreaterThan(3);
      for (let i = 1; i < frontier.length; i++) {
        expect(frontier[i]!.detectionMs).toBeGreaterThan(frontier[i - 1]!.detectionMs);
        expect(frontier[i]!.qos.mistakes).toBeLessThan(frontier[i - 1]!.qos.mistakes);
      }
      for (const point of frontier) expect(own.some((c) => dominates(c, point))).toBe(false);
      for (const c of own) {
        if (!frontier.includes(c))
          expect(
            frontier.some(
              (f) =>
                dominates(f, c) || (f.detectionMs === c.detectionMs && f.qos.mistakes === c.qos.mistakes),
            ),
          ).toBe(true);
      }
      // The slowest end makes no mistake at all.
      expect(frontier[frontier.length - 1]!.qos.mistakes).toBe(0);
    }
  });

  it('without a target, recommends the fastest setting that made no mistake', () => {
    const none = tuneDetectors(trace, { configs: result.candidates.map((c) => c.config) });
    const rec = none.recommendation!;
    expect(rec.qos.mistakes).toBe(0);
    const clean = none.candidates.filter((c) => c.qos.mistakes === 0);
    expect(rec.detectionMs).toBe(Math.min(...clean.map((c) => c.detectionMs)));
    expect(none.targetDetectionMs).toBeNull();
  });

  it('with a mistake bound alone, recommends the fastest setting within it', () => {
    const bounded = tuneDetectors(trace, { maxMistakesPerHour: 10, detectionStat: 'p99' });
    const rec = bounded.recommendation!;
    expect(rec.qos.mistakesPerHour).toBeLessThanOrEqual(10);
    expect(rec.detectionMs).toBe(rec.qos.detectionMs!.p99);
    const within = bounded.candidates.filter((c) => c.qos.mistakesPerHour <= 10);
    expect(rec.detectionMs).toBe(Math.min(...within.map((c) => c.detectionMs)));
  });

  it('recommends nothing when no setting meets the target', () => {
    const impossible = tuneDetectors(trace, {
      targetDetectionMs: 50,
      configs: [{ family: 'fixed-timeout', timeoutMs: 2000 }],
    });
    expect(impossible.recommendation).toBeNull();
    expect(impossible.best['fixed-timeout']).toBeNull();
  });

  it('rejects bad options and traces too short to tune on', () => {
    expect(() => tuneDetectors(trace, { targetDetectionMs: -1 })).toThrow(InvalidOptionError);
    expect(() => tuneDetectors(trace, { detectionStat: 'p50' as 'max' })).toThrow(/detectionStat/);
    const short = { ...trace, arrivals: trace.arrivals.slice(0, 1) };
    expect(() => tuneDetectors(short)).toThrow(InvalidArgumentError);
  });

  it('computes a frontier from any points, keeping the most accurate of equals', () => {
    const p = (detectionMs: number, mistakes: number, queryAccuracy = 0.9) => ({
      detectionMs,
      qos: { mistakes, queryAccuracy },
    });
    const a = p(1, 10);
    const b = p(2, 5, 0.8);
    const bBetter = p(2, 5, 0.95);
    const c = p(3, 7);
    const d = p(4, 0);
    expect(paretoFrontier([c, d, b, a, bBetter])).toEqual([a, bBetter, d]);
  });
});

describe('tuning report', () => {
  const svg = tradeoffChart(result, 'trace.jsonl');

  it('draws one series per family, the settings off the frontier, the target and the recommendation', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    for (const family of DETECTOR_FAMILIES) {
      expect(svg).toContain(`class="series" data-family="${family}"`);
    }
    expect(svg).toContain('class="dominated"');
    expect(svg).toContain(`class="recommendation" data-family="${result.recommendation!.config.family}"`);
    expect(svg).toContain('target 5 s');
    expect(svg).toContain('mistakes per hour (log scale)');
    // Every opened element is closed: as many <g …> as </g>.
    expect(svg.match(/<g[ >]/g)?.length).toBe(svg.match(/<\/g>/g)?.length);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });

  it('writes a self-contained page with both charts, the frontiers and the recommendation', () => {
    const rec = result.recommendation!;
    const replay = replayTrace(trace, createDetector(rec.config, 1000));
    const timeline = timelineChart(trace, prepareTrace(trace).arrivalMs, replay, 'trace.jsonl');
    expect(timeline).toContain('class="suspicions"');
    expect(timeline.match(/fill="#d7191c"/g)?.length).toBe(replay.suspicions.length);
    const html = tuneReportHtml({
      result,
      trace,
      traceName: 'trace.jsonl',
      tradeoffSvg: svg,
      timelineSvg: timeline,
      recommendedReplay: replay,
      version: '0.1.0',
      wallMs: 1234,
    });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html.match(/<table class="frontier">/g)).toHaveLength(4);
    expect(html).toContain('Recommended: ');
    expect(html).toContain('new ');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    expect(html).not.toMatch(/NaN|undefined/);
  });

  it('lists every candidate in the JSON, with infinite times as null', () => {
    const json = JSON.parse(formatReportJson(tuneReportJson(result, trace, 'trace.jsonl', '0.1.0', 1234)));
    expect(json.candidates).toHaveLength(result.candidates.length);
    expect(json.recommendation.family).toBe(result.recommendation!.config.family);
    expect(json.recommendation.parameters).toEqual(
      Object.fromEntries(Object.entries(result.recommendation!.config).filter(([k]) => k !== 'family')),
    );
    expect(json.trace.header.crashAtMs).toBe(1_100_000);
    expect(Object.keys(json.frontiers)).toEqual([...DETECTOR_FAMILIES]);
    // A detector that never suspects: its detection time is infinite.
    const never = {
      family: 'phi-normal',
      threshold: Number.POSITIVE_INFINITY,
      acceptableHeartbeatPauseMs: 0,
      minStdDeviationMs: 100,
    } as const;
    const infinite = tuneReportJson(tuneDetectors(trace, { configs: [never] }), trace, 'x', '0', 0);
    expect(infinite.candidates[0]!.detectionMs).toBe(Number.POSITIVE_INFINITY);
    expect(JSON.parse(formatReportJson(infinite)).candidates[0].detectionMs).toBeNull();
  });
});

describe('the package root', () => {
  it('exports the trace, QoS and tuning API end to end', async () => {
    const api = await import('../../src/index.js');
    const generated = api.generateTrace({
      seed: 1,
      durationMs: 120_000,
      loss: api.burstyLoss(0.05, 2),
      crashAtMs: 100_000,
    });
    const trace = api.parseTrace(api.formatTrace(generated));
    const detector = api.createDetector(
      { family: 'chen', alphaMs: 500, windowSize: 100 },
      trace.header.intervalMs,
    );
    const qos = api.qosMetrics(api.replayTrace(api.prepareTrace(trace), detector));
    expect(qos.crashDetectionMs).toBeGreaterThan(0);
    const tuned = api.tuneDetectors(trace, {
      configs: api.defaultGrid(1000).filter((c) => c.family === 'fixed-timeout'),
    });
    expect(tuned.recommendation?.qos.mistakes).toBe(0);
    expect(api.summarizeTrace(trace).heartbeats).toBe(api.prepareTrace(trace).arrivalMs.length);
    expect(api.DETECTOR_FAMILIES).toHaveLength(4);
    expect(new api.TraceFormatError(3, 'x').code).toBe('FDKIT_BAD_TRACE');
  });
});

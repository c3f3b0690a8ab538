/** The SVG charts of the sweeps (detection and false positives against each swept value) and of Lifeguard. */
import { round, type Spread, total } from '../support/stats.js';
import { barChart, type LineSeries, lineChart, PALETTE } from '../support/svg-chart.js';
import type { LifeguardResult, PointResult } from './analysis.js';
import {
  BASE_LOSS,
  HOST_CRASHES,
  LIFEGUARD_MODES,
  type LifeguardKey,
  type Mode,
  SIZE_LOSS,
  SLOW_FROM_MS,
  type SweepName,
} from './sweeps.js';

export interface Charts {
  readonly [file: string]: string;
}

function median(s: Spread): number | null {
  return s.median;
}

export function charts(
  points: readonly PointResult[],
  lifeguard: readonly LifeguardResult[],
  mode: Mode,
): Charts {
  const out: Record<string, string> = {};
  const of = (sweep: SweepName) => points.filter((p) => p.sweep === sweep);
  const seconds = (x: Spread): number | null => (x.median === null ? null : x.median / 1000);
  const note = `median over ${mode.seeds} seeds × ${HOST_CRASHES} host crashes (detection), per ${mode.seconds} s run (false positives); fdkit swim-sweeps`;
  const indep = of('loss');
  const bursty = of('bursty-loss');
  if (indep.length > 0) {
    const pct = (p: PointResult) => round(p.x * 100, 1);
    const line = (
      name: string,
      ps: readonly PointResult[],
      f: (p: PointResult) => number | null,
      color: string,
      dashed = false,
    ): LineSeries => ({ name, points: ps.map((p) => ({ x: pct(p), y: f(p) })), dashed, color });
    out['loss-detection'] = lineChart({
      title: 'Crash detection against loss rate (100 members, lan)',
      xLabel: 'packet loss (%)',
      yLabel: 'seconds after the crash (median)',
      series: [
        line('first suspicion, independent loss', indep, (p) => seconds(p.crash.firstSuspectMs), PALETTE[0]!),
        line('first death, independent', indep, (p) => seconds(p.crash.firstDeadMs), PALETTE[1]!),
        line('all know dead, independent', indep, (p) => seconds(p.crash.allKnowDeadMs), PALETTE[2]!),
        line(
          'first suspicion, bursty loss',
          bursty,
          (p) => seconds(p.crash.firstSuspectMs),
          PALETTE[0]!,
          true,
        ),
        line('first death, bursty', bursty, (p) => seconds(p.crash.firstDeadMs), PALETTE[1]!, true),
        line('all know dead, bursty', bursty, (p) => seconds(p.crash.allKnowDeadMs), PALETTE[2]!, true),
      ],
      note,
    });
    out['loss-fp'] = lineChart({
      title: 'False suspicions against loss rate (100 members, lan)',
      xLabel: 'packet loss (%)',
      yLabel: 'false suspicions raised per member-hour (median)',
      series: [
        line('independent loss', indep, (p) => median(p.falseAccusationsPerMemberHour), PALETTE[0]!),
        line(
          'bursty loss (bursts of ~5 packets)',
          bursty,
          (p) => median(p.falseAccusationsPerMemberHour),
          PALETTE[1]!,
          true,
        ),
      ],
      note: `false deaths: ${total(points.filter((p) => p.sweep === 'loss' || p.sweep === 'bursty-loss').map((p) => p.falseDeathsTotal))} in all these runs; median of ${mode.seeds} runs of ${mode.seconds} s`,
    });
  }
  const detectionChart = (
    sweep: SweepName,
    title: string,
    xLabel: string,
    logX: boolean,
    loss = BASE_LOSS,
  ): string | undefined => {
    const ps = of(sweep);
    if (ps.length === 0) return undefined;
    const s = (name: string, f: (p: PointResult) => Spread, dashed = false): LineSeries => ({
      name,
      points: ps.map((p) => ({ x: p.x, y: seconds(f(p)) })),
      dashed,
    });
    return lineChart({
      title,
      xLabel,
      yLabel: 'seconds after the crash (median)',
      logX,
      series: [
        s('host crash: first suspicion', (p) => p.crash.firstSuspectMs),
        s('host crash: first death', (p) => p.crash.firstDeadMs),
        s('host crash: all know dead', (p) => p.crash.allKnowDeadMs),
        s('kill: first death', (p) => p.kill.firstDeadMs, true),
        s('kill: all know dead', (p) => p.kill.allKnowDeadMs, true),
      ],
      note: `${loss * 100} % independent loss; median over ${mode.seeds} seeds × ${HOST_CRASHES} crashes of each kind; fdkit swim-sweeps`,
    });
  };
  const add = (file: string, svg: string | undefined): void => {
    if (svg !== undefined) out[file] = svg;
  };
  add(
    'probe-interval',
    detectionChart(
      'probe-interval',
      'Detection against probe interval (100 members)',
      'probe interval (ms)',
      true,
    ),
  );
  add(
    'suspicion-mult',
    detectionChart('suspicion-mult', 'Detection against suspicionMult (100 members)', 'suspicionMult', false),
  );
  add(
    'cluster-size',
    detectionChart('cluster-size', 'Detection against cluster size', 'members', true, SIZE_LOSS),
  );
  const main = lifeguard.find((r) => r.scenario.key === 'main');
  if (main !== undefined) {
    const short = (k: LifeguardKey) => LIFEGUARD_MODES.find((m) => m.key === k)!.short;
    out.lifeguard = barChart({
      title: 'False positives caused by one CPU-starved member (100 members)',
      yLabel: `events over ${main.scenario.seeds} runs (log scale)`,
      categories: main.modes.map((m) => short(m.mode)),
      logY: true,
      series: [
        {
          name: 'suspicions of healthy members',
          values: main.modes.map((m) => m.falsePositives.healthySuspicions.total),
        },
        {
          name: 'deaths of healthy members',
          values: main.modes.map((m) => m.falsePositives.healthyDeaths.total),
        },
        {
          name: 'accusations by the slow member',
          values: main.modes.map((m) => m.falsePositives.accusationsBySlow.total),
        },
      ],
      note: `${main.scenario.seeds} seeds × ${main.seconds} s, slow from ${SLOW_FROM_MS / 1000} s: every task ${main.scenario.meanMs} ms on average, timers first; fdkit swim-sweeps`,
    });
  }
  return out;
}

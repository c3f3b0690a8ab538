/**
 * The chaos bench's Markdown report: an overview of several seeds' runs, then per seed its faults (with
 * the deaths each one caused and how soon the views agreed again) and its checkers' verdicts.
 */
import { markdownTable } from '../support/format.js';
import { median, quantile } from '../support/stats.js';
import { asRan, excuseOf, unexcusedDeaths, type Verdict } from './checkers.js';
import type { ViewChange } from './history.js';
import { excuseLimits } from './plan.js';
import type { ChaosRunResult } from './run.js';
import { describeFault } from './schedule.js';

function verdict(v: Verdict): string {
  return v.ok ? 'pass' : `**fail** (${v.problems.length})`;
}

function seconds(ms: number | null): string {
  return ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`;
}

function load(r: ChaosRunResult): string {
  const l = r.loadAverage.map((s) => s.load1);
  return l.length === 0
    ? '?'
    : `${Math.min(...l).toFixed(1)} / ${median(l).toFixed(1)} / ${Math.max(...l).toFixed(1)}`;
}

/**
 * The deaths that only the issue's wording excuses (see `excuseOf`'s `strict`), each with how long its
 * observer held the member dead before it held it alive again (null if it never did).
 */
export function sameSideDeaths(r: ChaosRunResult): { death: ViewChange; spellMs: number | null }[] {
  const name = (i: number): string => r.names[i] ?? `#${i}`;
  const strict = r.faults.flatMap((f) => excuseOf(asRan(f), name, excuseLimits(r.bounds), true) ?? []);
  return unexcusedDeaths(r.changes, strict, r.endMs).map((death) => {
    const back = r.changes.find(
      (c) =>
        c.observer === death.observer &&
        c.member === death.member &&
        c.atMs > death.atMs &&
        c.state === 'alive',
    );
    return { death, spellMs: back === undefined ? null : back.atMs - death.atMs };
  });
}

/** Count, causes and how long the same-side deaths lasted, in one cell. */
function sameSide(r: ChaosRunResult): string {
  const deaths = sameSideDeaths(r);
  if (deaths.length === 0) return '0';
  const spells = deaths.flatMap((d) => (d.spellMs === null ? [] : [d.spellMs]));
  const causes = new Map<string, number>();
  for (const d of deaths) causes.set(d.death.cause ?? '?', (causes.get(d.death.cause ?? '?') ?? 0) + 1);
  const why = [...causes].map(([c, k]) => `${k} ${c}`).join(', ');
  const spell =
    spells.length === 0
      ? ''
      : `; dead for median ${Math.round(median(spells))} ms, p90 ${Math.round(quantile(spells, 0.9))}, max ${Math.round(Math.max(...spells))}`;
  return `${deaths.length} (${why}${spell})`;
}

/** The overview table: one row per seed. */
export function overview(results: readonly ChaosRunResult[]): string {
  return markdownTable(
    [
      'seed',
      'faults',
      'no false death',
      'agreement after the last fault',
      'no stale life',
      'crashes',
      'same-side deaths (allowed)',
      'load 1 min (min / median / max)',
    ],
    results.map((r) => [
      String(r.seed),
      String(r.faults.length),
      verdict(r.final.noFalseDeath),
      `${verdict(r.final.convergence)}, ${seconds(r.final.convergence.afterMs)}`,
      verdict(r.final.noStaleLife),
      String(r.crashes.length),
      sameSide(r),
      load(r),
    ]),
  );
}

/** One seed's section: its faults and what followed each. */
export function seedSection(r: ChaosRunResult): string {
  const name = (i: number): string => r.names[i] ?? `#${i}`;
  const rows = r.faults.map((f, k) => {
    const next = r.faults[k + 1]?.startedMs ?? r.endMs;
    const deaths = r.changes.filter(
      (c) => c.state === 'dead' && c.atMs >= f.startedMs && c.atMs < next,
    ).length;
    const text = describeFault(f.fault, name)
      .replace(/^#\d+ \S+ \S+ /, '')
      .replace(' | ', ' / ');
    return [
      String(f.fault.index),
      text,
      seconds(f.startedMs - r.chaosStartMs),
      seconds(f.endedMs - f.startedMs),
      String(deaths),
      seconds(r.convergedAfterMs[k] ?? null),
    ];
  });
  const problems = [
    ...r.final.noFalseDeath.problems,
    ...r.final.convergence.problems,
    ...r.final.noStaleLife.problems,
    ...r.crashes,
  ];
  return [
    `### Seed ${r.seed}`,
    '',
    `${r.faults.length} faults over ${seconds(r.lastFaultEndMs - r.chaosStartMs)}, run of ${seconds(r.endMs)}. ` +
      `No false death: ${verdict(r.final.noFalseDeath)}; agreement on membership and leader ` +
      `${seconds(r.final.convergence.afterMs)} after the last fault (bound ${seconds(r.bounds.convergenceMs)}): ` +
      `${verdict(r.final.convergence)}; no stale life: ${verdict(r.final.noStaleLife)}; ` +
      `same-side deaths: ${sameSide(r)}.`,
    '',
    markdownTable(
      ['#', 'fault', 'start', 'lasted', 'deaths declared until the next fault', 'views agreed after its end'],
      rows,
    ),
    ...(problems.length === 0 ? [] : ['', 'Problems:', '', ...problems.map((p) => `- ${p}`)]),
  ].join('\n');
}

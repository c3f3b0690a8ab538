/**
 * `report.html` of `fdkit tune`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
 * with the recommendation and how to use it, the trade-off chart, the best setting and the Pareto
 * frontier of each family, the trace and what the recommended setting made of it, and what the metrics
 * mean.
 */
import type { Replay } from '../../trace/replay.js';
import type { TraceSummary } from '../../trace/summary.js';
import type { Trace } from '../../trace/trace.js';
import { DETECTOR_FAMILIES, describeParameters } from '../../tune/detector-config.js';
import type { TuneCandidate, TuneResult } from '../../tune/tune.js';
import { FAMILY_STYLES } from './families.js';
import { formatDuration, formatProbability, formatRate, usageOf } from './format.js';
import { escapeXml as esc } from './svg.js';
import { STAT_WORDS } from './tradeoff-chart.js';

/** What the page is made of. */
export interface TuneReportPage {
  readonly result: TuneResult;
  readonly trace: Trace;
  readonly traceName: string;
  /** The SVG documents of the two charts. */
  readonly tradeoffSvg: string;
  readonly timelineSvg: string;
  /** The recommended setting's replay, when there is one. */
  readonly recommendedReplay: Replay | undefined;
  readonly version: string;
  readonly wallMs: number;
}

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#222;max-width:1000px;margin:2em auto;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
.muted{color:#666}.rec{border:2px solid #222;border-radius:6px;padding:.6em 1em;background:#fafafa}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}tr.chosen td{font-weight:600;background:#fff7e0}
code,pre{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f4f4f4}pre{padding:.6em;overflow-x:auto}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.4em;vertical-align:baseline}
svg{max-width:100%;height:auto}dt{font-weight:600}dd{margin:0 0 .6em 1.2em}`;

function row(cells: readonly string[], header = false, className = ''): string {
  const tag = header ? 'th' : 'td';
  const cls = className === '' ? '' : ` class="${className}"`;
  return `<tr${cls}>${cells.map((c, i) => `<${tag}${i < 2 ? ' class="l"' : ''}>${c}</${tag}>`).join('')}</tr>`;
}

const COLUMNS = [
  'family',
  'setting',
  'T_D (chosen)',
  'T_D mean',
  'T_D max',
  'mistakes',
  'per hour',
  'T_MR',
  'T_M mean',
  'P_A',
];

function candidateCells(c: TuneCandidate): string[] {
  const style = FAMILY_STYLES[c.config.family];
  const q = c.qos;
  return [
    `<span class="swatch" style="background:${style.colour}"></span>${esc(style.label)}`,
    esc(describeParameters(c.config)),
    esc(formatDuration(c.detectionMs)),
    esc(formatDuration(q.detectionMs?.mean ?? null)),
    esc(formatDuration(q.detectionMs?.max ?? null)),
    String(q.mistakes),
    formatRate(q.mistakesPerHour),
    esc(formatDuration(q.mistakeRecurrenceMs)),
    esc(formatDuration(q.mistakeDurationMs?.mean ?? null)),
    formatProbability(q.queryAccuracy),
  ];
}

function table(candidates: readonly TuneCandidate[], chosen: TuneCandidate | null, cls: string): string {
  const body = candidates.map((c) => row(candidateCells(c), false, c === chosen ? 'chosen' : '')).join('');
  return `<table class="${cls}">${row(COLUMNS, true)}${body}</table>`;
}

function summaryList(s: TraceSummary): string {
  const items: [string, string][] = [
    ['source', s.source],
    ['duration', formatDuration(s.durationMs)],
    ['heartbeat interval', formatDuration(s.intervalMs)],
    ['heartbeats', `${s.heartbeats} (${s.stale} duplicated or reordered arrivals ignored)`],
    ['lost', `${s.lost} (${(s.lossRate * 100).toFixed(2)} %)`],
    [
      'gap between heartbeats',
      s.gapMs === null
        ? '-'
        : `mean ${formatDuration(s.gapMs.mean)}, median ${formatDuration(s.gapMs.p50)}, 99th percentile ${formatDuration(s.gapMs.p99)}, max ${formatDuration(s.gapMs.max)}`,
    ],
    [
      'longest silence',
      s.longestGap === null
        ? '-'
        : `${formatDuration(s.longestGap.ms)} from ${formatDuration(s.longestGap.atMs)}`,
    ],
    [
      'one-way delay',
      s.delayMs === null
        ? 'unknown (no send times in the trace: detection times count from arrivals)'
        : `mean ${formatDuration(s.delayMs.mean)}, 99th percentile ${formatDuration(s.delayMs.p99)}, max ${formatDuration(s.delayMs.max)}`,
    ],
    ['crash', s.crashAtMs === null ? 'none in the trace' : `at ${formatDuration(s.crashAtMs)}`],
  ];
  return `<table>${items.map(([k, v]) => `<tr><th class="l">${esc(k)}</th><td class="l">${esc(v)}</td></tr>`).join('')}</table>`;
}

function recommendationBlock(result: TuneResult, intervalMs: number): string {
  const rec = result.recommendation;
  if (rec === null) {
    return (
      `<div class="rec"><p><strong>No setting meets the target.</strong> The rule was ${esc(result.rule)}. ` +
      'The chart and the frontiers below show what each family can do; relax the target or the bound.</p></div>'
    );
  }
  const q = rec.qos;
  const crash =
    q.crashDetectionMs === null
      ? ''
      : `; the trace's own crash was detected after ${formatDuration(q.crashDetectionMs)}`;
  return (
    `<div class="rec"><p><strong>Recommended: ${esc(FAMILY_STYLES[rec.config.family].label)}, ${esc(describeParameters(rec.config))}</strong></p>` +
    `<p>Detection time ${esc(formatDuration(rec.detectionMs))} (${STAT_WORDS[result.detectionStat]}; mean ${esc(formatDuration(q.detectionMs?.mean ?? null))})${esc(crash)}. ` +
    `${q.mistakes} mistakes in ${esc(formatDuration(q.upMs))} of up-time (${formatRate(q.mistakesPerHour)} per hour), ` +
    `lasting ${esc(formatDuration(q.mistakeDurationMs?.mean ?? null))} on average; query accuracy P_A ${formatProbability(q.queryAccuracy)}.</p>` +
    `<p class="muted">Chosen as ${esc(result.rule)}.</p><pre>${esc(usageOf(rec.config, intervalMs))}</pre></div>`
  );
}

const DEFINITIONS = `<dl>
<dt>Detection time T_D</dt><dd>From a crash to the moment the detector starts the suspicion that lasts. Measured for a crash right after each heartbeat of the trace was sent (the worst moment between two heartbeats): that heartbeat is the last the detector hears, and T_D runs from its sending (its arrival, when the trace has no send times) to the moment the detector would suspect. The report gives its mean and maximum; the column "T_D (chosen)" is the statistic compared with the target.</dd>
<dt>Mistake</dt><dd>A suspicion that starts while the sender is up (before the crash). The mistake rate λ_M is their number per hour of up-time.</dd>
<dt>Mistake recurrence time T_MR</dt><dd>The mean time between the starts of two consecutive mistakes.</dd>
<dt>Mistake duration T_M</dt><dd>How long a mistake lasts, until the detector trusts the sender again (or the sender crashes).</dd>
<dt>Query accuracy probability P_A</dt><dd>The fraction of the up-time during which the detector trusted the sender: the probability that a query at a random moment gets the right answer.</dd>
<dt>Pareto frontier</dt><dd>The settings of a family that no other setting of it beats on both detection time and mistakes.</dd>
</dl>
<p class="muted">Metrics after Chen, Toueg and Aguilera, "On the quality of service of failure detectors", IEEE Transactions on Computers, 2002. The detector's output is replayed exactly, event by event: no sampling.</p>`;

/** The HTML page. */
export function tuneReportHtml(page: TuneReportPage): string {
  const { result, trace } = page;
  const intervalMs = trace.header.intervalMs;
  const target =
    result.targetDetectionMs === null
      ? 'no target detection time'
      : `target detection time ${formatDuration(result.targetDetectionMs)}`;
  const bound =
    result.maxMistakesPerHour === null
      ? ''
      : `, at most ${formatRate(result.maxMistakesPerHour)} mistakes per hour`;
  const bestRows = DETECTOR_FAMILIES.map((family) => {
    const b = result.best[family];
    if (b !== null) return row(candidateCells(b), false, b === result.recommendation ? 'chosen' : '');
    const style = FAMILY_STYLES[family];
    return row([
      `<span class="swatch" style="background:${style.colour}"></span>${esc(style.label)}`,
      'no setting meets the target',
      ...COLUMNS.slice(2).map(() => '-'),
    ]);
  }).join('');
  const frontiers = DETECTOR_FAMILIES.map(
    (family) =>
      `<h3>${esc(FAMILY_STYLES[family].label)}</h3>${table(result.frontiers[family], result.recommendation, 'frontier')}`,
  ).join('');
  const suspicions = page.recommendedReplay?.suspicions.length ?? 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fdkit tune: ${esc(page.traceName)}</title><style>${STYLE}</style></head><body>
<h1>Detector tuning report</h1>
<p class="muted">fdkit ${esc(page.version)} · trace <code>${esc(page.traceName)}</code> · ${esc(target)}${esc(bound)} · ${result.candidates.length} settings of 4 detector families, replayed in ${(page.wallMs / 1000).toFixed(1)} s</p>
${recommendationBlock(result, intervalMs)}
<h2>Detection time against mistake rate</h2>
<p>Each curve is the Pareto frontier of one detector family; faint dots are the other settings tried.</p>
${page.tradeoffSvg.replace(/^<\?xml[^>]*>\s*/, '')}
<h2>Best setting of each family</h2>
<p>Picked by the same rule within each family.</p>
<table class="best">${row(COLUMNS, true)}${bestRows}</table>
<h2>Pareto frontiers</h2>
${frontiers}
<h2>The trace</h2>
${summaryList(result.trace)}
${page.timelineSvg}
<p class="muted">The strip under the chart shows when the recommended setting suspected the sender: ${suspicions} suspicion${suspicions === 1 ? '' : 's'} in all, the last one the crash's when the trace has one.</p>
<h2>What the numbers mean</h2>
${DEFINITIONS}
</body></html>
`;
}

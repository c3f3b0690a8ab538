/**
 * The main chart of `fdkit tune`: detection time against mistake rate, one curve per detector family (its
 * Pareto frontier), the settings off the frontier as faint dots, the target and the mistake bound as
 * dashed lines, and the recommendation ringed. Mistake rates span decades, so that axis is logarithmic,
 * with settings that made no mistake on a row of their own below it; detection times are logarithmic too
 * when they span more than a decade. A standalone SVG document, also inlined in the HTML report.
 */
import { DETECTOR_FAMILIES, describeParameters } from '../../tune/detector-config.js';
import type { TuneCandidate, TuneResult } from '../../tune/tune.js';
import { FAMILY_STYLES, marker } from './families.js';
import { linearScale, logScale, type Scale } from './scale.js';
import { el, escapeXml, px, text } from './svg.js';

const WIDTH = 820;
const HEIGHT = 520;
const LEFT = 72;
const RIGHT = WIDTH - 206;
const TOP = 62;
const BOTTOM = HEIGHT - 62;
/** Height of the row for settings without mistakes, below the logarithmic axis. */
const ZERO_ROW = 28;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** What the statistic of T_D is called on the axis. */
export const STAT_WORDS = { max: 'worst case', p99: '99th percentile', mean: 'mean' } as const;

function seconds(ms: number): number {
  return ms / 1000;
}

function xScale(values: number[]): Scale {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(low > 0 && high < Number.POSITIVE_INFINITY)) return linearScale(0, 10, LEFT, RIGHT);
  if (high / low > 10) return logScale(low / 1.15, high * 1.15, LEFT, RIGHT);
  const pad = (high - low) * 0.06 || high * 0.1;
  low = Math.max(0, low - pad);
  high += pad;
  return linearScale(low, high, LEFT, RIGHT);
}

/** The largest of 1, 2 and 5 × 10^k at most `value`, or the smallest at least it (`up`). */
function roundValue(value: number, up: boolean): number {
  const power = 10 ** Math.floor(Math.log10(value));
  const steps = [1, 2, 5, 10].map((m) => m * power);
  return up
    ? (steps.find((s) => s >= value * (1 - 1e-9)) ?? 10 * power)
    : ([...steps].reverse().find((s) => s <= value * (1 + 1e-9)) ?? power);
}

function yScale(rates: number[]): Scale {
  const positive = rates.filter((r) => r > 0 && r < Number.POSITIVE_INFINITY);
  const low = positive.length === 0 ? 0.1 : roundValue(Math.min(...positive), false);
  const high = positive.length === 0 ? 10 : roundValue(Math.max(...positive), true);
  return logScale(low, Math.max(high, low * 10), BOTTOM - ZERO_ROW - 10, TOP);
}

/** The SVG of the trade-off chart of `result`. */
export function tradeoffChart(result: TuneResult, traceName: string): string {
  const frontierPoints = DETECTOR_FAMILIES.flatMap((f) => result.frontiers[f]);
  const shown = frontierPoints.filter((c) => Number.isFinite(c.detectionMs));
  const rec = result.recommendation;
  const xs = shown.map((c) => seconds(c.detectionMs));
  if (result.targetDetectionMs !== null) xs.push(seconds(result.targetDetectionMs));
  if (xs.length === 0) xs.push(1);
  const x = xScale(xs);
  const rates = shown.map((c) => c.qos.mistakesPerHour);
  if (result.maxMistakesPerHour !== null) rates.push(result.maxMistakesPerHour);
  const y = yScale(rates);
  const zeroY = BOTTOM - ZERO_ROW / 2;
  const yOf = (rate: number): number => (rate > 0 ? y.at(rate) : zeroY);
  const inside = (c: TuneCandidate): boolean => {
    const sx = seconds(c.detectionMs);
    const r = c.qos.mistakesPerHour;
    return sx >= x.domain[0] && sx <= x.domain[1] && (r === 0 || (r >= y.domain[0] && r <= y.domain[1]));
  };

  const parts: string[] = [];
  parts.push(el('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: '#ffffff' }));
  parts.push(text(LEFT, 24, 'Detection time against mistake rate', { 'font-size': 17, 'font-weight': 600 }));
  const subtitle =
    `${traceName}: T_D is the ${STAT_WORDS[result.detectionStat]} over a crash right after each heartbeat; ` +
    `${result.candidates.length} settings`;
  parts.push(text(LEFT, 44, subtitle, { 'font-size': 12, fill: '#555' }));

  // Grid and axes.
  const grid: string[] = [];
  for (const t of x.ticks()) {
    const gx = x.at(t.value);
    grid.push(el('line', { x1: gx, y1: TOP, x2: gx, y2: BOTTOM, stroke: '#e6e6e6' }));
    grid.push(text(gx, BOTTOM + 18, t.label, { 'text-anchor': 'middle', 'font-size': 11, fill: '#333' }));
  }
  for (const t of y.ticks()) {
    const gy = y.at(t.value);
    grid.push(el('line', { x1: LEFT, y1: gy, x2: RIGHT, y2: gy, stroke: '#e6e6e6' }));
    grid.push(text(LEFT - 8, gy + 4, t.label, { 'text-anchor': 'end', 'font-size': 11, fill: '#333' }));
  }
  // The row of settings without mistakes, set apart from the logarithmic axis.
  grid.push(
    el('rect', { x: LEFT, y: BOTTOM - ZERO_ROW, width: RIGHT - LEFT, height: ZERO_ROW, fill: '#f4f4f4' }),
  );
  grid.push(text(LEFT - 8, zeroY + 4, '0', { 'text-anchor': 'end', 'font-size': 11, fill: '#333' }));
  grid.push(
    el('rect', { x: LEFT, y: TOP, width: RIGHT - LEFT, height: BOTTOM - TOP, fill: 'none', stroke: '#999' }),
  );
  parts.push(el('g', { class: 'grid' }, grid.join('')));
  const xLabel = `detection time T_D (s${x.kind === 'log' ? ', log scale' : ''})`;
  parts.push(text((LEFT + RIGHT) / 2, BOTTOM + 40, xLabel, { 'text-anchor': 'middle', 'font-size': 13 }));
  parts.push(
    text(0, 0, 'mistakes per hour (log scale)', {
      transform: `translate(${px(LEFT - 48)},${px((TOP + BOTTOM) / 2)}) rotate(-90)`,
      'text-anchor': 'middle',
      'font-size': 13,
    }),
  );

  // Target and bound.
  const limits: string[] = [];
  if (result.targetDetectionMs !== null) {
    const tx = x.at(seconds(result.targetDetectionMs));
    limits.push(
      el('line', { x1: tx, y1: TOP, x2: tx, y2: BOTTOM, stroke: '#444', 'stroke-dasharray': '6 4' }),
    );
    limits.push(text(tx + 4, TOP + 14, `target ${seconds(result.targetDetectionMs)} s`, { 'font-size': 11 }));
  }
  const bound = result.maxMistakesPerHour;
  if (bound !== null && bound > 0 && bound >= y.domain[0] && bound <= y.domain[1]) {
    const by = y.at(bound);
    limits.push(
      el('line', { x1: LEFT, y1: by, x2: RIGHT, y2: by, stroke: '#444', 'stroke-dasharray': '6 4' }),
    );
    limits.push(
      text(RIGHT - 4, by - 5, `at most ${bound} mistakes/h`, { 'text-anchor': 'end', 'font-size': 11 }),
    );
  }
  parts.push(el('g', { class: 'limits' }, limits.join('')));

  // Settings off the frontier, then each family's frontier.
  parts.push(
    el(
      'clipPath',
      { id: 'plot' },
      el('rect', { x: LEFT, y: TOP, width: RIGHT - LEFT, height: BOTTOM - TOP }),
    ),
  );
  const onFrontier = new Set(frontierPoints);
  const dots = result.candidates
    .filter((c) => !onFrontier.has(c) && Number.isFinite(c.detectionMs) && inside(c))
    .map((c) =>
      el('circle', {
        cx: x.at(seconds(c.detectionMs)),
        cy: yOf(c.qos.mistakesPerHour),
        r: 1.6,
        fill: FAMILY_STYLES[c.config.family].colour,
        'fill-opacity': 0.3,
      }),
    );
  parts.push(el('g', { class: 'dominated', 'clip-path': 'url(#plot)' }, dots.join('')));
  for (const family of DETECTOR_FAMILIES) {
    const style = FAMILY_STYLES[family];
    const points = result.frontiers[family].filter((c) => Number.isFinite(c.detectionMs) && inside(c));
    const coords = points.map((c) => [x.at(seconds(c.detectionMs)), yOf(c.qos.mistakesPerHour)] as const);
    const path = coords.map(([px0, py0], i) => `${i === 0 ? 'M' : 'L'}${px(px0)},${px(py0)}`).join('');
    const inner = [
      path === '' ? '' : el('path', { d: path, fill: 'none', stroke: style.colour, 'stroke-width': 2 }),
      ...coords.map(([cx, cy]) => marker(style.shape, cx, cy, 3.6, { fill: style.colour })),
    ].join('');
    parts.push(
      el(
        'g',
        { class: 'series', 'data-family': family, 'clip-path': 'url(#plot)' },
        `<title>${escapeXml(style.label)}</title>${inner}`,
      ),
    );
  }

  if (rec !== null && Number.isFinite(rec.detectionMs) && inside(rec)) {
    parts.push(recommendationMark(rec, x.at(seconds(rec.detectionMs)), yOf(rec.qos.mistakesPerHour)));
  }

  // Legend.
  const legend: string[] = [];
  let ly = TOP + 8;
  legend.push(text(RIGHT + 20, ly, 'Pareto frontier of', { 'font-size': 12, 'font-weight': 600 }));
  ly += 20;
  for (const family of DETECTOR_FAMILIES) {
    const style = FAMILY_STYLES[family];
    legend.push(
      el('line', {
        x1: RIGHT + 20,
        y1: ly - 4,
        x2: RIGHT + 48,
        y2: ly - 4,
        stroke: style.colour,
        'stroke-width': 2,
      }),
    );
    legend.push(marker(style.shape, RIGHT + 34, ly - 4, 3.6, { fill: style.colour }));
    legend.push(text(RIGHT + 56, ly, style.label, { 'font-size': 12 }));
    ly += 20;
  }
  ly += 6;
  legend.push(el('circle', { cx: RIGHT + 34, cy: ly - 4, r: 1.6, fill: '#555', 'fill-opacity': 0.5 }));
  legend.push(text(RIGHT + 56, ly, 'other settings', { 'font-size': 12 }));
  ly += 22;
  legend.push(
    el('circle', { cx: RIGHT + 34, cy: ly - 4, r: 8, fill: 'none', stroke: '#000', 'stroke-width': 2 }),
  );
  legend.push(text(RIGHT + 56, ly, 'recommended', { 'font-size': 12 }));
  ly += 26;
  const note = rec === null ? ['nothing meets the target'] : ruleLines(result.rule);
  for (const line of note) {
    legend.push(text(RIGHT + 20, ly, line, { 'font-size': 11, fill: '#555' }));
    ly += 15;
  }
  parts.push(el('g', { class: 'legend' }, legend.join('')));

  const title = `Detection time against mistake rate, ${traceName}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} role="img">` +
    `<title>${escapeXml(title)}</title>${parts.join('\n')}</svg>\n`
  );
}

/** Approximate width of 12 px bold text, for keeping labels inside the plot. */
const CHAR_PX = 7;

/**
 * The ring around the recommended setting, and its two-line label above it (below it when there is no
 * room above), kept within the plot horizontally.
 */
function recommendationMark(rec: TuneCandidate, rx: number, ry: number): string {
  const lines = [
    'recommended',
    `${FAMILY_STYLES[rec.config.family].label}: ${describeParameters(rec.config)}`,
  ];
  const width = Math.max(...lines.map((l) => l.length)) * CHAR_PX;
  const x0 = Math.min(Math.max(rx - width / 2, LEFT + 4), RIGHT - 4 - width);
  const above = ry - 52 > TOP + 4;
  const leaderEnd = above ? ry - 24 : ry + 24;
  const firstBaseline = above ? ry - 44 : ry + 38;
  const halo = { stroke: '#fff', 'stroke-width': 4, 'paint-order': 'stroke', 'font-size': 12 };
  return el(
    'g',
    { class: 'recommendation', 'data-family': rec.config.family },
    [
      el('circle', { cx: rx, cy: ry, r: 9, fill: 'none', stroke: '#000', 'stroke-width': 2 }),
      el('line', { x1: rx, y1: above ? ry - 9 : ry + 9, x2: rx, y2: leaderEnd, stroke: '#000' }),
      text(x0, firstBaseline, lines[0]!, { ...halo, 'font-weight': 600 }),
      text(x0, firstBaseline + 15, lines[1]!, halo),
    ].join(''),
  );
}

/** The rule, wrapped to the legend's width. */
function ruleLines(rule: string): string[] {
  const words = `Recommended: ${rule}.`.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + word.length + 1 > 30) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

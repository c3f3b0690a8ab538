/**
 * Hand-written SVG charts for bench results: a line chart (linear or logarithmic axes, gaps for missing
 * points, dashed series) and a grouped bar chart (linear or logarithmic value axis, value labels). No
 * dependencies: the output is a self-contained SVG string with a white background, readable where
 * GitHub renders it in a light or a dark theme, and every element a test may look for carries a class.
 */

/** Colours of Okabe and Ito's palette, which stays distinguishable with the common colour blindnesses. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
/** Rough width of one character at the 12 px font, for layout (no font metrics without a browser). */
const CHAR_PX = 6.6;

/** One point of a line; y null leaves a gap. */
export interface LinePoint {
  readonly x: number;
  readonly y: number | null;
}

export interface LineSeries {
  readonly name: string;
  readonly points: readonly LinePoint[];
  readonly dashed?: boolean;
  /** Default: the next colour of {@link PALETTE}. */
  readonly color?: string;
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  readonly width?: number;
  readonly height?: number;
  /** Logarithmic x axis (every x must be > 0). */
  readonly logX?: boolean;
  /** Logarithmic y axis (y <= 0 is left out, as a gap). */
  readonly logY?: boolean;
  /** Whether a linear y axis starts at 0 (default true). */
  readonly yFromZero?: boolean;
  /** Ticks of the x axis; default: the distinct x values of the series when there are at most 12. */
  readonly xTicks?: readonly number[];
  readonly formatX?: (x: number) => string;
  readonly formatY?: (y: number) => string;
  /** A line of small print under the chart (what was measured, how many seeds). */
  readonly note?: string;
}

export interface BarSeries {
  readonly name: string;
  /** One value per category; null draws nothing and labels the slot `n/a`. */
  readonly values: readonly (number | null)[];
  readonly color?: string;
}

export interface BarChartOptions {
  readonly title: string;
  readonly yLabel: string;
  readonly categories: readonly string[];
  readonly series: readonly BarSeries[];
  readonly width?: number;
  readonly height?: number;
  /** Logarithmic value axis: zero bars are not drawn but still labelled `0`. */
  readonly logY?: boolean;
  readonly formatValue?: (v: number) => string;
  readonly note?: string;
}

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A number shortened for a tick or a label: 1.5k, 12, 0.25. */
export function formatNumber(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${trim((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${trim((v / 1e3).toPrecision(3))}k`;
  if (a >= 100 || a === 0) return String(Math.round(v));
  return trim(v.toPrecision(2));
}

function trim(s: string): string {
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * About `count` round tick values covering [min, max] (steps of 1, 2 or 5 × 10^k), the first at or
 * below min and the last at or above max.
 */
export function linearTicks(min: number, max: number, count = 5): number[] {
  if (!(Number.isFinite(min) && Number.isFinite(max))) return [0, 1];
  if (max < min) [min, max] = [max, min];
  if (max === min) {
    const pad = min === 0 ? 1 : Math.abs(min) / 2;
    min -= pad;
    max += pad;
  }
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const first = Math.floor(min / step + 1e-9) * step;
  const ticks: number[] = [];
  for (let t = first; t < max + step - 1e-9 * step; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** Powers of ten covering [min, max] (min > 0), with 2 and 5 between them when they span one decade. */
export function logTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(min) + 1e-9);
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max) - 1e-9));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) {
    ticks.push(10 ** e);
    if (hi - lo <= 1 && e < hi) ticks.push(2 * 10 ** e, 5 * 10 ** e);
  }
  return ticks.map((t) => Number(t.toPrecision(12)));
}

interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

function open(frame: Frame, title: string): string[] {
  const { width, height } = frame;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}" ${FONT} font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text class="title" x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="600" fill="#111">${escapeXml(title)}</text>`,
  ];
}

/** The legend as a row (wrapping) of swatches and names under the title; returns its height too. */
function legend(
  items: readonly { name: string; color: string; dashed?: boolean; bar?: boolean }[],
  width: number,
  top: number,
): { svg: string[]; height: number } {
  const svg: string[] = [];
  let x = 16;
  let y = top;
  for (const item of items) {
    const w = 34 + item.name.length * CHAR_PX + 14;
    if (x + w > width - 8 && x > 16) {
      x = 16;
      y += 18;
    }
    const swatch = item.bar
      ? `<rect x="${x}" y="${y - 9}" width="22" height="10" fill="${item.color}"/>`
      : `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${item.color}" stroke-width="2.5"${item.dashed ? ' stroke-dasharray="6 4"' : ''}/>`;
    svg.push(
      `<g class="legend-item">${swatch}<text x="${x + 28}" y="${y}" fill="#222">${escapeXml(item.name)}</text></g>`,
    );
    x += w;
  }
  return { svg, height: y - top + 18 };
}

/** Where `v` falls from `lo` (0) to `hi` (1), on a linear or a logarithmic scale. */
function position(v: number, lo: number, hi: number, log: boolean): number {
  return log
    ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)
    : (v - lo) / (hi - lo || 1);
}

/** Horizontal grid lines at `ticks` of the value axis, each with its label on the left. */
function yGrid(
  frame: Frame,
  ticks: readonly number[],
  fy: (v: number) => number,
  format: (v: number) => string,
): string[] {
  return ticks.flatMap((t) => {
    const y = fy(t).toFixed(1);
    return [
      `<line class="y-grid" x1="${frame.left}" y1="${y}" x2="${frame.width - frame.right}" y2="${y}" stroke="#e3e3e3"/>`,
      `<text class="y-tick" x="${frame.left - 6}" y="${y}" dy="4" text-anchor="end" fill="#444">${escapeXml(format(t))}</text>`,
    ];
  });
}

/** The axis labels (a bar chart's categories stand where an x label would) and the note. */
function axisLabels(
  frame: Frame,
  xLabel: string | undefined,
  yLabel: string,
  note: string | undefined,
): string[] {
  const { width, height, left, right, top, bottom } = frame;
  const midY = (top + height - bottom) / 2;
  const out: string[] = [];
  if (xLabel !== undefined) {
    out.push(
      `<text class="x-label" x="${(left + width - right) / 2}" y="${height - bottom + 38}" text-anchor="middle" fill="#222">${escapeXml(xLabel)}</text>`,
    );
  }
  out.push(
    `<text class="y-label" x="16" y="${midY}" text-anchor="middle" transform="rotate(-90 16 ${midY})" fill="#222">${escapeXml(yLabel)}</text>`,
  );
  if (note !== undefined) {
    out.push(
      `<text class="note" x="${left}" y="${height - 10}" font-size="10.5" fill="#555">${escapeXml(note)}</text>`,
    );
  }
  return out;
}

/** A line chart of one or more series. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 680;
  const height = o.height ?? 420;
  const colors = o.series.map((s, i) => s.color ?? PALETTE[i % PALETTE.length]!);
  const items = o.series.map((s, i) => ({ name: s.name, color: colors[i]!, dashed: s.dashed === true }));
  const leg = legend(items, width, 44);
  const frame: Frame = {
    width,
    height,
    left: 64,
    right: 20,
    top: 44 + leg.height + 6,
    bottom: o.note === undefined ? 52 : 66,
  };
  const plotW = width - frame.left - frame.right;
  const plotH = height - frame.top - frame.bottom;

  const logX = o.logX === true;
  const logY = o.logY === true;
  const usable = (p: LinePoint): boolean => (!logX || p.x > 0) && p.y !== null && (!logY || p.y > 0);
  const xs = o.series.flatMap((s) => s.points.filter((p) => !logX || p.x > 0).map((p) => p.x));
  const ys = o.series.flatMap((s) => s.points.filter(usable).map((p) => p.y!));
  const distinctX = [...new Set(xs)].sort((a, b) => a - b);
  const xTicks =
    o.xTicks ??
    (distinctX.length > 0 && distinctX.length <= 12
      ? distinctX
      : logX
        ? logTicks(Math.min(...xs, 1), Math.max(...xs, 10))
        : linearTicks(Math.min(...xs, 0), Math.max(...xs, 1)));
  const xMin = Math.min(...xTicks, ...xs);
  const xMax = Math.max(...xTicks, ...xs);
  const yTicks = logY
    ? logTicks(ys.length > 0 ? Math.min(...ys) : 1, ys.length > 0 ? Math.max(...ys) : 10)
    : linearTicks(
        o.yFromZero === false && ys.length > 0 ? Math.min(...ys) : Math.min(0, ...ys),
        ys.length > 0 ? Math.max(...ys) : 1,
      );
  const yMin = yTicks[0]!;
  const yMax = yTicks[yTicks.length - 1]!;

  const fx = (x: number): number => frame.left + position(x, xMin, xMax, logX) * plotW;
  const fy = (y: number): number => frame.top + plotH - position(y, yMin, yMax, logY) * plotH;
  const formatX = o.formatX ?? formatNumber;
  const formatY = o.formatY ?? formatNumber;

  const svg = open(frame, o.title);
  svg.push(...leg.svg);
  svg.push('<g class="grid">', ...yGrid(frame, yTicks, fy, formatY));
  for (const t of xTicks) {
    const x = fx(t).toFixed(1);
    svg.push(
      `<line class="x-grid" x1="${x}" y1="${frame.top}" x2="${x}" y2="${height - frame.bottom}" stroke="#f0f0f0"/>`,
      `<text class="x-tick" x="${x}" y="${height - frame.bottom + 18}" text-anchor="middle" fill="#444">${escapeXml(formatX(t))}</text>`,
    );
  }
  svg.push('</g>');
  svg.push(
    `<rect class="plot-frame" x="${frame.left}" y="${frame.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
  );
  o.series.forEach((s, i) => {
    const color = colors[i]!;
    const segments: string[][] = [[]];
    const dots: string[] = [];
    for (const p of s.points) {
      if (!usable(p)) {
        if (segments[segments.length - 1]!.length > 0) segments.push([]);
        continue;
      }
      const x = fx(p.x).toFixed(1);
      const y = fy(p.y!).toFixed(1);
      segments[segments.length - 1]!.push(`${x},${y}`);
      dots.push(`<circle cx="${x}" cy="${y}" r="3" fill="${color}"/>`);
    }
    const dash = s.dashed === true ? ' stroke-dasharray="6 4"' : '';
    svg.push(`<g class="series" data-series="${escapeXml(s.name)}">`);
    for (const seg of segments) {
      if (seg.length === 0) continue;
      svg.push(
        `<path d="M${seg.join(' L')}" fill="none" stroke="${color}" stroke-width="2.2"${dash} stroke-linejoin="round"/>`,
      );
    }
    svg.push(...dots, '</g>');
  });
  svg.push(...axisLabels(frame, o.xLabel, o.yLabel, o.note), '</svg>');
  return `${svg.join('\n')}\n`;
}

/** Splits `text` into lines of at most `max` characters at spaces (a longer word keeps its own line). */
export function wrapText(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= max) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A grouped bar chart: one group per category, one bar per series in each. */
export function barChart(o: BarChartOptions): string {
  const width = o.width ?? 680;
  const height = o.height ?? 420;
  const colors = o.series.map((s, i) => s.color ?? PALETTE[i % PALETTE.length]!);
  const leg = legend(
    o.series.map((s, i) => ({ name: s.name, color: colors[i]!, bar: true })),
    width,
    44,
  );
  const groupWidth = (width - 64 - 20) / Math.max(1, o.categories.length);
  const labelLines = o.categories.map((c) =>
    wrapText(c, Math.max(8, Math.floor((groupWidth - 8) / CHAR_PX))),
  );
  const maxLines = Math.max(1, ...labelLines.map((l) => l.length));
  const frame: Frame = {
    width,
    height,
    left: 64,
    right: 20,
    top: 44 + leg.height + 10,
    bottom: 40 + maxLines * 14 + (o.note === undefined ? 0 : 14),
  };
  const plotW = width - frame.left - frame.right;
  const plotH = height - frame.top - frame.bottom;
  const logY = o.logY === true;
  const values = o.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const positive = values.filter((v) => v > 0);
  const ticks = logY
    ? logTicks(positive.length > 0 ? Math.min(...positive, 1) : 1, Math.max(...positive, 10))
    : linearTicks(Math.min(0, ...values), Math.max(1, ...values));
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  // Ticks always span a range (hi > lo), so the scale never divides by zero.
  const fy = (v: number): number => frame.top + plotH - position(v, lo, hi, logY) * plotH;
  const base = logY ? frame.top + plotH : fy(0);
  const formatValue = o.formatValue ?? formatNumber;

  const svg = open(frame, o.title);
  svg.push(...leg.svg, '<g class="grid">', ...yGrid(frame, ticks, fy, formatNumber), '</g>');
  const n = Math.max(1, o.series.length);
  const barWidth = Math.min(56, (groupWidth * 0.8) / n);
  o.categories.forEach((category, c) => {
    const groupLeft = frame.left + c * (plotW / o.categories.length);
    const center = groupLeft + plotW / o.categories.length / 2;
    const first = center - (barWidth * n) / 2;
    svg.push(`<g class="group" data-category="${escapeXml(category)}">`);
    o.series.forEach((s, i) => {
      const v = s.values[c] ?? null;
      const x = first + i * barWidth;
      const label = v === null ? 'n/a' : formatValue(v);
      let top = base;
      if (v !== null && (!logY || v > 0)) {
        top = Math.min(base, fy(logY ? Math.max(v, lo) : v));
        const h = Math.abs(base - fy(logY ? Math.max(v, lo) : v));
        svg.push(
          `<rect class="bar" data-series="${escapeXml(s.name)}" x="${(x + 1).toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${colors[i]}"/>`,
        );
      }
      svg.push(
        `<text class="bar-label" x="${(x + barWidth / 2).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle" font-size="11" fill="#222">${escapeXml(label)}</text>`,
      );
    });
    labelLines[c]!.forEach((line, k) => {
      svg.push(
        `<text class="category" x="${center.toFixed(1)}" y="${height - frame.bottom + 18 + k * 14}" text-anchor="middle" fill="#222">${escapeXml(line)}</text>`,
      );
    });
    svg.push('</g>');
  });
  svg.push(
    `<line class="baseline" x1="${frame.left}" y1="${base.toFixed(1)}" x2="${width - frame.right}" y2="${base.toFixed(1)}" stroke="#888"/>`,
  );
  svg.push(...axisLabels(frame, undefined, o.yLabel, o.note), '</svg>');
  return `${svg.join('\n')}\n`;
}

/**
 * The frontier chart of the defaults search: every screened candidate a dot (all-know time against
 * false suspicions at one cluster size): filled when it meets every constraint, pale when it breaks only
 * the noisy comparisons (false suspicions, starved members' deaths), hollow when it breaks a hard one
 * (a false death, the load bound, a missed crash); the Pareto frontier of the first two kinds as a
 * staircase, and the three baselines marked and labelled. A scatter plot on the benches' SVG helpers
 * (`../support/svg-chart.ts`).
 */
import { escapeXml, formatNumber, linearTicks, logTicks, PALETTE, wrapText } from '../support/svg-chart.js';
import { paretoFrontier } from './evaluate.js';

export interface FrontierPoint {
  readonly key: string;
  /** False suspicions. */
  readonly x: number;
  /** All-know time, in s. */
  readonly y: number;
  /** Meets every constraint; `soft`: breaks only the noisy comparisons; `hard`: breaks a hard one. */
  readonly verdict: 'feasible' | 'soft' | 'hard';
  readonly role: 'memberlist' | 'fdkit-old' | 'new' | 'candidate';
}

export interface FrontierChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly points: readonly FrontierPoint[];
  readonly note?: string;
}

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const MARKS = {
  memberlist: { name: 'memberlist (its defaults)', color: '#000000' },
  'fdkit-old': { name: 'fdkit old', color: PALETTE[3]! },
  new: { name: 'fdkit new', color: PALETTE[2]! },
} as const;
const FEASIBLE = PALETTE[0]!;
const SOFT = PALETTE[5]!;
const FRONTIER = PALETTE[1]!;
const INFEASIBLE = '#9a9a9a';

/** The marker of a baseline at (x, y): a square, a diamond or a triangle. */
function marker(role: keyof typeof MARKS, x: number, y: number): string {
  const c = MARKS[role].color;
  const r = 6.5;
  switch (role) {
    case 'memberlist':
      return `<rect x="${(x - r).toFixed(1)}" y="${(y - r).toFixed(1)}" width="${2 * r}" height="${2 * r}" fill="${c}"/>`;
    case 'fdkit-old':
      return `<path d="M${x.toFixed(1)},${(y - r - 1).toFixed(1)} L${(x + r + 1).toFixed(1)},${y.toFixed(1)} L${x.toFixed(1)},${(y + r + 1).toFixed(1)} L${(x - r - 1).toFixed(1)},${y.toFixed(1)} Z" fill="${c}"/>`;
    case 'new':
      return `<path d="M${x.toFixed(1)},${(y - r - 1).toFixed(1)} L${(x + r + 1).toFixed(1)},${(y + r).toFixed(1)} L${(x - r - 1).toFixed(1)},${(y + r).toFixed(1)} Z" fill="${c}"/>`;
  }
}

/** A scatter chart of the candidates, the frontier of those without a hard violation, and the baselines. */
export function frontierChart(o: FrontierChartOptions): string {
  const width = 900;
  const height = 560;
  const noteLines = o.note === undefined ? [] : wrapText(o.note, 115);
  const frame = { left: 72, right: 24, top: 104, bottom: 58 + noteLines.length * 13 };
  const plotW = width - frame.left - frame.right;
  const plotH = height - frame.top - frame.bottom;
  const pts = o.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const logX = xs.length > 0 && Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) > 5;
  const xTicks = logX
    ? logTicks(Math.min(...xs), Math.max(...xs))
    : linearTicks(0, xs.length === 0 ? 1 : Math.max(...xs));
  const yTicks = linearTicks(0, ys.length === 0 ? 1 : Math.max(...ys));
  const [x0, x1] = [xTicks[0]!, xTicks[xTicks.length - 1]!];
  const [y0, y1] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const fx = (x: number): number =>
    frame.left +
    (logX ? (Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0)) : (x - x0) / (x1 - x0)) *
      plotW;
  const fy = (y: number): number => frame.top + plotH - ((y - y0) / (y1 - y0)) * plotH;

  const svg: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(o.title)}" ${FONT} font-size="12">`,
    `<title>${escapeXml(o.title)}</title>`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text class="title" x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600" fill="#111">${escapeXml(o.title)}</text>`,
  ];
  // Legend, two rows.
  const legend: { name: string; swatch: (x: number, y: number) => string }[] = [
    {
      name: 'meets every constraint',
      swatch: (x, y) => `<circle cx="${x + 8}" cy="${y - 4}" r="4" fill="${FEASIBLE}" fill-opacity="0.85"/>`,
    },
    {
      name: 'more suspicions or starved deaths',
      swatch: (x, y) => `<circle cx="${x + 8}" cy="${y - 4}" r="4" fill="${SOFT}" fill-opacity="0.6"/>`,
    },
    {
      name: 'a false death, the load or a miss',
      swatch: (x, y) =>
        `<circle cx="${x + 8}" cy="${y - 4}" r="4" fill="none" stroke="${INFEASIBLE}" stroke-width="1.3"/>`,
    },
    {
      name: 'frontier of the first two kinds',
      swatch: (x, y) =>
        `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${FRONTIER}" stroke-width="2"/>`,
    },
    {
      name: 'frontier of all candidates',
      swatch: (x, y) =>
        `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${INFEASIBLE}" stroke-width="1.5" stroke-dasharray="5 4"/>`,
    },
    ...(['memberlist', 'fdkit-old', 'new'] as const).map((role) => ({
      name: MARKS[role].name,
      swatch: (x: number, y: number) => marker(role, x + 8, y - 4),
    })),
  ];
  legend.forEach((item, i) => {
    const x = 20 + (i % 3) * 290;
    const y = 48 + Math.floor(i / 3) * 19;
    svg.push(
      `<g class="legend-item">${item.swatch(x, y)}<text x="${x + 28}" y="${y}" fill="#222">${escapeXml(item.name)}</text></g>`,
    );
  });
  svg.push('<g class="grid">');
  for (const t of yTicks) {
    const y = fy(t).toFixed(1);
    svg.push(
      `<line class="y-grid" x1="${frame.left}" y1="${y}" x2="${width - frame.right}" y2="${y}" stroke="#e3e3e3"/>`,
      `<text class="y-tick" x="${frame.left - 6}" y="${y}" dy="4" text-anchor="end" fill="#444">${escapeXml(formatNumber(t))}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = fx(t).toFixed(1);
    svg.push(
      `<line class="x-grid" x1="${x}" y1="${frame.top}" x2="${x}" y2="${height - frame.bottom}" stroke="#f0f0f0"/>`,
      `<text class="x-tick" x="${x}" y="${height - frame.bottom + 18}" text-anchor="middle" fill="#444">${escapeXml(formatNumber(t))}</text>`,
    );
  }
  svg.push('</g>');
  svg.push(
    `<rect class="plot-frame" x="${frame.left}" y="${frame.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
  );
  const candidates = pts.filter((p) => p.role === 'candidate' || p.role === 'new');
  svg.push('<g class="candidates">');
  for (const p of candidates) {
    const [cx, cy] = [fx(p.x).toFixed(1), fy(p.y).toFixed(1)];
    svg.push(
      p.verdict === 'feasible'
        ? `<circle class="dot feasible" cx="${cx}" cy="${cy}" r="3.5" fill="${FEASIBLE}" fill-opacity="0.85"/>`
        : p.verdict === 'soft'
          ? `<circle class="dot soft" cx="${cx}" cy="${cy}" r="3.5" fill="${SOFT}" fill-opacity="0.6"/>`
          : `<circle class="dot hard" cx="${cx}" cy="${cy}" r="3.5" fill="none" stroke="${INFEASIBLE}" stroke-width="1.2"/>`,
    );
  }
  svg.push('</g>');
  // A staircase: each frontier point holds until the next one, to the right, is lower.
  const staircase = (points: readonly FrontierPoint[], attributes: string, cls: string): void => {
    const front = paretoFrontier(points).map((i) => points[i]!);
    if (front.length === 0) return;
    const steps: string[] = [];
    front.forEach((p, i) => {
      steps.push(`${fx(p.x).toFixed(1)},${fy(p.y).toFixed(1)}`);
      const next = front[i + 1];
      if (next !== undefined) steps.push(`${fx(next.x).toFixed(1)},${fy(p.y).toFixed(1)}`);
    });
    steps.push(`${(width - frame.right).toFixed(1)},${fy(front[front.length - 1]!.y).toFixed(1)}`);
    svg.push(
      `<path class="${cls}" d="M${steps.join(' L')}" fill="none" ${attributes} stroke-linejoin="round"/>`,
    );
  };
  staircase(candidates, `stroke="${INFEASIBLE}" stroke-width="1.5" stroke-dasharray="5 4"`, 'frontier-all');
  staircase(
    candidates.filter((p) => p.verdict !== 'hard'),
    `stroke="${FRONTIER}" stroke-width="2"`,
    'frontier',
  );
  // Each baseline's label has a side of its own, so that the three stay apart when their points are close.
  const place = {
    memberlist: [12, -10, 'start'],
    'fdkit-old': [12, 18, 'start'],
    new: [-12, 18, 'end'],
  } as const;
  for (const role of ['memberlist', 'fdkit-old', 'new'] as const) {
    const p = pts.find((q) => q.role === role);
    if (p === undefined) continue;
    const [x, y] = [fx(p.x), fy(p.y)];
    const [dx, dy, anchor] = place[role];
    svg.push(
      `<g class="baseline" data-role="${role}">${marker(role, x, y)}<text x="${(x + dx).toFixed(1)}" y="${(y + dy).toFixed(1)}" text-anchor="${anchor}" font-weight="600" fill="${MARKS[role].color}">${escapeXml(MARKS[role].name)}</text></g>`,
    );
  }
  const midY = frame.top + plotH / 2;
  svg.push(
    `<text class="x-label" x="${frame.left + plotW / 2}" y="${height - frame.bottom + 38}" text-anchor="middle" fill="#222">${escapeXml(o.xLabel)}${logX ? ' (log scale)' : ''}</text>`,
    `<text class="y-label" x="18" y="${midY}" text-anchor="middle" transform="rotate(-90 18 ${midY})" fill="#222">${escapeXml(o.yLabel)}</text>`,
  );
  noteLines.forEach((line, i) => {
    svg.push(
      `<text class="note" x="${frame.left}" y="${height - 12 - (noteLines.length - 1 - i) * 13}" font-size="10.5" fill="#555">${escapeXml(line)}</text>`,
    );
  });
  svg.push('</svg>');
  return `${svg.join('\n')}\n`;
}

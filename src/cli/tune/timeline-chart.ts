/**
 * The trace chart of the tuning report: the silence between consecutive heartbeats over the trace (what
 * every detector had to judge), the sender's pauses and crash when the trace knows them, and below it
 * the periods during which the recommended setting suspected the sender. Long traces are reduced to the
 * lowest and highest gap per pixel column, which keeps every spike and the file small.
 */
import type { Replay } from '../../trace/replay.js';
import type { Trace } from '../../trace/trace.js';
import { linearScale } from './scale.js';
import { el, escapeXml, px, text } from './svg.js';

const WIDTH = 820;
const HEIGHT = 300;
const LEFT = 72;
const RIGHT = WIDTH - 30;
const TOP = 40;
const BOTTOM = 200;
const STRIP_TOP = 236;
const STRIP_HEIGHT = 16;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** Sender pauses a generated trace's header records. */
function pausesOf(trace: Trace): { atMs: number; durationMs: number }[] {
  const pauses = trace.header.generator?.pauses;
  if (!Array.isArray(pauses)) return [];
  return pauses.flatMap((p) => {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return [];
    const { atMs, durationMs } = p as { atMs?: unknown; durationMs?: unknown };
    return typeof atMs === 'number' && typeof durationMs === 'number' ? [{ atMs, durationMs }] : [];
  });
}

/**
 * The SVG of the trace chart; `replay` is the recommended setting's replay, whose suspicions are drawn,
 * or undefined when there is no recommendation.
 */
export function timelineChart(
  trace: Trace,
  arrivalMs: Float64Array,
  replay: Replay | undefined,
  label: string,
): string {
  const durationMs = trace.header.durationMs;
  const minutes = durationMs / 60_000;
  const x = linearScale(0, minutes, LEFT, RIGHT, 8);
  let maxGap = trace.header.intervalMs * 2;
  for (let i = 1; i < arrivalMs.length; i++) maxGap = Math.max(maxGap, arrivalMs[i]! - arrivalMs[i - 1]!);
  const y = linearScale(0, (maxGap / 1000) * 1.08, BOTTOM, TOP, 5);

  // Lowest and highest gap per pixel column, joined column to column as a line chart, so that a lone
  // long gap rises from its neighbours instead of floating.
  const columns = Math.ceil(RIGHT - LEFT);
  const low = new Float64Array(columns).fill(Number.POSITIVE_INFINITY);
  const high = new Float64Array(columns).fill(Number.NEGATIVE_INFINITY);
  for (let i = 1; i < arrivalMs.length; i++) {
    const column = Math.min(columns - 1, Math.floor(x.at(arrivalMs[i]! / 60_000) - LEFT));
    const gap = (arrivalMs[i]! - arrivalMs[i - 1]!) / 1000;
    if (gap < low[column]!) low[column] = gap;
    if (gap > high[column]!) high[column] = gap;
  }
  let d = '';
  for (let c = 0; c < columns; c++) {
    if (high[c]! < 0) continue;
    const cx = px(LEFT + c + 0.5);
    d += `${d === '' ? 'M' : 'L'}${cx},${px(y.at(low[c]!))}`;
    if (high[c]! > low[c]!) d += `L${cx},${px(y.at(high[c]!))}`;
  }

  const parts: string[] = [el('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: '#ffffff' })];
  parts.push(text(LEFT, 24, `Silence between heartbeats, ${label}`, { 'font-size': 15, 'font-weight': 600 }));
  const grid: string[] = [];
  for (const t of x.ticks()) {
    const gx = x.at(t.value);
    grid.push(el('line', { x1: gx, y1: TOP, x2: gx, y2: BOTTOM, stroke: '#e6e6e6' }));
    grid.push(text(gx, STRIP_TOP + STRIP_HEIGHT + 18, t.label, { 'text-anchor': 'middle', 'font-size': 11 }));
  }
  for (const t of y.ticks()) {
    const gy = y.at(t.value);
    grid.push(el('line', { x1: LEFT, y1: gy, x2: RIGHT, y2: gy, stroke: '#e6e6e6' }));
    grid.push(text(LEFT - 8, gy + 4, t.label, { 'text-anchor': 'end', 'font-size': 11 }));
  }
  grid.push(
    el('rect', { x: LEFT, y: TOP, width: RIGHT - LEFT, height: BOTTOM - TOP, fill: 'none', stroke: '#999' }),
  );
  parts.push(el('g', { class: 'grid' }, grid.join('')));
  parts.push(
    text(0, 0, 'gap (s)', {
      transform: `translate(${px(LEFT - 44)},${px((TOP + BOTTOM) / 2)}) rotate(-90)`,
      'text-anchor': 'middle',
      'font-size': 12,
    }),
  );
  parts.push(
    text((LEFT + RIGHT) / 2, HEIGHT - 6, 'time since the start of the trace (min)', {
      'text-anchor': 'middle',
      'font-size': 12,
    }),
  );

  const events: string[] = [];
  for (const p of pausesOf(trace)) {
    const px0 = x.at(p.atMs / 60_000);
    events.push(
      el('line', { x1: px0, y1: TOP, x2: px0, y2: BOTTOM, stroke: '#7b3294', 'stroke-dasharray': '2 3' }),
    );
    events.push(
      text(px0 + 3, TOP + 12, `pause ${p.durationMs / 1000} s`, { 'font-size': 10, fill: '#7b3294' }),
    );
  }
  const crash = trace.header.crashAtMs;
  if (crash !== undefined) {
    const cx = x.at(crash / 60_000);
    events.push(
      el('line', {
        x1: cx,
        y1: TOP,
        x2: cx,
        y2: STRIP_TOP + STRIP_HEIGHT,
        stroke: '#c00',
        'stroke-width': 1.5,
      }),
    );
    events.push(text(cx - 3, TOP + 12, 'crash', { 'font-size': 10, fill: '#c00', 'text-anchor': 'end' }));
  }
  parts.push(el('path', { class: 'gaps', d, stroke: '#0072B2', 'stroke-width': 1, fill: 'none' }));
  parts.push(el('g', { class: 'events' }, events.join('')));

  // The recommended setting's suspicions: at least a pixel wide, so that short ones show.
  const strip: string[] = [
    el('rect', {
      x: LEFT,
      y: STRIP_TOP,
      width: RIGHT - LEFT,
      height: STRIP_HEIGHT,
      fill: '#eef6ee',
      stroke: '#999',
    }),
    text(
      LEFT,
      STRIP_TOP - 6,
      replay === undefined ? 'no recommended setting' : 'recommended setting: suspected (red)',
      {
        'font-size': 11,
      },
    ),
  ];
  for (const s of replay?.suspicions ?? []) {
    const sx = x.at(s.startMs / 60_000);
    const width = Math.max(1, x.at(s.endMs / 60_000) - sx);
    strip.push(el('rect', { x: sx, y: STRIP_TOP, width, height: STRIP_HEIGHT, fill: '#d7191c' }));
  }
  parts.push(el('g', { class: 'suspicions' }, strip.join('')));

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} role="img">` +
    `<title>${escapeXml(`Silence between heartbeats, ${label}`)}</title>${parts.join('\n')}</svg>\n`
  );
}

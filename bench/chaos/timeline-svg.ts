/**
 * The chaos run's timeline as one self-contained SVG: the faults as bands across the whole chart
 * (labelled above it), then one row per member, made of one thin line per other member, coloured by the
 * state in which this member held it over time; the line of the member itself shows its own process
 * (running, paused, down). Time runs left to right, in seconds from the first fault.
 */
import { escapeXml } from '../support/svg-chart.js';
import type { Life, ViewChange, ViewState } from './history.js';
import type { FaultRecord } from './inject.js';
import type { FaultKind } from './schedule.js';

export interface TimelineInput {
  readonly title: string;
  readonly names: readonly string[];
  readonly startMs: number;
  readonly endMs: number;
  readonly faults: readonly FaultRecord[];
  readonly changes: readonly ViewChange[];
  readonly lives: readonly Life[];
}

const STATE_COLOURS: Readonly<Record<ViewState | 'self' | 'paused', string>> = {
  alive: '#009E73',
  suspect: '#E69F00',
  dead: '#D55E00',
  left: '#0072B2',
  self: '#555555',
  paused: '#CC79A7',
};
const FAULT_COLOURS: Readonly<Record<FaultKind, string>> = {
  halves: '#0072B2',
  isolate: '#56B4E9',
  'one-way': '#009E73',
  loss: '#E69F00',
  pause: '#CC79A7',
  kill: '#000000',
  leave: '#D55E00',
};
const FAMILY = 'font-family="system-ui, Helvetica, Arial, sans-serif"';
const FONT = `${FAMILY} font-size="11"`;
const LEFT = 44;
const WIDTH = 1200;
const LINE = 4;
const ROW_GAP = 6;
const TOP = 70;

function rect(x: number, y: number, w: number, h: number, fill: string, extra = ''): string {
  return `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.5, w).toFixed(1)}" height="${h}" fill="${fill}"${extra}/>`;
}

/** A fault's short label: its kind and, when it hits one member, that member. */
function label(f: FaultRecord, names: readonly string[]): string {
  const who = f.fault.members.length === 1 ? ` ${names[f.fault.members[0]!]}` : '';
  return f.fault.kind === 'loss' ? `loss ${f.fault.lossPercent}%` : `${f.fault.kind}${who}`;
}

export function timelineSvg(t: TimelineInput): string {
  const plotW = WIDTH - LEFT - 10;
  const span = Math.max(1, t.endMs - t.startMs);
  const x = (ms: number): number =>
    LEFT + (Math.min(Math.max(ms, t.startMs), t.endMs) - t.startMs) * (plotW / span);
  const n = t.names.length;
  const rowH = n * LINE + ROW_GAP;
  const plotH = n * rowH;
  const height = TOP + plotH + 60;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    rect(0, 0, WIDTH, height, '#ffffff'),
    `<text x="${LEFT}" y="16" ${FAMILY} font-size="13" font-weight="bold">${escapeXml(t.title)}</text>`,
  ];
  for (const [k, f] of t.faults.entries()) {
    const x0 = x(f.startedMs);
    const w = x(f.endedMs) - x0;
    const colour = FAULT_COLOURS[f.fault.kind];
    out.push(rect(x0, TOP, w, plotH, colour, ' fill-opacity="0.12" class="fault"'));
    out.push(rect(x0, TOP - 14, w, 10, colour, ' class="fault-label"'));
    out.push(
      `<text x="${x0.toFixed(1)}" y="${TOP - 18 - (k % 3) * 11}" ${FONT}>${escapeXml(label(f, t.names))}</text>`,
    );
  }
  for (const [i, observer] of t.names.entries()) {
    const y0 = TOP + i * rowH;
    out.push(`<text x="4" y="${y0 + (n * LINE) / 2 + 4}" ${FONT}>${escapeXml(observer)}</text>`);
    const lives = t.lives.filter((l) => l.name === observer);
    for (const [j, member] of t.names.entries()) {
      const y = y0 + j * LINE;
      for (const life of lives) {
        const to = life.toMs ?? t.endMs;
        if (member === observer) {
          out.push(rect(x(life.fromMs), y, x(to) - x(life.fromMs), LINE, STATE_COLOURS.self));
          continue;
        }
        // The states this life held `member` in, each until the next change or the life's end.
        const own = t.changes.filter(
          (c) => c.observer === observer && c.member === member && c.atMs >= life.fromMs && c.atMs < to,
        );
        for (const [k, c] of own.entries()) {
          const until = own[k + 1]?.atMs ?? to;
          out.push(rect(x(c.atMs), y, x(until) - x(c.atMs), LINE, STATE_COLOURS[c.state]));
        }
      }
    }
    for (const f of t.faults.filter(
      (r) => r.fault.kind === 'pause' && t.names[r.fault.members[0]!] === observer,
    )) {
      out.push(
        rect(x(f.startedMs), y0 + i * LINE, x(f.endedMs) - x(f.startedMs), LINE, STATE_COLOURS.paused),
      );
    }
  }
  const axisY = TOP + plotH + 4;
  const step = span > 300_000 ? 60_000 : span > 60_000 ? 10_000 : 5000;
  for (let s = 0; s <= span && s < 10_000_000; s += step) {
    const xs = x(t.startMs + s);
    out.push(
      `<line x1="${xs.toFixed(1)}" y1="${TOP}" x2="${xs.toFixed(1)}" y2="${axisY}" stroke="#999" stroke-width="0.5"/>`,
    );
    out.push(`<text x="${xs.toFixed(1)}" y="${axisY + 12}" ${FONT} text-anchor="middle">${s / 1000}s</text>`);
  }
  const legend: [string, string][] = [
    ['alive', STATE_COLOURS.alive],
    ['suspect', STATE_COLOURS.suspect],
    ['dead', STATE_COLOURS.dead],
    ['left', STATE_COLOURS.left],
    ['own process running', STATE_COLOURS.self],
    ['paused', STATE_COLOURS.paused],
    ['no process / unknown', '#ffffff'],
  ];
  let lx = LEFT;
  for (const [label, colour] of legend) {
    out.push(rect(lx, axisY + 24, 12, 10, colour, ' stroke="#999" stroke-width="0.5"'));
    out.push(`<text x="${lx + 16}" y="${axisY + 33}" ${FONT}>${escapeXml(label)}</text>`);
    lx += 24 + label.length * 6.2;
  }
  out.push(
    `<text x="${LEFT}" y="${axisY + 50}" ${FONT}>Each member's row has one line per member (top: ${escapeXml(t.names[0] ?? '')}), coloured by how that member saw it; bands are faults.</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

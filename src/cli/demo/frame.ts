/**
 * One screen of `fdkit demo` on a terminal: a title, the member table, what the columns mean, the current
 * phase, and the latest events, cut to the terminal's width and height so that redrawing it in place
 * never wraps or scrolls. Pure: the terminal glue only moves the cursor and writes these lines.
 */
import type { ClusterView } from './cluster-view.js';
import { seconds, wrap } from './format.js';
import { memberColumns, memberRows, renderTable, VIEW_LEGEND } from './table.js';

/** What one screen shows besides the cluster itself. */
export interface FrameInput {
  readonly title: string;
  /** Ms since the demo started. */
  readonly nowMs: number;
  /** What the demo is doing now. */
  readonly phase: string;
  /** The latest plain output lines, oldest first; the frame shows as many of the last as fit. */
  readonly recent: readonly string[];
  /** Terminal size. */
  readonly columns: number;
  readonly rows: number;
}

/** Lines of the latest-events area at most; fewer when the terminal is short. */
const RECENT_MAX = 10;

/** The screen's lines, each at most `columns - 1` characters, at most `rows - 1` of them. */
export function renderFrame(view: ClusterView, input: FrameInput): string[] {
  const width = Math.max(1, input.columns - 1);
  const head = [
    `${input.title}  ${seconds(input.nowMs, 1)}`,
    '',
    ...renderTable(memberRows(view, input.nowMs), memberColumns(view.names.length)).map((l) => `  ${l}`),
    '',
    ...wrap(`views: how ${view.names.join(' ')} each hold the member: ${VIEW_LEGEND}.`, width, '  '),
    ...wrap(
      'state: what most others hold; leader: whom its own leader hint names (* marks the member most ' +
        'name); phi: the highest phi about it; health: its own Lifeguard score (0 is best); report: age ' +
        'of its latest status report.',
      width,
      '  ',
    ),
    '',
    `> ${input.phase}`,
    '',
  ];
  const room = Math.max(0, Math.min(RECENT_MAX, input.rows - 1 - head.length));
  const recent = room === 0 ? [] : input.recent.slice(-room);
  return [...head, ...recent].slice(0, Math.max(1, input.rows - 1)).map((l) => l.slice(0, width));
}

/**
 * The member table of `fdkit demo`: one row per member, built from the demo's {@link ClusterView}, and
 * rendered as fixed-width text lines. Columns are data ({@link memberColumns}), so that a new one (the
 * leader hint's was) is one more entry, not a change to the layout code. Pure: the caller passes the
 * time.
 */
import type { MemberStateName } from '../../membership/member-state.js';
import type { ClusterView, ProcessState } from './cluster-view.js';
import { formatPhi } from './format.js';

/** Everything the table shows about one member. */
export interface MemberRow {
  readonly name: string;
  readonly process: ProcessState;
  /** How each member holds this one, in member order: one letter each (see {@link VIEW_LEGEND}). */
  readonly views: readonly string[];
  /** The state most members hold it in, with a count when they disagree: `suspect 2/3`. */
  readonly consensus: string;
  /** The highest incarnation anyone holds it at, itself included. */
  readonly incarnation: number | undefined;
  /** The highest phi about it among members whose process runs. */
  readonly phi: number | undefined;
  /** Its own Lifeguard health score, from its latest status report. */
  readonly localHealth: number | undefined;
  /** How old its latest status report is; a stopped process sends none. */
  readonly reportAgeMs: number | undefined;
  /** Whom its own leader hint names (undefined once its process is gone). */
  readonly leader: string | undefined;
  /** Whether more than half of the members with a process name it leader. */
  readonly leads: boolean;
}

/** What the letters of the `views` column mean. */
export const VIEW_LEGEND = 'A alive, S suspect, D dead, L left, ? not known yet, - no process, . itself';

const LETTER: Readonly<Record<MemberStateName, string>> = { alive: 'A', suspect: 'S', dead: 'D', left: 'L' };
// Ties between states go to the worse one, so that a half-suspected member does not read as alive.
const SEVERITY: readonly MemberStateName[] = ['alive', 'suspect', 'left', 'dead'];

function hasProcess(view: ClusterView, name: string): boolean {
  const p = view.member(name).process;
  return p !== 'killed' && p !== 'exited';
}

/** The table's rows at `nowMs` (ms since the demo started). */
export function memberRows(view: ClusterView, nowMs: number): MemberRow[] {
  const withProcess = view.names.filter((n) => hasProcess(view, n));
  const namedBy = (name: string): number => withProcess.filter((o) => view.member(o).leader === name).length;
  return view.names.map((name) => {
    const record = view.member(name);
    const observers = view.names.filter((o) => o !== name && hasProcess(view, o));
    const views = view.names.map((o) => {
      if (o === name) return '.';
      if (!hasProcess(view, o)) return '-';
      const k = view.knowledge(o, name);
      return k === undefined ? '?' : LETTER[k.state];
    });
    const held = observers.flatMap((o) => {
      const k = view.knowledge(o, name);
      return k === undefined ? [] : [k];
    });
    const counts = new Map<MemberStateName, number>();
    for (const k of held) counts.set(k.state, (counts.get(k.state) ?? 0) + 1);
    let consensus = '';
    let best = 0;
    for (const state of SEVERITY) {
      const n = counts.get(state) ?? 0;
      if (n > 0 && n >= best) {
        best = n;
        consensus = best === observers.length ? state : `${state} ${best}/${observers.length}`;
      }
    }
    const incarnations = held.map((k) => k.incarnation);
    if (record.status !== undefined) incarnations.push(record.status.incarnation);
    const alive = hasProcess(view, name);
    return {
      name,
      process: record.process,
      views,
      consensus,
      incarnation: incarnations.length === 0 ? undefined : Math.max(...incarnations),
      phi: held.length === 0 ? undefined : Math.max(...held.map((k) => k.phi)),
      localHealth: alive ? record.status?.localHealth : undefined,
      reportAgeMs:
        alive && record.status !== undefined ? Math.max(0, nowMs - record.status.receivedAtMs) : undefined,
      leader: alive ? record.leader : undefined,
      leads: namedBy(name) * 2 > withProcess.length,
    };
  });
}

/** One column of the table. */
export interface Column {
  readonly header: string;
  /**
   * Width the column keeps even when its cells are shorter, so that the live table does not shift as
   * values change; a longer cell widens it.
   */
  readonly width: number;
  readonly align: 'left' | 'right';
  readonly cell: (row: MemberRow) => string;
}

function optional<T>(value: T | undefined, show: (v: T) => string): string {
  return value === undefined ? '-' : show(value);
}

/** The columns of `fdkit demo`'s table, in order. */
export function memberColumns(memberCount: number): readonly Column[] {
  return [
    // `*`: the leader most members name. (Pids are in the lines that start and kill a member.)
    { header: 'member', width: 6, align: 'left', cell: (r) => (r.leads ? `${r.name} *` : r.name) },
    { header: 'process', width: 7, align: 'left', cell: (r) => r.process },
    // One letter per member, so the width follows the cluster size.
    {
      header: 'views',
      width: Math.max(5, memberCount * 2 - 1),
      align: 'left',
      cell: (r) => r.views.join(' '),
    },
    { header: 'state', width: 11, align: 'left', cell: (r) => r.consensus || '-' },
    { header: 'leader', width: 6, align: 'left', cell: (r) => r.leader ?? '-' },
    { header: 'inc', width: 3, align: 'right', cell: (r) => optional(r.incarnation, String) },
    { header: 'phi', width: 5, align: 'right', cell: (r) => optional(r.phi, formatPhi) },
    { header: 'health', width: 6, align: 'right', cell: (r) => optional(r.localHealth, String) },
    {
      header: 'report',
      width: 6,
      align: 'right',
      cell: (r) => optional(r.reportAgeMs, (ms) => `${(ms / 1000).toFixed(1)}s`),
    },
  ];
}

/**
 * The table as text lines: a header, then one line per row; columns two spaces apart, each as wide as
 * its width, header and widest cell.
 */
export function renderTable(rows: readonly MemberRow[], columns: readonly Column[]): string[] {
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columns.map((c, i) =>
    Math.max(c.width, c.header.length, ...cells.map((row) => row[i]!.length)),
  );
  const line = (texts: readonly string[]): string =>
    texts
      .map((text, i) => (columns[i]!.align === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)];
}

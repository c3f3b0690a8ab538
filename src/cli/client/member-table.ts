/** `fdkit members`: the members as a table for people, like `serf members`. */
import type { MemberJson } from '../../http/api-types.js';

const HEADINGS = ['NAME', 'ADDRESS', 'STATE', 'INC', 'SINCE', 'RTT/PHI', 'SUSPECTED BY', 'META'] as const;

function ago(since: number | null, nowMs: number): string {
  if (since === null) return '-';
  const s = Math.max(0, Math.round((nowMs - since) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3_600)}h`;
}

function latency(m: MemberJson): string {
  if (m.local) return '-';
  return m.rttMs !== null ? `${m.rttMs.toFixed(1)}ms` : `phi ${m.phi.toFixed(2)}`;
}

function accused(m: MemberJson): string {
  if (m.accuser === null) return '-';
  return `${m.accuser} (+${m.confirmations})`;
}

// Names and metadata come from other members: a control character could rewrite the operator's terminal.
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function row(m: MemberJson, nowMs: number): string[] {
  return [
    m.local ? `${m.name} *` : m.name,
    m.address,
    m.state,
    String(m.incarnation),
    ago(m.since, nowMs),
    latency(m),
    accused(m),
    m.metaEncoding === 'utf8' ? m.meta : `base64:${m.meta}`,
  ].map(printable);
}

/** The table, a heading line and one line per member by name; the local member is marked `*`. */
export function memberTable(members: readonly MemberJson[], nowMs: number): string {
  // By name, as people look members up; the API keeps the view's order.
  const sorted = [...members].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = [HEADINGS.slice(), ...sorted.map((m) => row(m, nowMs))];
  const widths = HEADINGS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  // The last column is not padded: no trailing blanks.
  return (
    rows
      .map((r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

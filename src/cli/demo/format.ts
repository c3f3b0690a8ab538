/**
 * Text of `fdkit demo` shared by the live table, the plain lines and the final report: durations, phi,
 * and one sentence per observation. Pure, and ASCII apart from a few one-column symbols, so that widths
 * computed with `length` hold in a terminal.
 */
import type { LeaderObservation, Observation } from './cluster-view.js';

/** `ms` as seconds with `digits` decimals: `1.25s`. */
export function seconds(ms: number, digits = 2): string {
  return `${(ms / 1000).toFixed(digits)}s`;
}

/** The time column of a plain line: seconds since the demo started, right-aligned. */
export function stamp(atMs: number): string {
  return seconds(Math.max(0, atMs)).padStart(7);
}

/** A duration after a fault: `+1.25s`, right-aligned. */
export function offset(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${seconds(Math.abs(ms))}`.padStart(8);
}

/** One plain output line: the time, then the text. */
export function plainLine(atMs: number, text: string): string {
  return `${stamp(atMs)}  ${text}`;
}

/** Phi in at most five columns: one decimal below 1000, `>999` above, `inf` for infinity. */
export function formatPhi(phi: number): string {
  if (phi === Number.POSITIVE_INFINITY) return 'inf';
  return phi >= 999.95 ? '>999' : phi.toFixed(1);
}

/**
 * An observation as a sentence: `n2 sees n5 dead (inc 1, suspicion-timeout, accuser n3)` for an event,
 * `n2 holds n4 alive at inc 2 (status report, no event)` for a change seen only in a status report.
 */
export function describeObservation(o: Observation): string {
  if (o.cause === undefined) {
    return `${o.observer} holds ${o.member} ${o.state} at inc ${o.incarnation} (status report, no event)`;
  }
  const accuser = o.accuser === undefined ? '' : `, accuser ${o.accuser}`;
  return `${o.observer} sees ${o.member} ${o.state} (inc ${o.incarnation}, ${o.cause}${accuser})`;
}

/** A change of a leader hint as a sentence: `n2 names n1 leader (epoch 2, leader-suspect)`. */
export function describeLeaderChange(o: LeaderObservation): string {
  return `${o.observer} names ${o.leader} leader (epoch ${o.epoch}, ${o.cause})`;
}

/** Names as an English list: `n1, n2 and n3`. */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** `text` broken at spaces into lines of at most `width` characters, each after `indent`. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const room = Math.max(1, width - indent.length);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/**
 * What `fdkit demo` shows: the text formats, the member table, the live frame, the ANSI sequences of the
 * redraw, and both outputs (plain lines, and the live screen on a fake terminal with a virtual clock).
 */
import { describe, expect, it } from 'vitest';
import { CLEAR_SCREEN, colourStates, HIDE_CURSOR, redraw, SHOW_CURSOR } from '../../src/cli/demo/ansi.js';
import { ClusterView } from '../../src/cli/demo/cluster-view.js';
import {
  describeObservation,
  formatPhi,
  listNames,
  offset,
  plainLine,
  seconds,
  stamp,
  wrap,
} from '../../src/cli/demo/format.js';
import { renderFrame } from '../../src/cli/demo/frame.js';
import type { EventMessage, StatusMessage } from '../../src/cli/demo/messages.js';
import { LiveOutput, PlainOutput, type Terminal } from '../../src/cli/demo/output.js';
import { type Column, memberColumns, memberRows, renderTable } from '../../src/cli/demo/table.js';
import type { MemberStateName } from '../../src/membership/member-state.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const ESCAPE = '\u001b';

function event(type: EventMessage['type'], member: string, incarnation: number, cause: string): EventMessage {
  return { kind: 'event', type, member, incarnation, cause, wallMs: 0 };
}

function status(
  observer: string,
  held: Record<string, [MemberStateName, number, number]>,
  localHealth = 0,
): StatusMessage {
  return {
    kind: 'status',
    wallMs: 0,
    localHealth,
    // n5 led until it was killed; the others moved to n1, except n4, stopped before its report said so.
    leader: observer === 'n4' ? 'n5' : 'n1',
    epoch: observer === 'n4' ? 1 : 2,
    members: NAMES.map((name) => {
      const [state, incarnation, phi] = held[name] ?? ['alive', 1, 0.2];
      return { name, state, incarnation, phi: name === observer ? 0 : phi };
    }),
  };
}

/**
 * Five members mid-demo, at 10 s: n5 killed and held dead; n4 stopped since 7 s and suspected by n1 and
 * n2, while n3 still holds it alive.
 */
function midDemo(): ClusterView {
  const view = new ClusterView(NAMES);
  NAMES.forEach((n, i) => {
    view.started(n, 2000 + i);
    view.ready(n, `127.0.0.1:${5000 + i}`);
  });
  for (const o of NAMES)
    for (const m of NAMES) if (o !== m) view.event(o, event('alive', m, 1, 'joined'), 100);
  view.fault('SIGKILL', 'n5', 5000);
  view.exited('n5');
  for (const o of ['n1', 'n2', 'n3', 'n4']) view.event(o, event('dead', 'n5', 1, 'dead-gossip'), 6000);
  view.fault('SIGSTOP', 'n4', 7000);
  view.status('n4', status('n4', { n5: ['dead', 1, 30] }, 0), 6900, 6950);
  view.status('n1', status('n1', { n4: ['suspect', 1, 2.5], n5: ['dead', 1, 40] }, 1), 9900, 9950);
  view.status(
    'n2',
    status('n2', { n4: ['suspect', 1, 1.75], n5: ['dead', 1, Number.POSITIVE_INFINITY] }),
    9900,
    9960,
  );
  view.status('n3', status('n3', { n4: ['alive', 1, 1.1], n5: ['dead', 1, 12] }), 9900, 9970);
  return view;
}

describe('format', () => {
  it('writes times as seconds since the start, and offsets from a fault', () => {
    expect(seconds(1234)).toBe('1.23s');
    expect(seconds(1234, 1)).toBe('1.2s');
    expect(stamp(1234)).toBe('  1.23s');
    expect(stamp(61_500)).toBe(' 61.50s');
    expect(stamp(-3)).toBe('  0.00s');
    expect(offset(420)).toBe('  +0.42s');
    expect(offset(-20)).toBe('  -0.02s');
    expect(plainLine(2500, 'SIGKILL n5')).toBe('  2.50s  SIGKILL n5');
  });

  it('keeps phi within five columns', () => {
    expect(formatPhi(0)).toBe('0.0');
    expect(formatPhi(8.04)).toBe('8.0');
    expect(formatPhi(999.9)).toBe('999.9');
    expect(formatPhi(999.96)).toBe('>999');
    expect(formatPhi(Number.POSITIVE_INFINITY)).toBe('inf');
  });

  it('describes an event with its cause and a status-only change as such', () => {
    const base = { atMs: 1, observer: 'n2', member: 'n5', incarnation: 1 };
    expect(describeObservation({ ...base, state: 'dead', cause: 'suspicion-timeout', accuser: 'n3' })).toBe(
      'n2 sees n5 dead (inc 1, suspicion-timeout, accuser n3)',
    );
    expect(describeObservation({ ...base, state: 'alive', incarnation: 2, cause: 'refuted' })).toBe(
      'n2 sees n5 alive (inc 2, refuted)',
    );
    expect(describeObservation({ ...base, state: 'alive', incarnation: 2 })).toBe(
      'n2 holds n5 alive at inc 2 (status report, no event)',
    );
  });

  it('lists names and wraps text at spaces', () => {
    expect(listNames([])).toBe('');
    expect(listNames(['n1'])).toBe('n1');
    expect(listNames(['n1', 'n2', 'n3'])).toBe('n1, n2 and n3');
    expect(wrap('aaa bbb ccc dd', 9, '  ')).toEqual(['  aaa bbb', '  ccc dd']);
    expect(wrap('averylongword x', 6)).toEqual(['averylongword', 'x']);
  });
});

describe('member table', () => {
  it('has one row per member: process, views, consensus, highest incarnation and phi, health, report age, leader', () => {
    const rows = memberRows(midDemo(), 10_000);
    const n4 = rows[3]!;
    expect(n4).toEqual({
      name: 'n4',
      process: 'stopped',
      views: ['S', 'S', 'A', '.', '-'],
      // n1 and n2 against n3: the majority; on a tie the worse state wins.
      consensus: 'suspect 2/3',
      incarnation: 1,
      phi: 2.5,
      localHealth: 0,
      // Its last report arrived at 6.95 s: it is stopped.
      reportAgeMs: 3050,
      // Its hint, as of its last report, still names the killed n5.
      leader: 'n5',
      leads: false,
    });
    const n5 = rows[4]!;
    expect(n5).toMatchObject({
      process: 'killed',
      consensus: 'dead',
      localHealth: undefined,
      reportAgeMs: undefined,
      leader: undefined,
      leads: false,
    });
    expect(n5.phi).toBe(Number.POSITIVE_INFINITY);
    // Three of the four members with a process name n1.
    expect(rows[0]).toMatchObject({
      views: ['.', 'A', 'A', 'A', '-'],
      consensus: 'alive',
      localHealth: 1,
      leader: 'n1',
      leads: true,
    });
  });

  it('breaks a tie between states towards the worse one', () => {
    const view = midDemo();
    // n1 suspects n4, n2 holds it alive again, n3 dead: one each.
    view.event('n2', event('alive', 'n4', 2, 'refuted'), 9980);
    view.status('n3', status('n3', { n4: ['dead', 1, 3], n5: ['dead', 1, 12] }), 9990, 9990);
    expect(memberRows(view, 10_000)[3]!.consensus).toBe('dead 1/3');
    view.event('n3', event('alive', 'n4', 2, 'rejoined'), 9995);
    expect(memberRows(view, 10_000)[3]!).toMatchObject({ consensus: 'alive 2/3', incarnation: 2 });
  });

  it('renders aligned columns within 80 characters', () => {
    const lines = renderTable(memberRows(midDemo(), 10_000), memberColumns(5));
    expect(lines).toEqual([
      'member  process  views      state        leader  inc    phi  health  report',
      'n1 *    running  . A A A -  alive        n1        1    0.2       1    0.1s',
      'n2      running  A . A A -  alive        n1        1    0.2       0    0.0s',
      'n3      running  A A . A -  alive        n1        1    0.2       0    0.0s',
      'n4      stopped  S S A . -  suspect 2/3  n5        1    2.5       0    3.0s',
      'n5      killed   D D D D .  dead         -         1    inf       -       -',
    ]);
    for (const line of lines) expect(line.length).toBeLessThan(80);
  });

  it('widens a column for a longer cell, keeping the others aligned', () => {
    const columns: Column[] = [
      { header: 'member', width: 6, align: 'left', cell: (r) => r.name },
      { header: 'hlth', width: 3, align: 'right', cell: (r) => `${r.localHealth}0000` },
    ];
    expect(renderTable(memberRows(midDemo(), 10_000).slice(0, 2), columns)).toEqual([
      'member   hlth',
      'n1      10000',
      'n2      00000',
    ]);
  });
});

describe('live frame', () => {
  const input = {
    title: 'fdkit demo: test',
    nowMs: 10_000,
    phase: 'pause: SIGSTOP n4',
    recent: Array.from({ length: 30 }, (_, i) => plainLine(i * 100, `event ${i}`)),
    columns: 100,
    rows: 40,
  };

  it('shows the title, the table, the legend, the phase and the latest events', () => {
    const lines = renderFrame(midDemo(), input);
    expect(lines[0]).toBe('fdkit demo: test  10.0s');
    expect(lines[2]).toMatch(/^ {2}member +process/);
    expect(lines).toContain('> pause: SIGSTOP n4');
    expect(lines.at(-1)).toBe(plainLine(2900, 'event 29'));
    expect(lines.filter((l) => l.includes('event'))).toHaveLength(10);
  });

  it('fits the terminal: no line as wide as it, fewer lines than its height', () => {
    for (const [columns, rows] of [
      [60, 20],
      [80, 24],
      [40, 10],
    ] as const) {
      const lines = renderFrame(midDemo(), { ...input, columns, rows });
      expect(lines.length).toBeLessThan(rows);
      for (const line of lines) expect(line.length).toBeLessThan(columns);
    }
  });
});

describe('ANSI', () => {
  it('redraws a block in place: up to its first line, each line cleared, the rest below cleared', () => {
    expect(redraw(0, ['a', 'b'])).toBe(`${ESCAPE}[2Ka\n${ESCAPE}[2Kb\n${ESCAPE}[J`);
    expect(redraw(3, ['a'])).toBe(`\r${ESCAPE}[3A${ESCAPE}[2Ka\n${ESCAPE}[J`);
  });

  it('colours whole words only', () => {
    expect(colourStates('n5  killed  D D  dead')).toBe(
      `n5  ${ESCAPE}[31mkilled${ESCAPE}[0m  ${ESCAPE}[31mD${ESCAPE}[0m ${ESCAPE}[31mD${ESCAPE}[0m  ${ESCAPE}[31mdead${ESCAPE}[0m`,
    );
    expect(colourStates('suspect 2/3')).toBe(`${ESCAPE}[33msuspect${ESCAPE}[0m 2/3`);
    expect(colourStates('Dead deadline SIGSTOP suspected')).toBe('Dead deadline SIGSTOP suspected');
  });
});

describe('outputs', () => {
  it('plain: timestamped lines, the table indented, no escape sequence, nothing after stop but print', () => {
    const lines: string[] = [];
    const out = new PlainOutput(midDemo(), (l) => lines.push(l));
    out.note(1500, 'n1 listening on 127.0.0.1:5000 (pid 2000)');
    out.phase(2000, 'crash: SIGKILL n5');
    out.table(10_000);
    out.stop();
    out.note(11_000, 'dropped');
    out.table(11_000);
    out.print(['Summary']);
    expect(lines.slice(0, 3)).toEqual([
      '  1.50s  n1 listening on 127.0.0.1:5000 (pid 2000)',
      '  2.00s  == crash: SIGKILL n5',
      '           member  process  views      state        leader  inc    phi  health  report',
    ]);
    expect(lines).toHaveLength(3 + 5 + 1);
    expect(lines.at(-1)).toBe('Summary');
    expect(lines.join('\n')).not.toContain(ESCAPE);
  });

  it('live: hides the cursor, redraws every 200 ms in place, and shows the cursor again when stopped', () => {
    const clock = new VirtualClock();
    const written: string[] = [];
    const resize: (() => void)[] = [];
    const terminal: Terminal = {
      write: (text) => written.push(text),
      columns: 90,
      rows: 30,
      onResize: (listener) => resize.push(listener),
    };
    const view = midDemo();
    const out = new LiveOutput(view, terminal, clock, {
      title: 'demo',
      now: () => clock.now(),
      colour: false,
    });
    expect(written[0]).toBe(HIDE_CURSOR);
    // The first frame is drawn at once, from the top.
    expect(written[1]!.startsWith(`${ESCAPE}[2Kdemo  0.0s\n`)).toBe(true);
    const height = written[1]!.split('\n').length - 1;
    out.note(100, 'n1 sees n4 suspect (inc 1, probe-failed, accuser n1)');
    clock.advanceTo(200);
    expect(written).toHaveLength(3);
    // Later frames go back up over the previous one.
    expect(written[2]!.startsWith(`\r${ESCAPE}[${height}A`)).toBe(true);
    expect(written[2]).toContain('  0.10s  n1 sees n4 suspect');
    clock.advanceTo(1000);
    expect(written).toHaveLength(7);
    resize[0]!();
    clock.advanceTo(1200);
    expect(written.at(-1)!.startsWith(CLEAR_SCREEN)).toBe(true);
    out.stop();
    expect(written.at(-1)).toBe(SHOW_CURSOR);
    const count = written.length;
    clock.advanceTo(5000);
    expect(written).toHaveLength(count);
    out.print(['Summary']);
    expect(written.at(-1)).toBe('Summary\n');
  });

  it('live: colours the states when asked', () => {
    const clock = new VirtualClock();
    const written: string[] = [];
    const terminal: Terminal = { write: (t) => written.push(t), columns: 100, rows: 40, onResize: () => {} };
    new LiveOutput(midDemo(), terminal, clock, { title: 'demo', now: () => 0, colour: true }).stop();
    expect(written.join('')).toContain(`${ESCAPE}[31mkilled${ESCAPE}[0m`);
  });
});

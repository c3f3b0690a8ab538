/**
 * bench/mixed/: the detection times of a killed member per survivor, from hand-made event logs; the
 * summaries per (victim, observer) path over repetitions; the two agents' events as one shape; the
 * cases; and the table.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeKill,
  type Kill,
  type MemberOf,
  type MixedEvent,
  type MixedRun,
  summarize,
} from '../../bench/mixed/analysis.js';
import { CASES, memberNames, pickCases } from '../../bench/mixed/cases.js';
import { fromFdkit, fromGo } from '../../bench/mixed/events.js';
import { pathLabel, plainTable } from '../../bench/mixed/report.js';

const ev = (atMs: number, observer: string, kind: MixedEvent['kind'], member: string): MixedEvent => ({
  atMs,
  observer,
  kind,
  member,
});

const go = (name: string): MemberOf => ({ name, implementation: 'go' });
const fd = (name: string): MemberOf => ({ name, implementation: 'fdkit' });

/** 3 Go + 2 fdkit, go-3 killed at 1000 ms, watched until 20 s. */
const kill: Kill = {
  victim: go('go-3'),
  atMs: 1000,
  endMs: 20_000,
  survivors: [go('go-1'), go('go-2'), fd('fdkit-1'), fd('fdkit-2')],
};

describe('analyzeKill', () => {
  it("times each survivor's first suspicion and death from the signal, whatever the order of the log", () => {
    const events = [
      ev(6500, 'go-2', 'dead', 'go-3'),
      { ...ev(2900, 'fdkit-1', 'dead', 'go-3'), cause: 'connection-refused' },
      ev(1700, 'fdkit-1', 'suspect', 'go-3'),
      ev(3100, 'fdkit-2', 'dead', 'go-3'),
      ev(2400, 'go-1', 'suspect', 'go-3'),
      ev(6200, 'go-1', 'dead', 'go-3'),
      ev(6300, 'go-1', 'dead', 'go-3'), // a second death line: the first counts
    ];
    expect(analyzeKill(events, kill)).toEqual({
      observers: [
        { observer: 'go-1', implementation: 'go', suspectMs: 1400, deadMs: 5200, deadCause: null },
        { observer: 'go-2', implementation: 'go', suspectMs: null, deadMs: 5500, deadCause: null },
        {
          observer: 'fdkit-1',
          implementation: 'fdkit',
          suspectMs: 700,
          deadMs: 1900,
          deadCause: 'connection-refused',
        },
        { observer: 'fdkit-2', implementation: 'fdkit', suspectMs: null, deadMs: 2100, deadCause: null },
      ],
      falseDeaths: 0,
    });
  });

  it('counts only what falls in the window, and nothing the victim or a non-survivor said', () => {
    const events = [
      ev(500, 'go-1', 'dead', 'go-3'), // before the kill (an earlier flap)
      ev(999, 'go-2', 'suspect', 'go-3'),
      ev(20_001, 'go-2', 'dead', 'go-3'), // after the window
      ev(1500, 'go-3', 'dead', 'go-1'), // the victim's last words
      ev(1600, 'go-9', 'dead', 'go-3'), // not a survivor
      ev(1700, 'fdkit-1', 'dead', 'fdkit-1'), // about itself
    ];
    const r = analyzeKill(events, kill);
    expect(r.observers.map((o) => [o.suspectMs, o.deadMs])).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect(r.falseDeaths).toBe(0);
  });

  it('counts false deaths and leaves among survivors as distinct pairs', () => {
    const events = [
      ev(3000, 'go-1', 'dead', 'fdkit-2'),
      ev(3500, 'go-1', 'dead', 'fdkit-2'), // the same pair again
      ev(3600, 'fdkit-2', 'left', 'go-2'),
      ev(3700, 'go-2', 'suspect', 'go-1'), // a suspicion is no death
      ev(3800, 'fdkit-1', 'alive', 'go-2'),
      ev(500, 'go-2', 'dead', 'go-1'), // before the window
    ];
    expect(analyzeKill(events, kill).falseDeaths).toBe(2);
  });

  it("gives each survivor's death time as the smallest in the window (property)", () => {
    const names = ['go-1', 'go-2', 'fdkit-1', 'fdkit-2', 'go-3'];
    const event = fc.record({
      atMs: fc.integer({ min: 0, max: 25_000 }),
      observer: fc.constantFrom(...names),
      kind: fc.constantFrom<MixedEvent['kind']>('alive', 'suspect', 'dead', 'left'),
      member: fc.constantFrom(...names),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const r = analyzeKill(events, kill);
        for (const o of r.observers) {
          const times = events
            .filter((e) => e.observer === o.observer && e.member === 'go-3' && e.kind === 'dead')
            .map((e) => e.atMs)
            .filter((t) => t >= 1000 && t <= 20_000);
          expect(o.deadMs).toBe(times.length === 0 ? null : Math.min(...times) - 1000);
        }
        expect(analyzeKill([...events].reverse(), kill)).toEqual(r);
      }),
      { seed: 20, numRuns: 200 },
    );
  });
});

function run(
  caseId: string,
  rep: number,
  victim: MemberOf,
  times: Record<string, number | null>,
  causes: Record<string, string> = {},
): MixedRun {
  return {
    case: caseId,
    rep,
    victim,
    observers: Object.entries(times).map(([observer, deadMs]) => ({
      observer,
      implementation: observer.startsWith('go') ? 'go' : 'fdkit',
      suspectMs: null,
      deadMs,
      deadCause: causes[observer] ?? null,
    })),
    falseDeaths: 0,
  };
}

describe('summarize', () => {
  const runs: MixedRun[] = [
    run(
      'mixed-go-victim',
      1,
      go('go-3'),
      { 'go-1': 5000, 'go-2': 6000, 'fdkit-1': 1800, 'fdkit-2': 2000 },
      { 'fdkit-1': 'connection-refused', 'fdkit-2': 'connection-refused' },
    ),
    run(
      'mixed-go-victim',
      2,
      go('go-3'),
      { 'go-1': 4000, 'go-2': null, 'fdkit-1': 2600, 'fdkit-2': 2200 },
      { 'fdkit-2': 'dead-gossip' },
    ),
    {
      ...run('mixed-go-victim', 3, go('go-3'), {
        'go-1': 7000,
        'go-2': 3000,
        'fdkit-1': 2400,
        'fdkit-2': 2500,
      }),
      falseDeaths: 1,
    },
    run('pure-go', 1, go('go-5'), { 'go-1': 6000, 'go-2': 6100, 'go-3': 6200, 'go-4': 6300 }),
  ];

  it('gives one row per (case, observer kind), Go observers first, in the order the cases came', () => {
    expect(summarize(runs).map((s) => [s.case, s.victim, s.observers])).toEqual([
      ['mixed-go-victim', 'go', 'go'],
      ['mixed-go-victim', 'go', 'fdkit'],
      ['pure-go', 'go', 'go'],
    ]);
  });

  it('pools every observer time, takes the slowest per run, and counts the missed', () => {
    const [goSeen, fdkitSeen, pure] = summarize(runs);
    // Go observers: 5000, 6000, 4000, (missed), 7000, 3000 → sorted 3000 4000 5000 6000 7000.
    expect(goSeen).toMatchObject({
      runs: 3,
      deadMs: { median: 5000, min: 3000, max: 7000, n: 5 },
      // Per run the slowest Go observer: 6000, (run 2 missed one), 7000.
      lastMs: { median: 6500, min: 6000, max: 7000, n: 2 },
      missed: 1,
      falseDeaths: 1,
    });
    // fdkit observers: 1800 2000 2200 2400 2500 2600 → median (2200 + 2400) / 2.
    expect(fdkitSeen).toMatchObject({
      deadMs: { median: 2300, min: 1800, max: 2600, n: 6 },
      lastMs: { median: 2500, min: 2000, max: 2600, n: 3 },
      missed: 0,
    });
    expect(goSeen!.causes).toEqual({});
    expect(fdkitSeen!.causes).toEqual({ 'connection-refused': 2, 'dead-gossip': 1 });
    expect(pure).toMatchObject({ runs: 1, deadMs: { median: 6150, n: 4 }, lastMs: { median: 6300, n: 1 } });
  });

  it('prints the table in seconds, median and range', () => {
    const text = plainTable(summarize(runs));
    expect(text).toContain('mixed (3 Go + 2 fdkit), Go killed');
    expect(text).toMatch(/Go\s+Go \(n=6\)\s+3\s+5\.00 \(3\.00–7\.00\)\s+6\.50 \(6\.00–7\.00\)\s+1\s+1/);
    expect(text).toMatch(
      /Go\s+fdkit \(n=6\)\s+3\s+2\.30 \(1\.80–2\.60\)\s+2\.50 \(2\.00–2\.60\)\s+0\s+1\s+connection-refused 2, dead-gossip 1/,
    );
    expect(summarize(runs).map(pathLabel)).toEqual([
      'Go seen by Go, mixed 3+2',
      'Go seen by fdkit, mixed 3+2',
      'Go seen by Go, pure',
    ]);
  });
});

describe('events', () => {
  const base = { t: 1, node: 'go-1', addr: '127.0.0.1:1', meta: new Uint8Array(), incarnation: 2 };

  it("reads the Go agent's join, leave and own suspicions; ignores the rest", () => {
    expect(fromGo('go-1', 5, { ...base, event: 'join', member: 'b', state: 'alive' })).toEqual(
      ev(5, 'go-1', 'alive', 'b'),
    );
    expect(fromGo('go-1', 6, { ...base, event: 'leave', member: 'b', state: 'dead' })?.kind).toBe('dead');
    expect(fromGo('go-1', 6, { ...base, event: 'leave', member: 'b', state: 'left' })?.kind).toBe('left');
    expect(fromGo('go-1', 7, { t: 1, node: 'go-1', event: 'suspect', member: 'b' })).toEqual(
      ev(7, 'go-1', 'suspect', 'b'),
    );
    expect(fromGo('go-1', 8, { ...base, event: 'update', member: 'b', state: 'alive' })).toBeUndefined();
    expect(fromGo('go-1', 9, { t: 1, node: 'go-1', event: 'left' })).toBeUndefined();
  });

  it("reads fdkit agent's state lines and skips update", () => {
    expect(fromFdkit('fdkit-1', 3, { event: 'dead', member: 'go-2', cause: 'dead-gossip' })).toEqual({
      ...ev(3, 'fdkit-1', 'dead', 'go-2'),
      cause: 'dead-gossip',
    });
    expect(fromFdkit('fdkit-1', 3, { event: 'update', member: 'go-2', cause: 'meta' })).toBeUndefined();
  });
});

describe('cases', () => {
  it('are five members (six with three fdkit ones), never kill their seed, and name members per implementation', () => {
    for (const c of CASES) {
      expect(c.members).toHaveLength(c.id === 'mixed-3fdkit-victim' ? 6 : 5);
      expect(c.victim).toBeGreaterThan(0);
      expect(c.victim).toBeLessThan(c.members.length);
    }
    const three = CASES.find((c) => c.id === 'mixed-3fdkit-victim')!;
    expect(three.members.filter((m) => m === 'fdkit')).toHaveLength(3);
    expect(three.members[three.victim]).toBe('fdkit');
    const mixed = CASES.find((c) => c.id === 'mixed-fdkit-victim')!;
    expect(memberNames(mixed)).toEqual(['go-1', 'go-2', 'go-3', 'fdkit-1', 'fdkit-2']);
    expect(mixed.members[mixed.victim]).toBe('fdkit');
    expect(CASES.find((c) => c.id === 'mixed-go-victim')!.members[2]).toBe('go');
  });

  it('are picked by id in their own order, or the unknown id is named', () => {
    expect(pickCases(['mixed-go-victim', 'pure-go'])).toEqual([CASES[0], CASES[2]]);
    expect(pickCases(['pure-go', 'nope'])).toBe('nope');
  });
});

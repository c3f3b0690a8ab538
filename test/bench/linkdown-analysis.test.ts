/**
 * bench/linkdown/analysis.ts and report.ts: the outcome of a link taken down, from made-up event logs;
 * summaries over repetitions, ratios to the baseline, and the tables.
 */
import { describe, expect, it } from 'vitest';
import {
  analyzeLinkDown,
  type LinkDown,
  type LinkDownRun,
  ratios,
  summarize,
} from '../../bench/linkdown/analysis.js';
import { plainTables } from '../../bench/linkdown/report.js';
import type { PeerEvent } from '../../bench/peers/events.js';

function ev(
  atMs: number,
  observer: string,
  kind: PeerEvent['kind'],
  member: string,
  raised = false,
): PeerEvent {
  return { atMs, observer, kind, member, raised, cause: 'test' };
}

const down: LinkDown = { victim: 'e', atMs: 1000, endMs: 12_000, survivors: ['a', 'b', 'c', 'd'] };

describe('analyzeLinkDown', () => {
  it('times the first suspicion, the first death and the last survivor to know, from the link going down', () => {
    const events = [
      ev(900, 'a', 'suspect', 'e', true), // before the fault: not its
      ev(2200, 'b', 'suspect', 'e', true),
      ev(2250, 'c', 'suspect', 'e'),
      ev(6200, 'b', 'dead', 'e'),
      ev(6300, 'a', 'dead', 'e'),
      ev(6350, 'c', 'dead', 'e'),
      ev(6900, 'd', 'dead', 'e'),
      ev(7000, 'e', 'dead', 'a'), // the cut-off victim's view: not a false death among survivors
    ];
    expect(analyzeLinkDown(events, down)).toEqual({
      firstSuspicionMs: 1200,
      firstDeathMs: 5200,
      allKnowMs: 5900,
      knowers: 4,
      falseSuspicions: 0,
      falseDeaths: 0,
    });
  });

  it('leaves all-know open while a survivor has not held the victim dead', () => {
    const events = [
      ev(3000, 'a', 'suspect', 'e', true),
      ev(7000, 'a', 'dead', 'e'),
      ev(7100, 'b', 'dead', 'e'),
    ];
    const r = analyzeLinkDown(events, down);
    expect(r.allKnowMs).toBeNull();
    expect(r.knowers).toBe(2);
    expect(r.firstDeathMs).toBe(6000);
  });

  it('counts false suspicions raised and false deaths between survivors, as distinct pairs inside the window', () => {
    const events = [
      ev(3000, 'a', 'suspect', 'b', true),
      ev(3100, 'a', 'suspect', 'b', true), // the same pair again
      ev(3200, 'c', 'suspect', 'b'), // heard, not raised
      ev(4000, 'c', 'dead', 'd'),
      ev(4100, 'a', 'dead', 'd'),
      ev(13_000, 'b', 'dead', 'a'), // after the window
      ev(500, 'b', 'dead', 'c'), // before it
    ];
    const r = analyzeLinkDown(events, down);
    expect(r.falseSuspicions).toBe(1);
    expect(r.falseDeaths).toBe(2);
  });
});

function run(members: number, contender: string, rep: number, allKnowMs: number | null): LinkDownRun {
  return {
    members,
    contender,
    rep,
    victim: 'e',
    commandMs: 5,
    firstSuspicionMs: 1000 + rep,
    firstDeathMs: allKnowMs === null ? null : allKnowMs - 100,
    allKnowMs,
    knowers: allKnowMs === null ? 2 : 4,
    falseSuspicions: rep === 1 ? 1 : 0,
    falseDeaths: 0,
  };
}

describe('summarize and ratios', () => {
  const runs = [
    run(5, 'fdkit lan', 1, 3000),
    run(5, 'memberlist', 1, 6000),
    run(5, 'fdkit lan', 2, 4000),
    run(5, 'memberlist', 2, 5000),
    run(5, 'fdkit lan', 3, null),
    run(5, 'memberlist', 3, 7000),
    run(20, 'fdkit lan', 1, 5000),
  ];

  it('gives medians and ranges per cluster size and contender, in order of appearance', () => {
    const s = summarize(runs);
    expect(s.map((x) => `${x.members} ${x.contender} ${x.runs}`)).toEqual([
      '5 fdkit lan 3',
      '5 memberlist 3',
      '20 fdkit lan 1',
    ]);
    expect(s[0]!.allKnowMs).toEqual({ median: 3500, min: 3000, max: 4000, n: 2 });
    expect(s[0]!.unfinished).toBe(1);
    expect(s[0]!.falseSuspicions).toBe(1);
    expect(s[1]!.allKnowMs.median).toBe(6000);
  });

  it('divides each contender median by the baseline at the same size, and skips sizes without it', () => {
    const r = ratios(summarize(runs), 'memberlist');
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ members: 5, contender: 'fdkit lan', baseline: 'memberlist' });
    expect(r[0]!.allKnow).toBeCloseTo(3500 / 6000, 12);
    expect(r[0]!.firstDeath).toBeCloseTo(3400 / 5900, 12);
    expect(r[0]!.firstSuspicion).toBeCloseTo(1002 / 1002, 12);
  });

  it('prints seconds with ranges, unfinished runs and the ratios', () => {
    const text = plainTables(summarize(runs), ratios(summarize(runs), 'memberlist'));
    expect(text).toContain('3.50 (3.00–4.00) (1 unfinished)');
    expect(text).toContain('fdkit lan / memberlist');
    expect(text).toContain('0.58 ×');
  });
});

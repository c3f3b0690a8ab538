/**
 * The downing core with a reach probe: its view is checked, at the first unreachability and before each
 * decision, so that a side does not decide on a view that stopped changing while members it cannot reach
 * are still held alive in it (SWIM finds them one probe at a time). The probe here answers on virtual
 * time: a member that answers does so in 1 ms, one cut off after PROBE_MS, as a SWIM probe (a ping, then
 * ping-reqs) runs out.
 */
import { describe, expect, it } from 'vitest';
import { DowningCore } from '../../src/downing/downing-core.js';
import type { DowningDecision, DowningStrategy } from '../../src/downing/downing-types.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

const STABLE = 5_000;
const PROBE_MS = 600;

function core(strategy: DowningStrategy, others: readonly string[], downAllWhenUnstableMs = STABLE) {
  const clock = new VirtualClock();
  const decisions: DowningDecision[] = [];
  /** Who answers a probe now, and every probe asked, by name. */
  const answers = new Set(others);
  const asked: string[] = [];
  /** Answers to lose: a name's next probe fails although it answers. */
  const lose = new Map<string, number>();
  const c = new DowningCore(
    {
      self: { name: 'a', age: 1 },
      strategy,
      stableAfterMs: STABLE,
      downAllWhenUnstableMs,
      reach: (name, done) => {
        asked.push(name);
        const lost = lose.get(name) ?? 0;
        if (lost > 0) lose.set(name, lost - 1);
        const ok = answers.has(name) && lost === 0;
        clock.setTimer(ok ? 1 : PROBE_MS, () => done(ok));
      },
    },
    clock,
    (d) => decisions.push(d),
  );
  for (const [i, name] of others.entries()) c.observe(name, 'alive', 2 + i);
  clock.advance(STABLE);
  return { c, clock, decisions, answers, asked, lose };
}

describe('DowningCore with a reach probe', () => {
  it('a minority whose view still holds the other side alive finds it cut off and downs itself', () => {
    // a and b are cut off from c, d and e; SWIM here has found only c so far.
    const { c, clock, decisions, answers, asked } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    for (const name of ['c', 'd', 'e']) answers.delete(name);
    const cutMs = clock.now();
    c.observe('c', 'suspect', 3);
    // Every member held alive is asked at once; c, held suspect, is not.
    expect(asked.sort()).toEqual(['b', 'd', 'e']);
    // d and e fail two probes each (2 × PROBE_MS): a change, dated from when they were asked (at the
    // suspicion of c), so the wait still runs from the cut.
    const checkedMs = cutMs + 2 * PROBE_MS;
    clock.advance(checkedMs - clock.now());
    expect(c.sides().unreachable.map((m) => m.name)).toEqual(['c', 'd', 'e']);
    // The wait, then a check before deciding: d and e are asked once more (one probe), b answers at once.
    const decisionMs = cutMs + STABLE + PROBE_MS;
    clock.advance(decisionMs - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([
      { kind: 'downed-self', strategy: 'keep-majority', reachable: ['a', 'b'], unreachable: ['c', 'd', 'e'] },
    ]);
    expect(decisions[0]!.atMs).toBe(decisionMs);
  });

  it('without the probe, the same view is taken as it is, and the minority counts itself a majority', () => {
    // The gap the probe closes: the control case, same cut, no reach port.
    const clock = new VirtualClock();
    const decisions: DowningDecision[] = [];
    const c = new DowningCore(
      {
        self: { name: 'a', age: 1 },
        strategy: { name: 'keep-majority' },
        stableAfterMs: STABLE,
        downAllWhenUnstableMs: STABLE,
      },
      clock,
      (d) => decisions.push(d),
    );
    for (const [i, name] of ['b', 'c', 'd', 'e'].entries()) c.observe(name, 'alive', 2 + i);
    clock.advance(STABLE);
    c.observe('c', 'suspect', 3);
    clock.advance(STABLE);
    expect(decisions).toMatchObject([{ kind: 'down', members: ['c'] }]);
  });

  it('the majority downs the other side at once, on the check, not one member at a time', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('d');
    answers.delete('e');
    const cutMs = clock.now();
    c.observe('d', 'suspect', 5);
    clock.advance(2 * PROBE_MS + STABLE + PROBE_MS);
    expect(decisions).toEqual([
      {
        kind: 'down',
        members: ['d', 'e'],
        strategy: 'keep-majority',
        reason: 'majority: 3 of 5 reachable',
        atMs: cutMs + STABLE + PROBE_MS,
      },
    ]);
    // SWIM then suspects e too: it is gone from the count already, nothing more is decided.
    c.observe('e', 'suspect', 6);
    clock.advance(10 * STABLE);
    expect(decisions).toHaveLength(1);
  });

  it('a member of this side that loses one probe to the network still counts: it is asked twice', () => {
    const { c, clock, decisions, answers, lose } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('e');
    lose.set('b', 1);
    c.observe('e', 'suspect', 6);
    clock.advance(2 * PROBE_MS);
    expect(c.sides().reachable.map((m) => m.name)).toEqual(['a', 'b', 'c', 'd']);
    clock.advance(STABLE + PROBE_MS);
    expect(decisions).toMatchObject([{ kind: 'down', members: ['e'], reason: 'majority: 4 of 5 reachable' }]);
  });

  it('a member found silent that answers the check before the decision counts again, without a new wait', () => {
    const { c, clock, decisions, answers, lose } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('e');
    lose.set('b', 2); // both of b's probes in the first check are lost
    const cutMs = clock.now();
    c.observe('e', 'suspect', 6);
    clock.advance(2 * PROBE_MS);
    expect(c.sides().unreachable.map((m) => m.name)).toEqual(['b', 'e']);
    // Before deciding, b is asked again and answers: a correction of this member's measure, which
    // the other side's view did not share, so the decision stands on the corrected view.
    const decisionMs = cutMs + STABLE + 1;
    clock.advance(decisionMs - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toEqual([
      {
        kind: 'down',
        members: ['e'],
        strategy: 'keep-majority',
        reason: 'majority: 4 of 5 reachable',
        atMs: decisionMs,
      },
    ]);
  });

  it('a member counted that falls silent in the check before the decision starts the wait again', () => {
    // Down-all-when-unstable far off: the spell lasts longer than twice the wait.
    const { c, clock, decisions, answers } = core(
      { name: 'keep-majority' },
      ['b', 'c', 'd', 'e'],
      10 * STABLE,
    );
    answers.delete('e');
    c.observe('e', 'suspect', 6);
    clock.advance(STABLE - 1);
    answers.delete('d'); // d crashes, SWIM has not noticed yet
    clock.advance(1); // the decision's check: d fails two probes
    clock.advance(2 * PROBE_MS);
    expect(decisions).toEqual([]);
    // d was silent when the check that found it began, at the wait's end: the new wait runs from then.
    const lostMs = clock.now() - 2 * PROBE_MS;
    clock.advance(lostMs + STABLE + PROBE_MS - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([
      { kind: 'down', members: ['d', 'e'], reason: 'majority: 3 of 5 reachable' },
    ]);
    expect(decisions[0]!.atMs).toBe(lostMs + STABLE + PROBE_MS);
  });

  it('SWIM suspecting a member the check found silent is no change: the wait is not reset', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('e');
    answers.delete('d');
    c.observe('d', 'suspect', 5);
    clock.advance(2 * PROBE_MS);
    const waitFrom = clock.now() - 2 * PROBE_MS;
    clock.advance(3_000);
    c.observe('e', 'suspect', 6);
    clock.advance(waitFrom + STABLE + PROBE_MS - clock.now());
    expect(decisions).toMatchObject([{ kind: 'down', members: ['d', 'e'] }]);
  });

  it('a member the check found silent that SWIM then hears alive again counts at once', () => {
    const { c, clock, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('e');
    answers.delete('d');
    c.observe('d', 'suspect', 5);
    clock.advance(2 * PROBE_MS);
    expect(c.sides().unreachable.map((m) => m.name)).toEqual(['d', 'e']);
    c.observe('e', 'suspect', 6);
    c.observe('e', 'alive', 7); // refuted: heard of at a newer incarnation
    expect(c.sides().unreachable.map((m) => m.name)).toEqual(['d']);
  });

  it('stopped while a check is in flight, it decides nothing', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    answers.delete('e');
    c.observe('e', 'suspect', 6);
    clock.advance(STABLE); // the decision's check starts; its answers are due 1 ms on
    c.stop();
    clock.advance(10 * STABLE);
    expect(decisions).toEqual([]);
  });

  it('a minority that loses its partner too goes down when it would have: the exit does not restart the wait', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    for (const name of ['c', 'd', 'e']) answers.delete(name);
    const cutMs = clock.now();
    c.observe('c', 'suspect', 3);
    clock.advance(2 * PROBE_MS); // d and e found silent: the wait still runs from the cut
    const decisionMs = cutMs + STABLE + PROBE_MS;
    // b, on this side, goes down first (its own resolver) and exits: SWIM here suspects it.
    clock.advance(2_000);
    answers.delete('b');
    c.observe('b', 'suspect', 2);
    clock.advance(decisionMs - clock.now() - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([
      { kind: 'downed-self', reachable: ['a'], unreachable: ['b', 'c', 'd', 'e'] },
    ]);
    expect(decisions[0]!.atMs).toBe(decisionMs);
  });

  it('a majority that loses a member of its own side waits again: the verdict may change', () => {
    const { c, clock, decisions, answers } = core(
      { name: 'keep-majority' },
      ['b', 'c', 'd', 'e'],
      10 * STABLE,
    );
    answers.delete('d');
    answers.delete('e');
    c.observe('d', 'suspect', 5);
    clock.advance(2 * PROBE_MS + 2_000);
    answers.delete('c');
    const lostMs = clock.now();
    c.observe('c', 'suspect', 4); // now 2 of 5: no longer a majority
    clock.advance(STABLE + PROBE_MS - 1);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([{ kind: 'downed-self', reachable: ['a', 'b'] }]);
    expect(decisions[0]!.atMs).toBe(lostMs + STABLE + PROBE_MS);
  });

  it('a minority whose partner exits during the check before the decision decides when that check ends', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    for (const name of ['c', 'd', 'e']) answers.delete(name);
    c.observe('c', 'suspect', 3);
    clock.advance(STABLE); // the decision's check starts: b answers in 1 ms, d and e are asked once
    const checkMs = clock.now();
    clock.advance(100);
    answers.delete('b');
    c.observe('b', 'suspect', 2); // b went down and exited; SWIM here suspects it meanwhile
    clock.advance(PROBE_MS - 101);
    expect(decisions).toEqual([]);
    clock.advance(1);
    // No second check for b's loss: a side that goes down can only go down the more.
    expect(decisions).toMatchObject([{ kind: 'downed-self', reachable: ['a'] }]);
    expect(decisions[0]!.atMs).toBe(checkMs + PROBE_MS);
  });

  it('a partner found gone by SWIM during the check is not waited for: the check ends with the others', () => {
    const { c, clock, decisions, answers } = core({ name: 'keep-majority' }, ['b', 'c', 'd', 'e']);
    for (const name of ['c', 'd', 'e']) answers.delete(name);
    c.observe('c', 'suspect', 3);
    clock.advance(2 * PROBE_MS);
    answers.delete('b'); // b went down and exited just before this member's decision
    clock.advance(STABLE - 2 * PROBE_MS); // the decision's check: b, counted, would take two probes to give up on
    const checkMs = clock.now();
    clock.advance(100);
    c.observe('b', 'suspect', 2); // the death watch finds b's exit
    clock.advance(PROBE_MS - 101);
    expect(decisions).toEqual([]);
    clock.advance(1);
    expect(decisions).toMatchObject([{ kind: 'downed-self', reachable: ['a'] }]);
    expect(decisions[0]!.atMs).toBe(checkMs + PROBE_MS);
  });
});

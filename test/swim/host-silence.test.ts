/**
 * The host-silence rule in the suspicions (`Suspicions.probeFailed` with `silent`, `host-silence.ts`):
 * a suspect whose host this member found silent is declared dead `hostSilenceMs` after its probe failed,
 * unless the host is heard from first, a fresh connection being tried meanwhile.
 *
 * lan at n = 6 (this member and b…f): hostSilenceMs 1500; Lifeguard's min = suspicionMult × max(1,
 * log10 6) periods = 6 × 1 × 1000 = 6000 ms, max = 6 × 6000 = 36 000 ms, reached with no confirmation.
 * A last word is a ping of T = 500 ms.
 */
import { describe, expect, it } from 'vitest';
import { SUSPECT } from '../../src/membership/member-state.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { lan, memberlistLan } from '../../src/swim/profiles.js';
import {
  ACCEPTED,
  type Attempt,
  REFUSED,
  type SilenceHarness,
  silenceHarness,
} from './host-silence-fixture.js';
import { queued, suspicions } from './suspicions-fixture.js';
import { addressOf, run } from './swim-context.js';

const SILENCE = 1500;
const LIFEGUARD_MAX = 36_000;
const LAST_WORD = 500;
/** A fresh connection every sixteenth of the window. */
const STEP = SILENCE / 16;

/** This member and b…f on `config`, the suspicions over a kernel that answers `reply`, time at 0. */
function six(config: Partial<SwimConfig> = lan, reply?: SilenceHarness['reply']) {
  const f = silenceHarness(config);
  if (reply !== undefined) f.reply = reply;
  for (const n of ['b', 'c', 'd', 'e', 'f']) f.h.know(n);
  const t = suspicions(f.h);
  return { h: f.h, attempts: f.attempts, ...t, b: f.h.id('b'), clock: f.h.clock };
}

/** The attempts to b, as [ms after `t0`, timeout]. */
const tries = (f: { attempts: readonly Attempt[] }, t0 = 0): Array<[number, number]> =>
  f.attempts.filter((a: Attempt) => a.to === addressOf('b')).map((a) => [a.atMs - t0, a.timeoutMs]);

describe('Suspicions: a silent host', () => {
  it('is declared dead 1500 ms after its probe failed, not before, without a last word', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, SILENCE - 0.001);
    expect(t.dead).toEqual([]);
    run(t.clock, 0.001);
    expect(t.dead.map((d) => [d.d.name, d.d.from, d.atMs])).toEqual([['b', 'self', SILENCE]]);
    expect(t.pings).toEqual([]);
  });

  it('is left to Lifeguard’s timeout when it came back from the dead lately (a flapping link)', () => {
    const t = six();
    t.cameBack.add(t.b);
    t.s.probeFailed(t.b, false, true);
    run(t.clock, SILENCE);
    expect(t.dead).toEqual([]);
    // No window, so no rechecks either.
    expect(tries(t)).toEqual([]);
    run(t.clock, LIFEGUARD_MAX - SILENCE);
    expect(t.pings.map((p) => [p.id, p.atMs])).toEqual([[t.b, LIFEGUARD_MAX]]);
  });

  it('is tried 14 times during the window: every 93.75 ms while more than a step is left', () => {
    // k × 1500/16 for k = 1…14, each given the time left to the deadline; at k = 15 only one step
    // (93.75 ms) is left, too little for a retransmitted SYN, and k = 16 is the deadline. With the
    // connection of the probe itself, 15 in all.
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, SILENCE);
    const expected = Array.from({ length: 14 }, (_, i): [number, number] => [
      (i + 1) * STEP,
      SILENCE - (i + 1) * STEP,
    ]);
    expect(tries(t)).toEqual(expected);
    expect(t.h.ctx.counters.connectProbes).toBe(14);
    run(t.clock, 10 * SILENCE);
    expect(t.attempts).toHaveLength(14);
  });

  it('runs its window from the probe’s failure when the suspicion came by gossip before', () => {
    // The suspicion is c's, not this member's own: the silence ends it with a last word, as Lifeguard's
    // timeout would (a ping of T), not at once.
    const t = six();
    t.s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(t.clock, 3000);
    t.s.probeFailed(t.b, false, true);
    run(t.clock, SILENCE - 0.001);
    expect([t.dead.length, t.pings.length]).toEqual([0, 0]);
    run(t.clock, 0.001);
    expect(t.pings.map((p) => [p.id, p.atMs, p.accuse])).toEqual([[t.b, 3000 + SILENCE, true]]);
    run(t.clock, LAST_WORD);
    expect(t.dead.map((d) => d.atMs)).toEqual([3000 + SILENCE + LAST_WORD]);
    expect(tries(t, 3000)).toHaveLength(14);
  });

  it('ends by Lifeguard’s timeout when that comes first (hostSilenceMs beyond it)', () => {
    const t = six({ ...lan, hostSilenceMs: 60_000 });
    t.s.probeFailed(t.b, false, true);
    run(t.clock, LIFEGUARD_MAX - 1);
    expect([t.dead.length, t.pings.length]).toEqual([0, 0]);
    run(t.clock, 1);
    expect(t.pings.map((p) => p.atMs)).toEqual([LIFEGUARD_MAX]);
  });

  it('waits at least a probe timeout when hostSilenceMs is shorter', () => {
    const t = six({ ...lan, hostSilenceMs: 200 });
    t.s.probeFailed(t.b, false, true);
    run(t.clock, lan.probeTimeoutMs - 0.001);
    expect(t.dead).toEqual([]);
    run(t.clock, 0.001);
    expect(t.dead.map((d) => d.atMs)).toEqual([lan.probeTimeoutMs]);
  });
});

describe('Suspicions: no silence, Lifeguard’s timeout', () => {
  it.each([
    { why: 'the probe found no silence', config: lan, silent: false, lifeguard: LIFEGUARD_MAX },
    // memberlist-lan at n = 6: min 4 × 1 × 1000 = 4000, max 6 × 4000 = 24 000.
    { why: 'hostSilenceMs is 0 (memberlist-lan)', config: memberlistLan, silent: true, lifeguard: 24_000 },
  ])('when $why: no connection tried, the last word at $lifeguard ms', ({ config, silent, lifeguard }) => {
    const t = six(config);
    t.s.probeFailed(t.b, false, silent);
    run(t.clock, lifeguard - 1);
    expect([t.dead.length, t.pings.length, t.attempts.length]).toEqual([0, 0, 0]);
    run(t.clock, 1);
    expect(t.pings.map((p) => p.atMs)).toEqual([lifeguard]);
    run(t.clock, LAST_WORD);
    expect(t.dead.map((d) => d.atMs)).toEqual([lifeguard + LAST_WORD]);
  });
});

describe('Suspicions: the silence broken', () => {
  /**
   * After a fallback: the last word at Lifeguard's maximum (no confirmation came; the evidence is too old
   * to convict at once), the death one unanswered ping later.
   */
  function expectLifeguard(t: ReturnType<typeof six>): void {
    run(t.clock, LIFEGUARD_MAX - 1 - t.clock.now());
    expect([t.dead.length, t.pings.length]).toEqual([0, 0]);
    run(t.clock, 1);
    expect(t.pings.map((p) => p.atMs)).toEqual([LIFEGUARD_MAX]);
    run(t.clock, LAST_WORD);
    expect(t.dead.map((d) => d.atMs)).toEqual([LIFEGUARD_MAX + LAST_WORD]);
  }

  it('by one accepted connection: Lifeguard’s timeout, and no more connections', () => {
    const t = six(lan, (_, index) => (index === 2 ? ACCEPTED : 'silent'));
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 3 * STEP + 1); // the third, at 281.25 ms, accepted 1 ms later
    run(t.clock, 10 * SILENCE);
    expect(tries(t).map(([at]) => at)).toEqual([STEP, 2 * STEP, 3 * STEP]);
    expectLifeguard(t);
  });

  it('by a packet from the suspect', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 700);
    t.s.heardFrom('b');
    run(t.clock, SILENCE);
    expect(t.dead).toEqual([]);
    expect(t.attempts).toHaveLength(7); // 93.75 … 656.25 ms
    expectLifeguard(t);
  });

  it('by the prober: the probe’s own connection accepted late', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 300);
    t.s.hostAnswered(t.b);
    expectLifeguard(t);
  });

  it('not by packets from other members', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 700);
    t.s.heardFrom('c');
    t.s.heardFrom('nobody');
    run(t.clock, SILENCE - 700);
    expect(t.dead.map((d) => d.atMs)).toEqual([SILENCE]);
  });

  it('when another host went silent to this member too: Lifeguard’s timeout (a partition is likelier)', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 100);
    t.s.probeFailed(t.h.id('c'), false, true);
    run(t.clock, SILENCE - 100);
    // c's own window runs out 100 ms later, with b's suspicion still there: Lifeguard's for both.
    run(t.clock, 100);
    expect(t.dead).toEqual([]);
    run(t.clock, LIFEGUARD_MAX - 1 - t.clock.now());
    expect(t.pings).toEqual([]);
    run(t.clock, 1);
    expect(t.pings.map((p) => [p.id, p.atMs])).toEqual([[t.b, LIFEGUARD_MAX]]);
  });

  it('a host found silent later, while the earlier ones are still unheard, waits Lifeguard’s timeout too', () => {
    // A partition: b and c went silent together and were doubted; d goes silent a second later and must
    // not be the one convicted on its silence, since b and c are still unheard.
    const t = six();
    t.s.probeFailed(t.b, false, true);
    t.s.probeFailed(t.h.id('c'), false, true);
    run(t.clock, SILENCE + 1000);
    t.s.probeFailed(t.h.id('d'), false, true);
    run(t.clock, SILENCE + 1);
    expect(t.dead).toEqual([]);
  });

  it('not when the other suspect’s host answers (it is slow, not silent): the silence still convicts', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 100);
    t.s.suspect({ kind: 'suspect', name: 'c', incarnation: 1, from: 'd' });
    run(t.clock, SILENCE - 100);
    expect(t.dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', SILENCE]]);
  });

  it('not when the other silent suspicion ended before the deadline', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 100);
    t.s.probeFailed(t.h.id('c'), false, true);
    run(t.clock, 900);
    t.s.take(t.h.id('c')); // refuted
    run(t.clock, SILENCE - 1000);
    expect(t.dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', SILENCE]]);
  });

  it('not when the other suspicion ended before the deadline', () => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 100);
    t.s.suspect({ kind: 'suspect', name: 'c', incarnation: 1, from: 'd' });
    run(t.clock, 900);
    t.s.take(t.h.id('c')); // refuted
    run(t.clock, SILENCE - 1000);
    expect(t.dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', SILENCE]]);
  });
});

describe('Suspicions: the connections of the window', () => {
  it('a refused one is a refusal witness, gossiped, and the silence still ends it', () => {
    const t = six(lan, () => REFUSED);
    t.s.probeFailed(t.b, false, true);
    run(t.clock, STEP + 1);
    expect(queued(t.h)).toContainEqual({
      kind: 'suspect',
      name: 'b',
      incarnation: 1,
      from: 'self',
      refused: true,
    });
    expect(t.h.ctx.counters.connectsRefused).toBe(1);
    run(t.clock, SILENCE - t.clock.now());
    // One refusal is one witness of the two that would end it sooner; the later ones are the same witness.
    expect(t.dead.map((d) => d.atMs)).toEqual([SILENCE]);
    expect(t.h.ctx.counters.connectsRefused).toBe(14);
  });

  it('a refused one and another member’s refusal end it one probe timeout after the second', () => {
    const t = six(lan, () => REFUSED);
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 200);
    t.s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    run(t.clock, lan.probeTimeoutMs - 0.001);
    expect(t.dead).toEqual([]);
    run(t.clock, 0.001);
    expect(t.dead.map((d) => d.atMs)).toEqual([200 + lan.probeTimeoutMs]);
  });

  it.each([
    { why: 'the suspicion was refuted', stop: (t: ReturnType<typeof six>) => t.s.take(t.b) },
    { why: 'the member stopped', stop: (t: ReturnType<typeof six>) => (t.h.ctx.lifecycle.phase = 'stopped') },
    {
      why: 'the suspect came back at a new incarnation',
      stop: (t: ReturnType<typeof six>) => {
        t.s.take(t.b)?.cancel();
        t.h.ctx.view.table.set(t.b, SUSPECT, 2, t.clock.now());
        t.s.suspect({ kind: 'suspect', name: 'b', incarnation: 2, from: 'c' }); // a new suspicion, not silent
      },
    },
  ])('stop when $why', ({ stop }) => {
    const t = six();
    t.s.probeFailed(t.b, false, true);
    run(t.clock, 300);
    stop(t);
    run(t.clock, 10 * SILENCE);
    expect(tries(t).map(([at]) => at)).toEqual([STEP, 2 * STEP, 3 * STEP]);
  });
});

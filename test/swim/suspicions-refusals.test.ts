/**
 * The suspicions' kernel evidence: refused connections to a suspect's port. Two refusals from different
 * members end a suspicion one probe timeout (500 ms, lan) after the second, with no last word; a member
 * that hears of one tries a connection of its own, once per suspicion, and gossips its own refusal.
 * A view of six members (see suspicions.test.ts for the timeouts this gives: max 24 000 ms, 11 381 ms with
 * one of the two expected confirmations).
 */
import { describe, expect, it } from 'vitest';
import { DEAD, SUSPECT } from '../../src/membership/member-state.js';
import type { Suspicions } from '../../src/swim/suspicions.js';
import { memberEvents, queued, six, suspicions } from './suspicions-fixture.js';
import { addressOf, type Harness, harness, run } from './swim-context.js';

const GRACE_MS = 500;
const ONE_CONFIRMATION_MS = 11_381;

/** The `from` of the suspect updates about `name` that wait in the outbox, with their `refused`. */
function suspectsQueued(h: Harness, name: string): Array<[string, boolean]> {
  return queued(h).flatMap((u) =>
    u.kind === 'suspect' && u.name === name ? [[u.from, u.refused === true] as [string, boolean]] : [],
  );
}

describe('Suspicions: refusals heard of', () => {
  it('the second witness’s refusal ends the suspicion one probe timeout later, without a last word', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    run(h.clock, 1000);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd', refused: true });
    run(h.clock, GRACE_MS - 1);
    expect(dead).toEqual([]);
    run(h.clock, 1);
    expect(dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', 1000 + GRACE_MS]]);
    expect(pings).toEqual([]);
    expect(memberEvents(h).map((e) => e[2])).toEqual(['suspect-gossip']);
  });

  it('a plain suspicion is no refusal: one refusal beside it only confirms', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, 1000);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd', refused: true });
    run(h.clock, ONE_CONFIRMATION_MS - 1 - 1000);
    expect([dead.length, pings.length]).toEqual([0, 0]);
    run(h.clock, 1);
    expect(pings.map((p) => p.atMs)).toEqual([ONE_CONFIRMATION_MS]);
  });

  it('a refusal from the accuser itself is new evidence, passed on', () => {
    const h = six();
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    const wakes = h.wakes;
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    expect(h.wakes).toBe(wakes + 1);
    expect(s.take(h.id('b'))?.refusedBy).toEqual(['c']);
  });

  it('a witness keeps its own refusal queued beside another witness’s refusal of the same member', () => {
    const h = harness();
    for (const n of ['n3', 'n5']) h.know(n);
    const { s } = suspicions(h);
    s.witnessRefused(h.id('n5'));
    s.suspect({ kind: 'suspect', name: 'n5', incarnation: 1, from: 'n3', refused: true });
    expect(suspectsQueued(h, 'n5').sort()).toEqual([
      ['n3', true],
      ['self', true],
    ]);
  });
});

describe('Suspicions: our own refused connections', () => {
  it('a refused connection of our own raises a suspicion and counts as a failed probe', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeRefused(h.id('b'));
    expect(h.ctx.counters.probesFailed).toBe(1);
    expect(memberEvents(h)).toEqual([['suspect', 'b', 'connection-refused', 'self']]);
    expect(suspectsQueued(h, 'b')).toEqual([['self', true]]);
    expect(s.take(h.id('b'))?.refusedBy).toEqual(['self']);
  });

  it('a refusal witnessed during a suspicion is added to it and gossiped once, without confirming it', () => {
    const h = six();
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    s.witnessRefused(h.id('b'));
    const wakes = h.wakes;
    s.witnessRefused(h.id('b'));
    expect(h.wakes).toBe(wakes);
    expect(suspectsQueued(h, 'b').sort()).toEqual([
      ['c', false],
      ['self', true],
    ]);
    const suspicion = s.take(h.id('b'));
    expect(suspicion?.refusedBy).toEqual(['self']);
    expect(suspicion?.confirmations).toBe(0);
    expect(suspicion?.connectTried).toBe(true);
  });

  it('a refusal witnessed of a member no longer probeable is ignored', () => {
    const h = six();
    h.know('g', DEAD, 1);
    const { s } = suspicions(h);
    s.witnessRefused(h.id('g'));
    expect([h.wakes, h.events.length]).toEqual([0, 0]);
    expect(h.ctx.view.table.stateOf(h.id('g'))).toBe(DEAD);
  });
});

describe('Suspicions: trying a connection of our own', () => {
  it('only a refusal heard of makes it try, once per suspicion', () => {
    const h = six({ connect: true });
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd' });
    expect(h.connects).toEqual([]);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'e', refused: true });
    expect(h.connects).toEqual([addressOf('b')]);
    run(h.clock, 10); // the host accepted it
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'f', refused: true });
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 1, from: 'c', refused: true });
    expect(h.connects).toEqual([addressOf('b')]);
  });

  it('a refused suspicion raised here makes it try at once', () => {
    const h = six({ connect: true });
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    expect(h.connects).toEqual([addressOf('b')]);
  });

  it('its own refusal, the second witness, confirms, is gossiped, and ends the suspicion a probe timeout later', () => {
    const h = six({ connect: true });
    h.refusing.add(addressOf('b'));
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    run(h.clock, 1); // the refusal comes back after 1 ms
    expect(suspectsQueued(h, 'b').sort()).toEqual([
      ['c', true],
      ['self', true],
    ]);
    expect(queued(h)).toContainEqual({
      kind: 'suspect',
      name: 'b',
      incarnation: 1,
      from: 'self',
      refused: true,
    });
    run(h.clock, GRACE_MS - 1);
    expect(dead).toEqual([]);
    run(h.clock, 1);
    expect(dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', 1 + GRACE_MS]]);
    expect(pings).toEqual([]);
  });

  it.each([
    { why: 'the member stopped', meanwhile: (h: Harness) => (h.ctx.lifecycle.phase = 'stopped') },
    { why: 'the suspicion ended', meanwhile: (h: Harness, s: Suspicions) => s.take(h.id('b')) },
    {
      why: 'the suspect moved to a new incarnation',
      meanwhile: (h: Harness) => h.ctx.view.table.set(h.id('b'), SUSPECT, 2, h.clock.now()),
    },
  ])('a refusal that comes back after $why is dropped', ({ meanwhile }) => {
    const h = six({ connect: true });
    h.refusing.add(addressOf('b'));
    const { s, dead } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    meanwhile(h, s);
    const wakes = h.wakes;
    run(h.clock, 1 + GRACE_MS);
    expect(h.connects).toEqual([addressOf('b')]);
    expect(h.wakes).toBe(wakes);
    expect(dead).toEqual([]);
  });

  it('a refusal that comes back after we witnessed one meanwhile is not counted twice', () => {
    const h = six({ connect: true });
    h.refusing.add(addressOf('b'));
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c', refused: true });
    s.witnessRefused(h.id('b'));
    const wakes = h.wakes;
    run(h.clock, 1);
    expect(h.wakes).toBe(wakes);
    expect(s.take(h.id('b'))?.confirmations).toBe(0);
  });
});

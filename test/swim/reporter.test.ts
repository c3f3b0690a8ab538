/**
 * The reporter: the events a member's transitions become, and when it tells the death watch that the
 * set of live members (alive or suspect) changed.
 */
import { describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { Reporter } from '../../src/swim/reporter.js';
import { harness } from './swim-context.js';

function reporter() {
  const h = harness();
  const b = h.know('b', undefined, 4);
  const events: unknown[] = [];
  let changes = 0;
  const r = new Reporter(
    h.ctx,
    (e) => events.push(e),
    () => changes++,
  );
  return { h, b, r, events, changes: () => changes };
}

describe('Reporter', () => {
  it.each([
    ['alive', 'unknown', 1],
    ['suspect', 'alive', 0],
    ['alive', 'suspect', 0],
    ['update', 'alive', 0],
    ['dead', 'suspect', 1],
    ['left', 'alive', 1],
    ['alive', 'dead', 1],
  ] as const)('%s from %s changes the live set %i time(s)', (type, previous, expected) => {
    const { b, r, changes } = reporter();
    r.member(type as MemberEvent['type'], b, previous, 'joined');
    expect(changes()).toBe(expected);
  });

  it('names the accuser only when there is one', () => {
    const { h, b, r, events } = reporter();
    h.clock.advance(250);
    r.member('alive', b, 'unknown', 'joined');
    r.member('suspect', b, 'alive', 'suspect-gossip', undefined, 'c');
    expect(events[0]).toStrictEqual({
      type: 'alive',
      member: 'b',
      address: 'b.test:7946',
      incarnation: 4,
      previous: 'unknown',
      atMs: 250,
      wallMs: 1_700_000_000_250,
      cause: 'joined',
      confirmations: 0,
      localHealth: 0,
    });
    expect(events[1]).toMatchObject({ type: 'suspect', accuser: 'c' });
  });
});

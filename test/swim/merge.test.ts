/**
 * What a state exchange (push-pull) may change in a member's view. memberlist's rule: a death listed by
 * a peer is hearsay, and becomes a suspicion here, which the member can still refute, instead of a death
 * propagated on someone's word; a leave, announced by the member itself, is taken as it is. One core
 * among scripted peers (`swim/swim-scripted.ts`); the push-pulls are written by hand.
 */
import { describe, expect, it } from 'vitest';
import { lan } from '../../src/swim/profiles.js';
import { Scripted } from './swim-scripted.js';

function cluster(seed = 1): Scripted {
  const s = new Scripted({ peers: ['b', 'c', 'x'], seed });
  s.start();
  s.run(100);
  expect(s.core.stateOf('x')).toBe('alive');
  s.events.length = 0;
  return s;
}

describe('merging a push-pull', () => {
  it.each([1, 2])('a member listed dead (incarnation %i) becomes a suspect, not dead', (incarnation) => {
    const s = cluster();
    s.core.handleStream(
      s.peer('b').address,
      s.pushPull('b', [
        { name: 'b', incarnation: 1, state: 'alive' },
        { name: 'x', incarnation, state: 'dead' },
      ]),
    );
    expect(s.core.stateOf('x')).toBe('suspect');
    expect(s.about('x')).toEqual([
      expect.objectContaining({ type: 'suspect', cause: 'suspect-gossip', accuser: 'b', incarnation }),
    ]);
    expect(s.core.counters.deathsDeclared).toBe(0);
  });

  it('the suspect a push-pull named dead refutes when probed, and is never declared dead', () => {
    const s = cluster();
    s.core.handleStream(s.peer('b').address, s.pushPull('b', [{ name: 'x', incarnation: 1, state: 'dead' }]));
    s.runUntil(() => s.core.stateOf('x') === 'alive', 4 * lan.probeIntervalMs);
    s.run(60_000);
    expect(s.about('x').map((e) => [e.type, e.cause])).toEqual([
      ['suspect', 'suspect-gossip'],
      ['alive', 'refuted'],
    ]);
    expect(s.core.members().find((m) => m.name === 'x')).toMatchObject({ state: 'alive', incarnation: 2 });
  });

  it('a member listed left is taken as left (its own announcement), and one listed suspect as suspect', () => {
    const s = cluster();
    s.core.handleStream(
      s.peer('b').address,
      s.pushPull('b', [
        { name: 'x', incarnation: 1, state: 'left' },
        { name: 'c', incarnation: 1, state: 'suspect' },
      ]),
    );
    expect(s.core.stateOf('x')).toBe('left');
    expect(s.core.stateOf('c')).toBe('suspect');
    expect(s.about('x')).toEqual([expect.objectContaining({ type: 'left', cause: 'left' })]);
  });

  it('a death listed at an older incarnation than the one known changes nothing', () => {
    const s = cluster();
    s.core.handleStream(
      s.peer('b').address,
      s.pushPull('b', [{ name: 'x', incarnation: 3, state: 'alive' }]),
    );
    s.events.length = 0;
    s.core.handleStream(s.peer('b').address, s.pushPull('b', [{ name: 'x', incarnation: 2, state: 'dead' }]));
    expect(s.core.stateOf('x')).toBe('alive');
    expect(s.events).toEqual([]);
  });
});

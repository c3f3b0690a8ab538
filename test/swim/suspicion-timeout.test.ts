/**
 * Lifeguard's suspicion timeout when no one confirms (Dadgar, Phillips and Currey, 2018, IV-B): the
 * suspicion runs for the maximum, suspicionMaxTimeoutMult × the minimum, so that a lone accuser gives a
 * slow suspect all that time to refute. One core among scripted peers (`swim/swim-scripted.ts`) that
 * never gossip: the only accuser is the core itself, and its own repeated probe failures are not
 * confirmations. Bounds both ways: a paused member that comes back between the minimum and the maximum
 * is not convicted, and one that stays silent is convicted at the maximum, neither before nor long after.
 */
import { describe, expect, it } from 'vitest';
import { memberlistLan } from '../../src/swim/profiles.js';
import { Scripted } from './swim-scripted.js';

const PEERS = ['b', 'c', 'x'];
// The timeouts for a view of 4 members, written out from memberlist's formulas rather than read from
// the code: min = suspicionMult × max(1, log10 4) × probeInterval = 4 × 1 × 1000 ms, max = 6 × min.
const MIN_MS = memberlistLan.suspicionMult * 1 * memberlistLan.probeIntervalMs;
const MAX_MS = memberlistLan.suspicionMaxTimeoutMult * MIN_MS;

/** The core, its peers known, then `x` silent until its suspicion is raised; returns when it was. */
function suspectX(seed: number): { s: Scripted; suspectedAt: number } {
  const s = new Scripted({ peers: PEERS, seed });
  s.start();
  s.run(5000);
  expect(s.core.stateOf('x')).toBe('alive');
  expect(s.events.map((e) => e.cause)).toEqual(['joined', 'joined', 'joined']);
  s.events.length = 0;
  s.peer('x').silent = true;
  const suspectedAt = s.runUntil(() => s.core.stateOf('x') === 'suspect', 10 * memberlistLan.probeIntervalMs);
  const [suspect] = s.about('x');
  expect(suspect).toMatchObject({ type: 'suspect', cause: 'probe-failed', accuser: 'a', confirmations: 0 });
  return { s, suspectedAt };
}

describe('Lifeguard: a suspicion nobody confirms runs for the maximum timeout', () => {
  it('the timeouts written out match expectedTiming for 4 members (4 s and 24 s)', () => {
    expect([MIN_MS, MAX_MS]).toEqual([4000, 24_000]);
  });

  it.each([1, 2, 3])(
    'a member paused for longer than the minimum but shorter than the maximum refutes in time (seed %i)',
    (seed) => {
      const { s, suspectedAt } = suspectX(seed);
      // Comes back half-way between the minimum and the maximum: a timeout of min would convict it.
      const resumeAt = suspectedAt + (MIN_MS + MAX_MS) / 2;
      s.run(resumeAt - s.clock.now());
      expect(s.core.stateOf('x')).toBe('suspect');
      s.peer('x').silent = false;
      // The core probes its own suspect within a couple of periods, with the accusation: x refutes.
      s.runUntil(() => s.core.stateOf('x') === 'alive', 3 * memberlistLan.probeIntervalMs);
      s.run(MAX_MS);
      expect(s.about('x').map((e) => [e.type, e.cause])).toEqual([
        ['suspect', 'probe-failed'],
        ['alive', 'refuted'],
      ]);
      expect(s.core.counters.deathsDeclared).toBe(0);
      // Its repeated failed probes of x were no confirmations of its own suspicion.
      expect(s.core.counters.probesFailed).toBeGreaterThan(3);
    },
  );

  it.each([1, 2, 3])(
    'a member that stays silent is declared dead at the maximum timeout, not before (seed %i)',
    (seed) => {
      const { s, suspectedAt } = suspectX(seed);
      s.run(suspectedAt + MAX_MS - 1 - s.clock.now());
      expect(s.core.stateOf('x')).toBe('suspect');
      const deadAt = s.runUntil(() => s.core.stateOf('x') === 'dead', 2 * memberlistLan.probeIntervalMs);
      // At the maximum, or up to a last-word ping's timeout after it.
      expect(deadAt - suspectedAt).toBeGreaterThanOrEqual(MAX_MS);
      expect(deadAt - suspectedAt).toBeLessThanOrEqual(MAX_MS + memberlistLan.probeTimeoutMs);
      const dead = s.about('x').find((e) => e.type === 'dead');
      expect(dead).toMatchObject({ cause: 'suspicion-timeout', accuser: 'a', confirmations: 0 });
      expect(s.core.counters.deathsDeclared).toBe(1);
    },
  );
});

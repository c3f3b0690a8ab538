/**
 * The incarnation ceilings remembered for forgotten members (`ForgottenLives`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORGOTTEN_BUCKETS, ForgottenLives } from '../../src/swim/forgotten-lives.js';
import { RUNS, SEED } from '../support/swim-fixtures.js';

describe('ForgottenLives', () => {
  it('knows no forgotten life until one is noted', () => {
    expect(new ForgottenLives().ceilingOf('anyone')).toBe(-1);
  });

  it('never under-estimates: the ceiling of a name is at least every incarnation noted for it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.nat(0xffffffff)), {
          maxLength: 600,
        }),
        (noted) => {
          const lives = new ForgottenLives();
          const highest = new Map<string, number>();
          for (const [name, incarnation] of noted) {
            lives.note(name, incarnation);
            highest.set(name, Math.max(highest.get(name) ?? -1, incarnation));
          }
          for (const [name, incarnation] of highest)
            expect(lives.ceilingOf(name)).toBeGreaterThanOrEqual(incarnation);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('spreads names over its buckets: most of a few names share no ceiling', () => {
    const lives = new ForgottenLives();
    lives.note('n0', 100);
    let shared = 0;
    for (let i = 1; i <= FORGOTTEN_BUCKETS; i++) if (lives.ceilingOf(`n${i}`) === 100) shared++;
    // One bucket in 256: a handful of collisions among 256 names, not most of them.
    expect(shared).toBeLessThan(8);
  });

  it('shares a ceiling exactly among the names of one FNV-1a bucket (hash mod 256)', () => {
    // FNV-1a (32-bit) over the UTF-16 code units, written out here from its definition.
    const fnv1a = (name: string): number => {
      let hash = 0x811c9dc5;
      for (const unit of Array.from({ length: name.length }, (_, i) => name.charCodeAt(i))) {
        hash = Math.imul(hash ^ unit, 0x01000193) >>> 0;
      }
      return hash % FORGOTTEN_BUCKETS;
    };
    const lives = new ForgottenLives();
    lives.note('a', 7);
    const names = Array.from({ length: 2000 }, (_, i) => `member-${i}`);
    for (const name of names) expect(lives.ceilingOf(name)).toBe(fnv1a(name) === fnv1a('a') ? 7 : -1);
    expect(names.filter((name) => fnv1a(name) === fnv1a('a')).length).toBeGreaterThan(0);
  });
});

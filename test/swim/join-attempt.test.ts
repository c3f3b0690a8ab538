/**
 * A join's seeds and their answers alone (src/swim/join-attempt.ts): an answer from a seed's own address
 * is that seed's, an answer to a join from elsewhere goes to the first seed still waiting, and nothing
 * is answered twice.
 */
import { describe, expect, it } from 'vitest';
import { JoinAttempt, type SeedAnswer } from '../../src/swim/join-attempt.js';
import type { Refusal } from '../../src/swim/refusal.js';

function attempt(seeds: string[]) {
  const answers: SeedAnswer[] = [];
  const a = new JoinAttempt(seeds, (answer) => answers.push(answer));
  return { a, answers, seeds: () => answers.map((x) => x.seed) };
}

const REFUSED: Refusal = { code: 'FDKIT_JOIN_NAME_CONFLICT', reason: 'held elsewhere' };

describe('JoinAttempt', () => {
  it('is done once every seed has answered, a repeated seed counting once', () => {
    const s = attempt(['a:1', 'b:1', 'a:1']);
    expect(s.a.done).toBe(false);
    s.a.answered('a:1', false, undefined);
    expect(s.a.done).toBe(false);
    s.a.answered('a:1', false, undefined); // a's second reply is no one else's answer
    expect(s.a.done).toBe(false);
    s.a.answered('b:1', false, REFUSED);
    expect(s.a.done).toBe(true);
    expect(s.answers).toEqual([
      { seed: 'a:1', refusal: undefined },
      { seed: 'b:1', refusal: REFUSED },
    ]);
  });

  it('with no seeds is done at once', () => {
    expect(attempt([]).a.done).toBe(true);
  });

  it('gives an answer to a join from an unknown address to the first seed still waiting', () => {
    const s = attempt(['a:1', 'b:1', 'c:1']);
    s.a.answered('b:1', false, undefined);
    s.a.answered('nat.example:9', true, REFUSED);
    s.a.answered('other:2', true, undefined);
    expect(s.answers).toEqual([
      { seed: 'b:1', refusal: undefined },
      { seed: 'a:1', refusal: REFUSED },
      { seed: 'c:1', refusal: undefined },
    ]);
    expect(s.a.done).toBe(true);
  });

  it('takes a seed’s own answer as its own even when flagged as a join', () => {
    const s = attempt(['a:1', 'b:1']);
    s.a.answered('b:1', true, undefined);
    expect(s.seeds()).toEqual(['b:1']);
    expect(s.a.done).toBe(false);
  });

  it('ignores an unknown address not answering a join, and any answer once done', () => {
    const s = attempt(['a:1']);
    s.a.answered('other:2', false, undefined);
    expect([s.answers.length, s.a.done]).toEqual([0, false]);
    s.a.answered('a:1', false, undefined);
    s.a.answered('other:2', true, REFUSED);
    s.a.answered('a:1', true, undefined);
    expect(s.seeds()).toEqual(['a:1']);
  });
});

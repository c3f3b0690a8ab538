/** `checkReach`: each member asked up to its attempts, one after the other failed, all members at once. */
import { describe, expect, it } from 'vitest';
import { checkReach, type ReachProbe } from '../../src/downing/reach-check.js';

/** A probe answering from a script of answers per name, synchronously, recording each ask. */
function scripted(script: Record<string, boolean[]>) {
  const asked: string[] = [];
  const probe: ReachProbe = (name, done) => {
    asked.push(name);
    done(script[name]!.shift() ?? false);
  };
  return { probe, asked };
}

describe('checkReach', () => {
  it('asks again only after a failure, up to the attempts, and reports who answered', () => {
    const { probe, asked } = scripted({ b: [true], c: [false, true], d: [false, false, true] });
    const results: string[][] = [];
    checkReach(
      ['b', 'c', 'd'],
      probe,
      () => 2,
      (reached) => results.push([...reached].sort()),
    );
    expect(results).toEqual([['b', 'c']]);
    expect(asked.filter((n) => n === 'b')).toHaveLength(1);
    expect(asked.filter((n) => n === 'c')).toHaveLength(2);
    expect(asked.filter((n) => n === 'd')).toHaveLength(2); // its third answer is never asked for
  });

  it('answers at once for no member', () => {
    const results: number[] = [];
    checkReach(
      [],
      scripted({}).probe,
      () => 2,
      (reached) => results.push(reached.size),
    );
    expect(results).toEqual([0]);
  });

  it('waits for the last answer, and a probe answering twice counts once', () => {
    const pending: Array<(acked: boolean) => void> = [];
    const results: string[][] = [];
    checkReach(
      ['b', 'c'],
      (_name, done) => pending.push(done),
      () => 1,
      (reached) => results.push([...reached]),
    );
    pending[0]!(true);
    pending[0]!(true);
    expect(results).toEqual([]);
    pending[1]!(false);
    pending[1]!(true);
    expect(results).toEqual([['b']]);
  });

  it('a member forgotten counts as not answering at once, and its late answer is ignored', () => {
    const pending = new Map<string, (acked: boolean) => void>();
    const results: string[][] = [];
    const check = checkReach(
      ['b', 'c'],
      (name, done) => pending.set(name, done),
      () => 2,
      (reached) => results.push([...reached]),
    );
    pending.get('c')!(true);
    expect(results).toEqual([]);
    check.forget('b');
    expect(results).toEqual([['c']]);
    pending.get('b')!(true);
    check.forget('c');
    expect(results).toEqual([['c']]);
  });

  it('gives each member its own number of attempts', () => {
    const { probe, asked } = scripted({ b: [false, true], c: [false, true] });
    const results: string[][] = [];
    checkReach(
      ['b', 'c'],
      probe,
      (name) => (name === 'b' ? 2 : 1),
      (reached) => results.push([...reached]),
    );
    expect(results).toEqual([['b']]);
    expect(asked).toEqual(['b', 'b', 'c']); // the script answers at once: b's second attempt comes first
  });
});

import { describe, expect, it } from 'vitest';
import { runLeaseLesson } from '../../src/fencing/lesson/lease-lesson.js';

// B reads 10 ms after it acquires; written here, not imported, so the test does not share the runner's math.
const READ = 10;

describe('runLeaseLesson', () => {
  it('charges twice when A wakes after B read, without fencing', () => {
    const r = runLeaseLesson({ pauseMs: 3000, termMs: 1000, fencing: false });
    expect(r.charges).toBe(2);
    expect(r.doubleCharge).toBe(true);
  });
  it('refuses A stale write with fencing, charging once', () => {
    const r = runLeaseLesson({ pauseMs: 3000, termMs: 1000, fencing: true });
    expect(r.charges).toBe(1);
    const refused = r.steps.filter((s) => s.outcome === 'refused');
    expect(refused).toEqual([
      { t: 3000, actor: 'storage', action: "A's charge", token: '1', outcome: 'refused' },
    ]);
  });
  it('charges once either way when the pause is shorter than the term', () => {
    for (const fencing of [false, true]) {
      const r = runLeaseLesson({ pauseMs: 500, termMs: 1000, fencing });
      expect(r.charges).toBe(1);
      expect(r.steps.some((s) => s.outcome === 'refused')).toBe(false);
    }
  });
  it('at P == T the lease is already over (lost at now >= deadline): fenced A is refused', () => {
    const on = runLeaseLesson({ pauseMs: 1000, termMs: 1000, fencing: true });
    expect(on.charges).toBe(1);
    expect(on.steps.find((s) => s.outcome === 'refused')?.t).toBe(1000);
    // Unfenced, A writes at T, before B's read at T + READ: B sees the charge.
    const off = runLeaseLesson({ pauseMs: 1000, termMs: 1000, fencing: false });
    expect(off.charges).toBe(1);
    expect(off.steps.find((s) => s.actor === 'B' && s.action.startsWith('reads'))?.t).toBe(1000 + READ);
    expect(runLeaseLesson({ pauseMs: 1000 + READ + 1, termMs: 1000, fencing: false }).doubleCharge).toBe(
      true,
    );
  });
});

/**
 * `VirtualClock`'s arguments are rejected without scheduling anything.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/index.js';
import { expectArgumentError, NON_FINITE } from '../support/validation.js';

describe('VirtualClock arguments', () => {
  function clockWithTimer(): { clock: VirtualClock; fired: number[] } {
    const clock = new VirtualClock({ startMs: 100 });
    const fired: number[] = [];
    clock.setTimer(0, () => fired.push(clock.now()));
    clock.setTimer(50, () => fired.push(clock.now()));
    return { clock, fired };
  }

  it.each([-1, -Number.MIN_VALUE, ...NON_FINITE].map((ms) => ({ ms, label: String(ms) })))(
    'advance($label) throws, fires nothing and leaves the time unchanged',
    ({ ms }) => {
      const { clock, fired } = clockWithTimer();
      expectArgumentError(() => clock.advance(ms), 'ms');
      expect(clock.now()).toBe(100);
      expect(fired).toEqual([]);
      expect(clock.nextDueMs()).toBe(100);
    },
  );

  it('advance(0) is accepted and fires what is due now', () => {
    const { clock, fired } = clockWithTimer();
    expect(clock.advance(0)).toBe(1);
    expect(fired).toEqual([100]);
    expect(clock.now()).toBe(100);
  });

  it.each([99, -1e9, ...NON_FINITE].map((t) => ({ t, label: String(t) })))(
    'advanceTo($label) throws and leaves the time unchanged',
    ({ t }) => {
      const { clock, fired } = clockWithTimer();
      expectArgumentError(() => clock.advanceTo(t), 'targetMs');
      expect(clock.now()).toBe(100);
      expect(fired).toEqual([]);
    },
  );

  it('setTimer(NaN) throws and schedules nothing', () => {
    const clock = new VirtualClock();
    expectArgumentError(() => clock.setTimer(Number.NaN, () => undefined), 'delayMs');
    expect(clock.nextDueMs()).toBeUndefined();
  });
});

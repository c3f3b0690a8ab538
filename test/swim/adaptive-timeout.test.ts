/**
 * The adaptive probe timeout: the wait for a direct ack ends where phi of the normal model fitted to
 * recent round trips reaches `phi`, within [minMs, probe timeout]. The deviations by hand: Akka's
 * approximation gives phi(y) = −log10(e / (1 + e)) with e = exp(−y (1.5976 + 0.070566 y²)), so phi(y) = 3
 * where y (1.5976 + 0.070566 y²) = ln 999 = 6.90675: y = 3.05894 (check: 3.05894 × 2.25790 = 6.9068);
 * phi(y) = 1 where it is ln 9 = 2.19722: y = 1.28222.
 */
import { describe, expect, it } from 'vitest';
import { normalPhiUnchecked } from '../../src/detector/phi.js';
import {
  AdaptiveTimeout,
  type AdaptiveTimeoutOptions,
  checkAdaptiveTimeoutOptions,
} from '../../src/swim/adaptive-timeout.js';

const MAX_MS = 500;
const Y_PHI_3 = 3.05894;
const Y_PHI_1 = 1.28222;

/** A timeout of `options` that recorded `rtts`. */
function fed(rtts: readonly number[], options: ConstructorParameters<typeof AdaptiveTimeout>[0] = {}) {
  const t = new AdaptiveTimeout(options, MAX_MS);
  for (const rtt of rtts) t.record(rtt);
  return t;
}

/** Eight round trips, 10 and 14 ms in turn: mean 12, population deviation 2. */
const SPREAD = [10, 14, 10, 14, 10, 14, 10, 14];

describe('AdaptiveTimeout.timeoutMs', () => {
  it('is the probe timeout until eight round trips are in', () => {
    expect(fed(SPREAD.slice(0, 7)).timeoutMs()).toBe(MAX_MS);
    expect(fed(SPREAD).timeoutMs()).toBeCloseTo(12 + 2 * Y_PHI_3, 3);
  });

  it('ends where phi of the wait reaches the option (default 3)', () => {
    expect(fed(SPREAD, { phi: 1 }).timeoutMs()).toBeCloseTo(12 + 2 * Y_PHI_1, 3);
  });

  it('ends at the first wait, to the double, whose phi reaches the option', () => {
    // At mean 0, deviation 1 and minMs 0 the timeout is the deviations alone; a phi that some wait
    // reaches exactly (that of 3 deviations) must be met, not overshot.
    for (const phi of [3, normalPhiUnchecked(3, 0, 1), 0.5, 30]) {
      const y = fed(new Array(8).fill(0), { phi, minMs: 0 }).timeoutMs();
      expect(normalPhiUnchecked(y, 0, 1)).toBeGreaterThanOrEqual(phi);
      expect(normalPhiUnchecked(y * (1 - Number.EPSILON), 0, 1)).toBeLessThan(phi);
    }
  });

  it('records a round trip of 0 ms and ignores a negative one', () => {
    // Eight of 0 ms: mean 0, deviation floored at 1 ms, 3.06 ms, raised to the 10 ms minimum.
    expect(fed(new Array(8).fill(0)).timeoutMs()).toBe(10);
    expect(fed(new Array(8).fill(-1)).timeoutMs()).toBe(MAX_MS);
  });

  it('floors the deviation at 1 ms for perfectly regular round trips', () => {
    expect(fed(new Array(8).fill(100)).timeoutMs()).toBeCloseTo(100 + Y_PHI_3, 3);
  });

  it('stays within [minMs, probe timeout]', () => {
    expect(fed(new Array(8).fill(1000)).timeoutMs()).toBe(MAX_MS);
    expect(fed(new Array(8).fill(1), { minMs: 40 }).timeoutMs()).toBe(40);
    expect(fed([]).minMs).toBe(10);
  });
});

describe('checkAdaptiveTimeoutOptions', () => {
  it('fills in the defaults: phi 3, minMs 10', () => {
    expect(checkAdaptiveTimeoutOptions({}, MAX_MS)).toEqual({ phi: 3, minMs: 10 });
    expect(checkAdaptiveTimeoutOptions({ phi: 0.5, minMs: 0 }, MAX_MS)).toEqual({ phi: 0.5, minMs: 0 });
    expect(checkAdaptiveTimeoutOptions({ phi: 30, minMs: MAX_MS }, MAX_MS)).toEqual({
      phi: 30,
      minMs: MAX_MS,
    });
  });

  it.each([
    [{ phi: 0.4 }, 'adaptiveProbeTimeout: option phi must be a number >= 0.5 and <= 30, got 0.4 (a number)'],
    [{ phi: 31 }, 'adaptiveProbeTimeout: option phi must be a number >= 0.5 and <= 30, got 31 (a number)'],
    [{ minMs: -1 }, 'adaptiveProbeTimeout: option minMs must be a number >= 0 and <= 500, got -1 (a number)'],
    [
      { minMs: 501 },
      'adaptiveProbeTimeout: option minMs must be a number >= 0 and <= 500, got 501 (a number)',
    ],
    [{ phy: 3 }, 'adaptiveProbeTimeout: unknown option phy; known options are phi, minMs'],
  ])('rejects %o', (given, message) => {
    // Unknown keys are what is checked: the caller may not be typed.
    const options = given as AdaptiveTimeoutOptions;
    expect(() => checkAdaptiveTimeoutOptions(options, MAX_MS)).toThrow(message);
    expect(() => new AdaptiveTimeout(options, MAX_MS)).toThrow(message);
  });

  it('names the options under the path and owner given', () => {
    expect(() =>
      checkAdaptiveTimeoutOptions({ minMs: 501 }, MAX_MS, 'createSwimNode', 'adaptiveProbeTimeout.'),
    ).toThrow(
      'createSwimNode: option adaptiveProbeTimeout.minMs must be a number >= 0 and <= 500, got 501 (a number)',
    );
    expect(() =>
      checkAdaptiveTimeoutOptions({ phi: 0 }, MAX_MS, 'createSwimNode', 'adaptiveProbeTimeout.'),
    ).toThrow('createSwimNode: option adaptiveProbeTimeout.phi must be');
  });
});

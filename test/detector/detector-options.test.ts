/**
 * Every option of the three detectors (PhiAccrualDetector, FixedTimeoutDetector, ChenDetector) is
 * validated: one table row per value, with the ranges written out here from the documentation,
 * independently of the ranges in src/.
 */
import { describe, expect, it } from 'vitest';
import {
  ChenDetector,
  type FailureDetector,
  FixedTimeoutDetector,
  PhiAccrualDetector,
} from '../../src/index.js';
import { expectOptionError, NON_FINITE, shown } from '../support/validation.js';

/** Largest value of every duration option of the detectors: one year in ms. */
const MAX_DURATION = 31_536_000_000;

/** Duration values above the maximum: just above, well above, and far above. */
const ABOVE_MAX_DURATION = [MAX_DURATION + 0.001, MAX_DURATION + 1, 1e12, 1e200, Number.MAX_VALUE] as const;

interface DetectorOption {
  readonly owner: string;
  readonly option: string;
  /** Text the message must contain to state the allowed range. */
  readonly range: string;
  readonly invalid: readonly unknown[];
  /** Allowed values, boundaries first. */
  readonly valid: readonly unknown[];
  readonly make: (options: Record<string, unknown>) => unknown;
  /** Asserts that `value` took effect in `detector`. */
  readonly effect: (detector: never, value: never) => void;
}

const makePhi = (o: Record<string, unknown>) => new PhiAccrualDetector(o as never);

const makeFixed = (o: Record<string, unknown>) => new FixedTimeoutDetector(o as never);

const makeChen = (o: Record<string, unknown>) => new ChenDetector(o as never);

const DETECTOR_OPTIONS: readonly DetectorOption[] = [
  {
    owner: 'PhiAccrualDetector',
    option: 'threshold',
    range: 'a number > 0',
    invalid: [0, -0, -1, -Number.MIN_VALUE, Number.NaN, Number.NEGATIVE_INFINITY, '8', true, {}],
    // +Infinity is allowed: a detector that never suspects anyone.
    valid: [Number.MIN_VALUE, 1, 8, 1e9, Number.POSITIVE_INFINITY],
    make: makePhi,
    effect: (d: PhiAccrualDetector, v: number) => {
      expect(d.threshold).toBe(v);
      d.heartbeat(0);
      // silence of exactly mean + pause: phi = log10 2 whatever the threshold
      expect(d.isAvailable(4000)).toBe(Math.log10(2) < v);
    },
  },
  {
    owner: 'PhiAccrualDetector',
    option: 'maxSampleSize',
    range: 'an integer >= 1 and <= 1000000',
    invalid: [0, -1, 1_000_001, 1.5, 999_999.5, ...NON_FINITE, '10'],
    valid: [1, 1_000_000, 2, 1000],
    make: makePhi,
    effect: (d: PhiAccrualDetector, v: number) => {
      expect(d.maxSampleSize).toBe(v);
      for (let t = 0; t <= 5000; t += 1000) d.heartbeat(t);
      // 2 bootstrap intervals + 5 recorded ones, capped by the window
      expect(d.sampleCount).toBe(Math.min(v, 7));
    },
  },
  {
    owner: 'PhiAccrualDetector',
    option: 'minStdDeviationMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '100'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 0.5, 1e9],
    make: makePhi,
    effect: (d: PhiAccrualDetector, v: number) => {
      expect(d.minStdDeviationMs).toBe(v);
    },
  },
  {
    owner: 'PhiAccrualDetector',
    option: 'acceptableHeartbeatPauseMs',
    range: `a number >= 0 and <= ${MAX_DURATION}`,
    invalid: [-1, -Number.MIN_VALUE, ...ABOVE_MAX_DURATION, ...NON_FINITE, '0'],
    valid: [0, Number.MIN_VALUE, MAX_DURATION, 2.5, 1e9],
    make: makePhi,
    effect: (d: PhiAccrualDetector, v: number) => {
      expect(d.acceptableHeartbeatPauseMs).toBe(v);
      d.heartbeat(0);
      // the mean (1000) shifted by the pause is where phi is exactly log10 2
      expect(d.phi(1000 + v)).toBe(Math.log10(2));
    },
  },
  {
    owner: 'PhiAccrualDetector',
    option: 'firstHeartbeatEstimateMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '1000'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 0.25, 1, 1e9],
    make: (o) => makePhi({ ...o, distribution: 'exponential' }),
    effect: (d: PhiAccrualDetector, v: number) => {
      expect(d.firstHeartbeatEstimateMs).toBe(v);
      d.heartbeat(0);
      // the exponential model bootstraps with one interval equal to the estimate
      expect(d.intervalMeanMs).toBe(v);
    },
  },
  {
    owner: 'PhiAccrualDetector',
    option: 'distribution',
    range: "'normal', 'exponential'",
    invalid: ['Normal', 'gaussian', '', ' normal', 0, true, ['normal']],
    valid: ['normal', 'exponential'],
    make: makePhi,
    effect: (d: PhiAccrualDetector, v: string) => {
      expect(d.distribution).toBe(v);
      d.heartbeat(0);
      expect(d.sampleCount).toBe(v === 'normal' ? 2 : 1);
    },
  },
  {
    owner: 'FixedTimeoutDetector',
    option: 'timeoutMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '5000'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 1, 3000, 1e9],
    make: makeFixed,
    effect: (d: FixedTimeoutDetector, v: number) => {
      expect(d.threshold).toBe(v);
      d.heartbeat(0);
      expect(d.isAvailable(0)).toBe(true);
      expect(d.suspicion(v)).toBe(v);
      expect(d.isAvailable(v)).toBe(false);
    },
  },
  {
    owner: 'ChenDetector',
    option: 'alphaMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '500'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 1, 200, 1e9],
    make: (o) => makeChen({ ...o, intervalMs: 1000 }),
    effect: (d: ChenDetector, v: number) => {
      expect(d.threshold).toBe(v);
      d.heartbeat(0);
      // expected at 1000: available then, unavailable once late by alphaMs (where 1000 + v is representable)
      expect(d.isAvailable(1000)).toBe(true);
      const lateness = 1000 + v - 1000;
      expect(d.suspicion(1000 + v)).toBe(lateness);
      expect(d.isAvailable(1000 + v)).toBe(lateness < v);
    },
  },
  {
    owner: 'ChenDetector',
    option: 'windowSize',
    range: 'an integer >= 1 and <= 1000000',
    invalid: [0, -1, 1_000_001, 2.5, ...NON_FINITE, '1000'],
    valid: [1, 1_000_000, 3],
    make: makeChen,
    effect: (d: ChenDetector, v: number) => {
      expect(d.windowSize).toBe(v);
    },
  },
  {
    owner: 'ChenDetector',
    option: 'intervalMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '1000'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 0.5, 1000, 1e9],
    make: makeChen,
    effect: (d: ChenDetector, v: number) => {
      d.heartbeat(0);
      // one arrival at 0: EA = mean(A) + Δ·(1 + 1)/2 = Δ
      expect(d.expectedArrivalAtMs).toBe(v);
    },
  },
  {
    owner: 'ChenDetector',
    option: 'firstHeartbeatEstimateMs',
    range: `a number > 0 and <= ${MAX_DURATION}`,
    invalid: [0, -0, -1, ...ABOVE_MAX_DURATION, ...NON_FINITE, '1000'],
    valid: [Number.MIN_VALUE, MAX_DURATION, 0.5, 1000, 1e9],
    make: makeChen,
    effect: (d: ChenDetector, v: number) => {
      d.heartbeat(0);
      expect(d.expectedArrivalAtMs).toBe(v);
    },
  },
];

const invalidRows = DETECTOR_OPTIONS.flatMap((o) =>
  o.invalid.map((value) => ({ ...o, value, label: shown(value) })),
);

const validRows = DETECTOR_OPTIONS.flatMap((o) =>
  o.valid.map((value) => ({ ...o, value, label: shown(value) })),
);

describe('detector options', () => {
  it.each(invalidRows)('$owner rejects $option = $label', ({ owner, option, range, value, make }) => {
    const e = expectOptionError(() => make({ [option]: value }), option);
    expect(e.message).toContain(owner);
    expect(e.message).toContain(range);
    // numbers and strings are echoed with their type, so that "5" and 5 read differently; objects are named
    const echoed =
      typeof value !== 'object'
        ? `${shown(value)} (a ${typeof value})`
        : Array.isArray(value)
          ? 'an array'
          : 'an object';
    expect(e.message).toContain(`got ${echoed}`);
  });

  it.each(validRows)(
    '$owner accepts $option = $label, and it takes effect',
    ({ option, value, make, effect }) => {
      const detector = make({ [option]: value });
      (effect as (d: unknown, v: unknown) => void)(detector, value);
    },
  );

  it.each([
    { owner: 'PhiAccrualDetector', make: makePhi, key: 'treshold' },
    { owner: 'PhiAccrualDetector', make: makePhi, key: 'Threshold' },
    { owner: 'PhiAccrualDetector', make: makePhi, key: 'maxSampleSizes' },
    { owner: 'FixedTimeoutDetector', make: makeFixed, key: 'timeout' },
    { owner: 'FixedTimeoutDetector', make: makeFixed, key: 'threshold' },
    { owner: 'ChenDetector', make: makeChen, key: 'alpha' },
    { owner: 'ChenDetector', make: makeChen, key: 'threshold' },
  ])('$owner rejects the unknown option $key', ({ owner, make, key }) => {
    // an unknown key is reported even when its value would be valid for the intended option
    const e = expectOptionError(() => make({ [key]: 8 }), key, 'FDKIT_UNKNOWN_OPTION');
    expect(e.message).toContain(owner);
  });

  it.each([
    { owner: 'PhiAccrualDetector', make: makePhi },
    { owner: 'FixedTimeoutDetector', make: makeFixed },
    { owner: 'ChenDetector', make: makeChen },
  ])('$owner rejects options that are not an object', ({ make }) => {
    for (const options of [null, 5, 'threshold', true]) {
      expectOptionError(() => make(options as never), '(options)');
    }
  });

  it.each([
    { owner: 'PhiAccrualDetector', make: makePhi, option: 'threshold', threshold: 8 },
    { owner: 'FixedTimeoutDetector', make: makeFixed, option: 'timeoutMs', threshold: 5000 },
    { owner: 'ChenDetector', make: makeChen, option: 'alphaMs', threshold: 500 },
  ])('$owner uses its default for no options, {} and $option: undefined', ({ make, option, threshold }) => {
    for (const options of [undefined, {}, { [option]: undefined }]) {
      expect((make(options as never) as FailureDetector).threshold).toBe(threshold);
    }
  });

  it('has the documented defaults', () => {
    const p = new PhiAccrualDetector();
    expect([
      p.threshold,
      p.maxSampleSize,
      p.minStdDeviationMs,
      p.acceptableHeartbeatPauseMs,
      p.firstHeartbeatEstimateMs,
      p.distribution,
    ]).toEqual([8, 1000, 100, 3000, 1000, 'normal']);
    expect(new FixedTimeoutDetector().threshold).toBe(5000);
    const c = new ChenDetector();
    expect([c.threshold, c.windowSize]).toEqual([500, 1000]);
    c.heartbeat(0);
    expect(c.expectedArrivalAtMs).toBe(1000);
  });

  it('reports the first invalid option and does not accept a valid one in its place', () => {
    expectOptionError(() => new PhiAccrualDetector({ threshold: 0, maxSampleSize: 0 }), 'threshold');
    expectOptionError(() => new PhiAccrualDetector({ threshold: 1, maxSampleSize: 0 }), 'maxSampleSize');
  });

  // A null from a JSON configuration file must not silently become the default.
  const nullRows = [
    ...new Map(
      DETECTOR_OPTIONS.map((o) => [
        `${o.owner}.${o.option}`,
        { owner: o.owner, option: o.option, make: o.make },
      ]),
    ).values(),
    { owner: 'PhiAccrualDetector', option: 'clock', make: makePhi },
    { owner: 'FixedTimeoutDetector', option: 'clock', make: makeFixed },
    { owner: 'ChenDetector', option: 'clock', make: makeChen },
  ];

  it('covers every option of every detector with the null rows', () => {
    const options = (owner: string) =>
      nullRows
        .filter((r) => r.owner === owner)
        .map((r) => r.option)
        .sort();
    expect(options('PhiAccrualDetector')).toEqual(
      [
        'threshold',
        'maxSampleSize',
        'minStdDeviationMs',
        'acceptableHeartbeatPauseMs',
        'firstHeartbeatEstimateMs',
        'distribution',
        'clock',
      ].sort(),
    );
    expect(options('FixedTimeoutDetector')).toEqual(['clock', 'timeoutMs']);
    expect(options('ChenDetector')).toEqual(
      ['alphaMs', 'windowSize', 'intervalMs', 'firstHeartbeatEstimateMs', 'clock'].sort(),
    );
  });

  it.each(nullRows)('$owner rejects $option = null with FDKIT_INVALID_OPTION', ({ owner, option, make }) => {
    const e = expectOptionError(() => make({ [option]: null }), option, 'FDKIT_INVALID_OPTION');
    expect(e.message).toContain(owner);
    expect(e.message).toContain('null');
  });
});

/**
 * Every option of every constructor and factory is validated, and every method argument that can be
 * unusable is rejected without touching the state. Each table row is one value; the expected ranges are
 * written out here from the documentation, independently of the ranges in src/.
 */
import { describe, expect, it } from 'vitest';
import {
  ChenDetector,
  expectedTiming,
  type FailureDetector,
  FixedTimeoutDetector,
  InvalidArgumentError,
  InvalidOptionError,
  lan,
  PhiAccrualDetector,
  phi,
  Random,
  resolveSwimConfig,
  SWIM_CONFIG_KEYS,
  type SwimConfig,
  VirtualClock,
} from '../src/index.js';

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

/** How a value appears after "got" in a message: strings quoted, everything else as String() writes it. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Runs `fn`, expecting it to throw; returns what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, but nothing was thrown');
}

/** Asserts that `fn` throws an InvalidOptionError with `code` naming `option`, and returns it. */
function expectOptionError(
  fn: () => unknown,
  option: string,
  code: 'FDKIT_INVALID_OPTION' | 'FDKIT_UNKNOWN_OPTION' = 'FDKIT_INVALID_OPTION',
): InvalidOptionError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(InvalidOptionError);
  expect(error).toBeInstanceOf(RangeError);
  const e = error as InvalidOptionError;
  expect(e.name).toBe('InvalidOptionError');
  expect(e.code).toBe(code);
  expect(e.option).toBe(option);
  if (option !== '(options)') expect(e.message).toContain(`option ${option}`);
  return e;
}

/** Asserts that `fn` throws an InvalidArgumentError naming `argument`, and returns it. */
function expectArgumentError(fn: () => unknown, argument: string): InvalidArgumentError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(InvalidArgumentError);
  expect(error).toBeInstanceOf(RangeError);
  const e = error as InvalidArgumentError;
  expect(e.name).toBe('InvalidArgumentError');
  expect(e.code).toBe('FDKIT_INVALID_ARGUMENT');
  expect(e.argument).toBe(argument);
  return e;
}

const NON_FINITE = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] as const;

/** Largest value of every duration option of the detectors: one year in ms. */
const MAX_DURATION = 31_536_000_000;
/** Duration values above the maximum: just above, well above, and far above. */
const ABOVE_MAX_DURATION = [MAX_DURATION + 0.001, MAX_DURATION + 1, 1e12, 1e200, Number.MAX_VALUE] as const;
/** Largest timestamp magnitude a detector accepts: 2^53 − 1 ms. */
const MAX_TS = Number.MAX_SAFE_INTEGER;
/** Timestamps every detector rejects: not finite, or of magnitude 2^53 and beyond. */
const BAD_TIMESTAMPS = [
  ...NON_FINITE,
  2 ** 53,
  -(2 ** 53),
  2 ** 53 + 2,
  -(2 ** 53 + 2),
  1e300,
  -1e300,
] as const;

// ---------------------------------------------------------------------------------------------------------
// Detector options
// ---------------------------------------------------------------------------------------------------------

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
    // numbers and strings are echoed; other types are named
    const echoed = typeof value === 'object' ? typeof value : shown(value);
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

// ---------------------------------------------------------------------------------------------------------
// SWIM configuration
// ---------------------------------------------------------------------------------------------------------

interface SwimField {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

// The documented ranges; probeTimeoutMs must in addition be <= probeIntervalMs.
const SWIM_FIELDS: { readonly [K in keyof SwimConfig]: SwimField } = {
  probeIntervalMs: { min: 1, max: 3_600_000, integer: false },
  probeTimeoutMs: { min: 1, max: 3_600_000, integer: false },
  indirectChecks: { min: 0, max: 64, integer: true },
  suspicionMult: { min: 1, max: 1000, integer: true },
  suspicionMaxTimeoutMult: { min: 1, max: 1000, integer: true },
  retransmitMult: { min: 1, max: 1000, integer: true },
  gossipIntervalMs: { min: 1, max: 3_600_000, integer: false },
  gossipNodes: { min: 1, max: 64, integer: true },
  pushPullIntervalMs: { min: 1, max: 86_400_000, integer: false },
  awarenessMaxMultiplier: { min: 1, max: 1000, integer: true },
  gossipToTheDeadMs: { min: 0, max: 86_400_000, integer: false },
  packetBytesMax: { min: 576, max: 65_507, integer: true },
  reconnectIntervalMs: { min: 1, max: 86_400_000, integer: false },
  reconnectTimeoutMs: { min: 0, max: 31_536_000_000, integer: false },
};

/** Fields to set alongside `key = value` so that the probe timeout stays within the probe interval. */
function companions(key: keyof SwimConfig, value: number): Partial<SwimConfig> {
  if (key === 'probeIntervalMs' && value < lan.probeTimeoutMs) return { probeTimeoutMs: value };
  if (key === 'probeTimeoutMs' && value > lan.probeIntervalMs) return { probeIntervalMs: value };
  return {};
}

const swimKeys = Object.keys(SWIM_FIELDS) as (keyof SwimConfig)[];

const swimInvalidRows = swimKeys.flatMap((key) => {
  const { min, max, integer } = SWIM_FIELDS[key];
  const range = `${integer ? 'an integer' : 'a number'} >= ${min} and <= ${max}`;
  const values: unknown[] = [
    integer ? min - 1 : min - 0.001,
    integer ? max + 1 : max + 0.001,
    -1,
    ...NON_FINITE,
    String(min),
  ];
  if (integer) values.push(min + 0.5, max - 0.5);
  return values.map((value) => ({ key, value, range, label: shown(value) }));
});

const swimValidRows = swimKeys.flatMap((key) => {
  const { min, max, integer } = SWIM_FIELDS[key];
  const values = [min, max];
  if (!integer) values.push(min + 0.5);
  return values.map((value) => ({ key, value }));
});

const entryPoints = [
  { name: 'resolveSwimConfig', run: (partial: Partial<SwimConfig>) => resolveSwimConfig(partial, lan) },
  { name: 'expectedTiming', run: (partial: Partial<SwimConfig>) => expectedTiming(partial, 10) },
];

describe('SwimConfig fields', () => {
  it('are exactly the fields this table covers (add the range of a new field to SWIM_FIELDS)', () => {
    expect([...SWIM_CONFIG_KEYS].sort()).toEqual([...swimKeys].sort());
    expect(Object.keys(lan).sort()).toEqual([...swimKeys].sort());
  });

  describe.each(entryPoints)('through $name', ({ run }) => {
    it.each(swimInvalidRows)('rejects $key = $label', ({ key, value, range }) => {
      const e = expectOptionError(() => run({ [key]: value } as Partial<SwimConfig>), key);
      expect(e.message).toContain('SwimConfig');
      expect(e.message).toContain(range);
      expect(e.message).toContain(`got ${shown(value)}`);
    });

    it.each(swimValidRows)('accepts $key = $value', ({ key, value }) => {
      expect(() => run({ [key]: value, ...companions(key, value) })).not.toThrow();
    });

    it.each(['probeInterval', 'probeIntervalMS', 'timeoutMs', 'clusterSize'])(
      'rejects the unknown field %s',
      (key) => {
        const e = expectOptionError(() => run({ [key]: 1 } as never), key, 'FDKIT_UNKNOWN_OPTION');
        expect(e.message).toContain('probeIntervalMs'); // the known fields are listed
      },
    );

    it.each([
      { partial: { probeTimeoutMs: 1001 } },
      { partial: { probeIntervalMs: 499 } },
      { partial: { probeIntervalMs: 1, probeTimeoutMs: 1.5 } },
      { partial: { probeIntervalMs: 3_599_999, probeTimeoutMs: 3_600_000 } },
    ])('rejects probeTimeoutMs > probeIntervalMs: $partial', ({ partial }) => {
      const e = expectOptionError(() => run(partial), 'probeTimeoutMs');
      expect(e.message).toContain('probeIntervalMs');
    });

    it.each(swimKeys)(
      'rejects %s = null with FDKIT_INVALID_OPTION (null does not mean the default)',
      (key) => {
        const e = expectOptionError(() => run({ [key]: null } as never), key, 'FDKIT_INVALID_OPTION');
        expect(e.message).toContain('SwimConfig');
        expect(e.message).toContain('null');
      },
    );

    it.each([null, 5, 'lan'])('rejects %s as the configuration', (partial) => {
      expectOptionError(() => run(partial as never), '(options)');
    });

    it('accepts probeTimeoutMs === probeIntervalMs', () => {
      expect(() => run({ probeIntervalMs: 500 })).not.toThrow();
      expect(() => run({ probeIntervalMs: 1, probeTimeoutMs: 1 })).not.toThrow();
    });
  });

  it.each(swimValidRows)('resolveSwimConfig takes $key = $value into the result', ({ key, value }) => {
    const config = resolveSwimConfig({ [key]: value, ...companions(key, value) }, lan);
    expect(config[key]).toBe(value);
    expect(Object.isFrozen(config)).toBe(true);
    // the other fields come from the base
    for (const other of swimKeys) {
      if (other !== key && !(other in companions(key, value))) expect(config[other]).toBe(lan[other]);
    }
  });

  it('resolveSwimConfig validates the base as well as the overrides', () => {
    expectOptionError(() => resolveSwimConfig({}, { ...lan, gossipNodes: 0 }), 'gossipNodes');
    expectOptionError(() => resolveSwimConfig({}, { ...lan, gossipNodes: null } as never), 'gossipNodes');
    expectOptionError(() => resolveSwimConfig({}, { ...lan, probeTimeoutMs: 2000 }), 'probeTimeoutMs');
    // a valid override repairs an invalid base value
    expect(resolveSwimConfig({ gossipNodes: 2 }, { ...lan, gossipNodes: 0 }).gossipNodes).toBe(2);
  });

  it('expectedTiming uses the fields it is given', () => {
    // n = 10: suspicionMin = suspicionMult × max(1, log10 10) × probe interval
    expect(expectedTiming({ suspicionMult: 1000 }, 10).suspicionMinMs).toBe(1000 * 1000);
    expect(expectedTiming({ probeIntervalMs: 1, probeTimeoutMs: 1 }, 10).suspicionMinMs).toBe(4);
    expect(expectedTiming({ suspicionMaxTimeoutMult: 1 }, 10).suspicionMaxMs).toBe(4000);
    expect(expectedTiming({ retransmitMult: 1000 }, 10).retransmitLimit).toBe(2000);
  });
});

describe('expectedTiming clusterSize', () => {
  const range = 'an integer >= 2 and <= 10000000';

  it.each(
    [1, 0, -1, -2, 10_000_001, 2.5, 1.999, Number.MAX_SAFE_INTEGER, ...NON_FINITE, '10', null].map(
      (value) => ({ value, label: shown(value) }),
    ),
  )('rejects $label', ({ value }) => {
    const e = expectOptionError(() => expectedTiming({}, value as number), 'clusterSize');
    expect(e.message).toContain('expectedTiming');
    expect(e.message).toContain(range);
    expect(e.message).toContain(`got ${shown(value)}`);
  });

  it.each([2, 3, 10, 32, 33, 10_000_000])('accepts %d and returns finite positive timings', (n) => {
    const timing = expectedTiming({}, n);
    for (const value of Object.values(timing)) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
  });

  it('reports an invalid field before an invalid cluster size', () => {
    expectOptionError(() => expectedTiming({ gossipNodes: 0 }, 0), 'gossipNodes');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Method arguments
// ---------------------------------------------------------------------------------------------------------

interface DetectorSubject {
  readonly name: string;
  readonly make: () => FailureDetector;
  /** Everything observable about the state, read at fixed times. */
  readonly snapshot: (d: FailureDetector) => unknown;
}

const PROBE_TIMES = [0, 900, 1000, 1500, 2000, 3000, 4500, 6000, 10_000, 60_000];

function observe(d: FailureDetector, extra: readonly unknown[]): unknown {
  return {
    isMonitoring: d.isMonitoring,
    suspicion: PROBE_TIMES.map((t) => d.suspicion(t)),
    available: PROBE_TIMES.map((t) => d.isAvailable(t)),
    extra,
  };
}

const DETECTORS: readonly DetectorSubject[] = [
  {
    name: "PhiAccrualDetector 'normal'",
    make: () => new PhiAccrualDetector({ acceptableHeartbeatPauseMs: 0, maxSampleSize: 4 }),
    snapshot: (d) => {
      const p = d as PhiAccrualDetector;
      return observe(d, [p.sampleCount, p.intervalMeanMs, p.intervalStdDeviationMs]);
    },
  },
  {
    name: "PhiAccrualDetector 'exponential'",
    make: () =>
      new PhiAccrualDetector({
        distribution: 'exponential',
        acceptableHeartbeatPauseMs: 0,
        maxSampleSize: 4,
      }),
    snapshot: (d) => {
      const p = d as PhiAccrualDetector;
      return observe(d, [p.sampleCount, p.intervalMeanMs, p.intervalStdDeviationMs]);
    },
  },
  {
    name: 'FixedTimeoutDetector',
    make: () => new FixedTimeoutDetector({ timeoutMs: 1200 }),
    snapshot: (d) => observe(d, []),
  },
  {
    name: 'ChenDetector',
    make: () => new ChenDetector({ alphaMs: 300, windowSize: 4 }),
    snapshot: (d) => observe(d, [(d as ChenDetector).expectedArrivalAtMs]),
  },
];

/** Heartbeats with uneven gaps, so that a sample recorded by mistake would change the statistics. */
const HISTORY = [0, 700, 1000, 1800];

const queryMethods = [
  { method: 'suspicion', call: (d: FailureDetector, t: number) => d.suspicion(t) },
  { method: 'isAvailable', call: (d: FailureDetector, t: number) => d.isAvailable(t) },
  { method: 'phi', call: (d: FailureDetector, t: number) => (d as PhiAccrualDetector).phi(t) },
];

describe.each(DETECTORS)('$name method arguments', ({ name, make, snapshot }) => {
  const methods = [
    { method: 'heartbeat', call: (d: FailureDetector, t: number) => d.heartbeat(t) },
    ...queryMethods.filter((m) => m.method !== 'phi' || name.startsWith('Phi')),
  ];
  const rows = methods.flatMap((m) => BAD_TIMESTAMPS.map((t) => ({ ...m, t, label: String(t) })));
  // after several heartbeats, and right after the first one (where the detector has only bootstrapped)
  const histories = [
    { when: 'after several heartbeats', history: HISTORY },
    { when: 'after the first heartbeat', history: [1800] },
  ];

  it.each(histories.flatMap((h) => rows.map((r) => ({ ...r, ...h }))))(
    '$method($label) throws and leaves the detector unchanged $when',
    ({ call, t, history }) => {
      const d = make();
      for (const h of history) d.heartbeat(h);
      const before = snapshot(d);
      const e = expectArgumentError(() => call(d, t), 'atMs');
      expect(e.message).toContain(name.split(' ')[0]!);
      expect(e.message).toContain(`atMs must be a finite monotonic timestamp within ±${MAX_TS} ms, got ${t}`);
      expect(snapshot(d)).toEqual(before);
      // and it goes on exactly as a detector that never saw the bad call
      const reference = make();
      for (const h of [...history, 2500]) reference.heartbeat(h);
      d.heartbeat(2500);
      expect(snapshot(d)).toEqual(snapshot(reference));
    },
  );

  it.each(rows)(
    '$method($label) throws before the first heartbeat too, and leaves it unchanged',
    ({ call, t }) => {
      const d = make();
      const e = expectArgumentError(() => call(d, t), 'atMs');
      expect(e.message).toContain(`got ${t}`);
      expect(d.isMonitoring).toBe(false);
      expect(snapshot(d)).toEqual(snapshot(make()));
      // the next valid heartbeat is the first one
      const reference = make();
      d.heartbeat(1000);
      reference.heartbeat(1000);
      expect(snapshot(d)).toEqual(snapshot(reference));
    },
  );

  it.each(
    histories.flatMap((h) => [
      { ...h, label: '1 ms earlier', at: 1799 },
      { ...h, label: 'a fraction earlier', at: 1799.999 },
      { ...h, label: 'much earlier', at: 1800 - 1e9 },
      { ...h, label: 'at −(2^53 − 1), earlier', at: -MAX_TS },
    ]),
  )('rejects a heartbeat $label than the previous one $when and keeps its state', ({ history, at }) => {
    const d = make();
    for (const h of history) d.heartbeat(h);
    const before = snapshot(d);
    const e = expectArgumentError(() => d.heartbeat(at), 'atMs');
    expect(e.message).toContain(`heartbeat atMs ${at} is earlier than the previous one at 1800 ms`);
    expect(snapshot(d)).toEqual(before);
    const reference = make();
    for (const h of [...history, 2500]) reference.heartbeat(h);
    d.heartbeat(2500);
    expect(snapshot(d)).toEqual(snapshot(reference));
  });

  it('answers exactly 0 and is available before the first heartbeat and after reset()', () => {
    const d = make();
    const check = () => {
      for (const t of [-MAX_TS, -1, 0, 1800, 60_000, MAX_TS]) {
        expect(Object.is(d.suspicion(t), 0)).toBe(true);
        expect(d.isAvailable(t)).toBe(true);
      }
    };
    check();
    for (const h of HISTORY) d.heartbeat(h);
    d.reset();
    check();
  });

  it('accepts heartbeats and queries at ±(2^53 − 1), and rejects 2^53 right after (2^53 − 1)', () => {
    const d = make();
    d.heartbeat(-MAX_TS);
    d.heartbeat(MAX_TS);
    expect(d.isMonitoring).toBe(true);
    for (const call of methods.slice(1)) {
      expect(() => call.call(d, -MAX_TS)).not.toThrow();
      expect(() => call.call(d, MAX_TS)).not.toThrow();
    }
    expect(d.suspicion(-MAX_TS)).toBe(0);
    const before = snapshot(d);
    for (const { call } of methods) expectArgumentError(() => call(d, 2 ** 53), 'atMs');
    expect(snapshot(d)).toEqual(before);
    expect(() => d.heartbeat(MAX_TS)).not.toThrow(); // the same time again is not going back
  });

  it('accepts a heartbeat at the same time as the previous one', () => {
    const d = make();
    for (const h of HISTORY) d.heartbeat(h);
    expect(() => d.heartbeat(1800)).not.toThrow();
    expect(d.isMonitoring).toBe(true);
    expect(d.isAvailable(1800)).toBe(true);
  });

  it('accepts queries before the last heartbeat (they are not heartbeats)', () => {
    const d = make();
    for (const h of HISTORY) d.heartbeat(h);
    expect(d.suspicion(-1e9)).toBe(0);
    expect(d.isAvailable(-1e9)).toBe(true);
  });
});

type PhiArgs = [timeDiffMs: number, meanMs: number, stdDeviationMs: number];

describe('phi() arguments', () => {
  it.each([
    { args: [Number.NaN, 1000, 100], argument: 'timeDiffMs' },
    { args: [0, Number.NaN, 100], argument: 'meanMs' },
    { args: [0, Number.POSITIVE_INFINITY, 100], argument: 'meanMs' },
    { args: [0, Number.NEGATIVE_INFINITY, 100], argument: 'meanMs' },
    { args: [0, 1000, 0], argument: 'stdDeviationMs' },
    { args: [0, 1000, -0], argument: 'stdDeviationMs' },
    { args: [0, 1000, -1], argument: 'stdDeviationMs' },
    { args: [0, 1000, -Number.MIN_VALUE], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.NaN], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.POSITIVE_INFINITY], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.NEGATIVE_INFINITY], argument: 'stdDeviationMs' },
    // the first offending argument is reported
    { args: [Number.NaN, Number.NaN, 0], argument: 'timeDiffMs' },
    { args: [0, Number.NaN, 0], argument: 'meanMs' },
  ] satisfies { args: PhiArgs; argument: string }[])(
    'phi($args) throws naming $argument',
    ({ args, argument }) => {
      const e = expectArgumentError(() => phi(...(args as PhiArgs)), argument);
      expect(e.message).toContain(`phi: ${argument} must be`);
    },
  );

  it.each([
    { args: [Number.POSITIVE_INFINITY, 1000, 100], expected: Number.POSITIVE_INFINITY },
    { args: [Number.NEGATIVE_INFINITY, 1000, 100], expected: 0 },
    { args: [1000, 1000, Number.MIN_VALUE], expected: Math.log10(2) },
    { args: [-Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE], expected: 0 },
  ] satisfies { args: PhiArgs; expected: number }[])(
    'accepts the extremes phi($args)',
    ({ args, expected }) => {
      expect(phi(...(args as PhiArgs))).toBe(expected);
    },
  );
});

describe('Random seed', () => {
  it.each(
    [1.5, -0.5, Number.NaN, ...NON_FINITE.slice(1), 2 ** 53, -(2 ** 53), 1e300, '1', null].map((seed) => ({
      seed,
      label: shown(seed),
    })),
  )('rejects the seed $label', ({ seed }) => {
    const e = expectArgumentError(() => new Random(seed as number), 'seed');
    expect(e.message).toContain('safe integer');
  });

  it.each([0, 1, -1, 2 ** 32, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])(
    'accepts the seed %d',
    (seed) => {
      const a = new Random(seed);
      const b = new Random(seed);
      expect(a.seed).toBe(seed);
      expect([a.nextUint32(), a.nextUint32()]).toEqual([b.nextUint32(), b.nextUint32()]);
    },
  );

  it.each([0, -1, 0.5, 2 ** 32 + 1, Number.NaN, Number.POSITIVE_INFINITY])('int() rejects n = %s', (n) => {
    expectArgumentError(() => new Random(1).int(n), 'n');
  });
});

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

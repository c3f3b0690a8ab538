/**
 * Every unusable timestamp given to a detector's methods is rejected without touching its state.
 */
import { describe, expect, it } from 'vitest';
import {
  ChenDetector,
  type FailureDetector,
  FixedTimeoutDetector,
  PhiAccrualDetector,
} from '../../src/index.js';
import { expectArgumentError, NON_FINITE } from '../support/validation.js';

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
    expect(e.message).toBe(
      `${name.split(' ')[0]}: heartbeat atMs ${at} is earlier than the previous one at 1800 ms; ` +
        'timestamps must come from a monotonic clock',
    );
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

/**
 * The detectors' two clock modes: times given to every call, or read from the detector's `clock`. A
 * timestamp that is not a number is refused, and so is a query that reads the clock after heartbeats
 * given the time of another clock, which would otherwise leave the peer available for ever.
 */
import { describe, expect, it } from 'vitest';
import {
  ChenDetector,
  type Clock,
  ClockMismatchError,
  DetectorRegistry,
  type FailureDetector,
  FixedTimeoutDetector,
  PhiAccrualDetector,
  VirtualClock,
} from '../../src/index.js';
import { expectArgumentError, thrown } from '../support/validation.js';

/** A `Date.now()` of December 2024: what a heartbeat stamped with the wall clock carries. */
const WALL_MS = 1_733_100_000_000;
/** What `performance.now()` reads some 100 s after the process started. */
const UPTIME_MS = 100_000;
/** The tolerance the detectors document: a given heartbeat time may be up to an hour ahead of the clock. */
const HOUR_MS = 3_600_000;

const DETECTORS = [
  {
    name: 'PhiAccrualDetector',
    make: (clock?: Clock) => new PhiAccrualDetector(clock === undefined ? {} : { clock }),
  },
  { name: 'ChenDetector', make: (clock?: Clock) => new ChenDetector(clock === undefined ? {} : { clock }) },
  {
    name: 'FixedTimeoutDetector',
    make: (clock?: Clock) => new FixedTimeoutDetector(clock === undefined ? {} : { clock }),
  },
] as const;

type Call = (d: FailureDetector, t: unknown) => unknown;
// The casts stand for a JavaScript caller, or a value read from JSON, that TypeScript does not check.
const heartbeat: Call = (d, t) => d.heartbeat(t as number);
const QUERIES: readonly { method: string; call: Call; phiOnly?: true }[] = [
  { method: 'isAvailable', call: (d, t) => d.isAvailable(t as number) },
  { method: 'suspicion', call: (d, t) => d.suspicion(t as number) },
  { method: 'phi', call: (d, t) => (d as PhiAccrualDetector).phi(t as number), phiOnly: true },
];
const QUERY_METHODS = ['isAvailable', 'suspicion', 'phi'] as const;

function methodsOf(name: string) {
  return [
    { method: 'heartbeat', call: heartbeat },
    ...QUERIES.filter((q) => q.phiOnly !== true || name === 'PhiAccrualDetector'),
  ];
}

/** Values that are not numbers, with how the message must show them (written out, not computed). */
const NOT_NUMBERS = [
  { value: '2500', shown: '"2500" (a string)' },
  { value: '', shown: '"" (a string)' },
  { value: null, shown: 'null' },
  { value: 2500n, shown: '2500n (a bigint)' },
  { value: true, shown: 'true (a boolean)' },
  { value: new Date(2500), shown: 'an object' },
  { value: [2500], shown: 'an array' },
] as const;

/** The same verdicts for all three detectors with their defaults, after heartbeats a second apart. */
function expectVerdicts(d: FailureDetector, at: (offsetMs: number) => boolean): void {
  expect(at(2500)).toBe(true); // half an interval of silence
  expect(at(10_000)).toBe(false); // 8 s of silence: past phi 8 (4.5 s), Chen's 3.5 s and the 5 s timeout
  expect(d.isMonitoring).toBe(true);
}

describe.each(DETECTORS)('$name: a timestamp must be a number', ({ name, make }) => {
  const rows = methodsOf(name).flatMap((m) => NOT_NUMBERS.map((v) => ({ ...m, ...v })));

  // Bug: a range test alone lets a string through, since Math.abs('2500') is 2500 and '2500' >= 1000;
  // the heartbeat then stores a string and later intervals come out of string comparisons.
  it.each(rows)(
    '$method($shown) throws FDKIT_INVALID_ARGUMENT naming the method',
    ({ method, call, value, shown }) => {
      const d = make();
      d.heartbeat(1000);
      const e = expectArgumentError(() => call(d, value), 'atMs');
      expect(e.message).toBe(
        `${name}.${method}: atMs must be a number, a monotonic timestamp in ms (or omitted, to read the ` +
          `detector's clock), got ${shown}`,
      );
    },
  );

  // Bug: a string accepted as the first heartbeat (where only NaN was expected to take the slow path).
  it.each(rows)('$method($shown) throws before the first heartbeat too', ({ method, call, value }) => {
    const d = make();
    const e = expectArgumentError(() => call(d, value), 'atMs');
    expect(e.message).toContain(`${name}.${method}: atMs must be a number`);
    expect(d.isMonitoring).toBe(false);
  });

  // Bug: the heartbeat recorded (or half-recorded) before the type check threw.
  it('a refused heartbeat changes nothing', () => {
    const d = make();
    for (const t of [0, 1000, 2000]) d.heartbeat(t);
    expectArgumentError(() => heartbeat(d, '3000'), 'atMs');
    expectVerdicts(d, (offset) => d.isAvailable(offset));
  });

  // Bug: isAvailable delegating to phi or suspicion and reporting that method in the message.
  it('names the method called, not the one it delegates to', () => {
    const d = make();
    for (const method of QUERY_METHODS.filter((m) => m !== 'phi' || name === 'PhiAccrualDetector')) {
      const call = QUERIES.find((q) => q.method === method)!.call;
      expect(expectArgumentError(() => call(d, Number.NaN), 'atMs').message).toContain(`${name}.${method}:`);
    }
  });
});

describe.each(DETECTORS)('$name: heartbeats and queries on one clock', ({ name, make }) => {
  const queries = QUERIES.filter((q) => q.phiOnly !== true || name === 'PhiAccrualDetector');

  // Bug (the issue's): no check at all, so the silence is negative and the peer available for ever.
  it.each(queries)(
    '$method() after heartbeat(Date.now()) with the default clock throws FDKIT_CLOCK_MISMATCH',
    ({ call }) => {
      const d = make();
      d.heartbeat(Date.now());
      const e = thrown(() => call(d, undefined));
      expect(e).toBeInstanceOf(ClockMismatchError);
      expect((e as ClockMismatchError).code).toBe('FDKIT_CLOCK_MISMATCH');
      expect((e as ClockMismatchError).name).toBe('ClockMismatchError');
    },
  );

  // Bug: a message that says something is wrong without what, the numbers, or the fix.
  it.each(queries)('$method() says what happened and how to fix it', ({ method, call }) => {
    const clock = new VirtualClock({ startMs: UPTIME_MS });
    const d = make(clock);
    d.heartbeat(WALL_MS);
    const e = thrown(() => call(d, undefined)) as ClockMismatchError;
    expect(e).toBeInstanceOf(ClockMismatchError);
    expect(e.heartbeatAtMs).toBe(WALL_MS);
    expect(e.clockNowMs).toBe(UPTIME_MS);
    expect(e.message).toBe(
      `${name}.${method}: the last heartbeat was given atMs 1733100000000, 1733099900000 ms ahead of the ` +
        "detector's clock, which reads 100000: the heartbeats' timestamps come from another clock " +
        '(wall-clock Date.now readings against the default performance.now, say), and the peer would stay available for ' +
        'ever. Give the detector that clock as its clock option and omit atMs everywhere, or pass the ' +
        `same clock's time as atMs to ${method} and every other query`,
    );
  });

  // Bug: the check applied to every query, or one that compares atMs with the clock too.
  it('the same detector queried with explicit times works', () => {
    const d = make();
    for (const t of [0, 1000, 2000]) d.heartbeat(WALL_MS + t);
    expect(() => d.isAvailable()).toThrow(ClockMismatchError);
    expectVerdicts(d, (offset) => d.isAvailable(WALL_MS + offset));
  });

  // Bug: a check against the system clock instead of the detector's own, or one on the magnitude alone.
  it('a clock option that matches the given times works, queried with or without them', () => {
    const clock = new VirtualClock({ startMs: WALL_MS });
    const d = make(clock);
    for (let i = 0; i < 3; i++) {
      if (i > 0) clock.advance(1000);
      d.heartbeat(clock.now());
    }
    clock.advance(500);
    expect(d.isAvailable()).toBe(true);
    clock.advance(7500);
    expect(d.isAvailable()).toBe(false);
    expect(d.isAvailable(WALL_MS + 2500)).toBe(true);
  });

  // Bug: refusing a clock that reads the wall time when no heartbeat carried a timestamp.
  it('a wall clock option with no timestamps anywhere works', () => {
    let wall = WALL_MS;
    const clock: Clock = { now: () => wall, wallNow: () => wall, setTimer: () => ({ cancel() {} }) };
    const d = make(clock);
    for (const t of [0, 1000, 2000]) {
      wall = WALL_MS + t;
      d.heartbeat();
    }
    wall = WALL_MS + 2500;
    expect(d.isAvailable()).toBe(true);
    wall = WALL_MS + 10_000;
    expect(d.isAvailable()).toBe(false);
  });

  // Bug: `>=` for `>`, or a tolerance other than the documented hour (a minute, a day).
  it.each([
    { label: 'a minute ahead', aheadMs: 60_000, refused: false },
    { label: 'exactly an hour ahead', aheadMs: HOUR_MS, refused: false },
    { label: 'a microsecond past the hour', aheadMs: HOUR_MS + 0.001, refused: true },
    { label: 'a millisecond past the hour', aheadMs: HOUR_MS + 1, refused: true },
    { label: 'a day ahead', aheadMs: 86_400_000, refused: true },
  ])('a heartbeat $label of the clock is refused: $refused', ({ aheadMs, refused }) => {
    const clock = new VirtualClock({ startMs: UPTIME_MS });
    const d = make(clock);
    d.heartbeat(UPTIME_MS + aheadMs);
    if (refused) {
      expect(() => d.isAvailable()).toThrow(ClockMismatchError);
    } else {
      // the heartbeat is in the clock's future: no silence yet
      expect(d.isAvailable()).toBe(true);
      expect(d.suspicion()).toBe(0);
    }
  });

  // Bug: a symmetric check, which would throw for a peer silent more than an hour on one clock.
  it('a heartbeat long before the clock reads is a long silence, not a mismatch', () => {
    const clock = new VirtualClock({ startMs: UPTIME_MS });
    const d = make(clock);
    d.heartbeat(UPTIME_MS);
    clock.advance(10 * HOUR_MS);
    expect(d.isAvailable()).toBe(false);
  });

  // Bug: the mode stuck at the first heartbeat's, or the check written so that NaN (no heartbeat) fails.
  it('follows the last heartbeat: refused after a given time, fine again once reset', () => {
    const clock = new VirtualClock({ startMs: UPTIME_MS });
    const d = make(clock);
    d.heartbeat();
    expect(d.isAvailable()).toBe(true);
    d.heartbeat(WALL_MS);
    expect(() => d.isAvailable()).toThrow(ClockMismatchError);
    d.reset();
    expect(d.isAvailable()).toBe(true);
    d.heartbeat();
    expect(d.isAvailable()).toBe(true);
  });

  // Bug: the mode not tracked per heartbeat (every time compared, or "given" stuck once set): a wall clock
  // stepped back by two hours would be called a mismatch of two clocks.
  it('never compares the clock with a time it read itself, even when it went back', () => {
    let wall = WALL_MS;
    const clock: Clock = { now: () => wall, wallNow: () => wall, setTimer: () => ({ cancel() {} }) };
    const d = make(clock);
    d.heartbeat(WALL_MS - 1000);
    d.heartbeat();
    wall = WALL_MS - 2 * HOUR_MS;
    expect(d.isAvailable()).toBe(true);
    expect(d.suspicion()).toBe(0);
  });

  // Bug: a refused query that records something (the clock's time as a heartbeat, say).
  it('a refused query changes nothing', () => {
    const clock = new VirtualClock({ startMs: UPTIME_MS });
    const d = make(clock);
    for (const t of [0, 1000, 2000]) d.heartbeat(WALL_MS + t);
    expect(() => d.suspicion()).toThrow(ClockMismatchError);
    expectVerdicts(d, (offset) => d.isAvailable(WALL_MS + offset));
  });
});

describe('DetectorRegistry and the clock modes', () => {
  // Bug: the registry swallowing the mismatch, or reading a clock of its own.
  it('passes the mismatch through, and works with explicit times', () => {
    const registry = new DetectorRegistry<string>(() => new PhiAccrualDetector());
    registry.heartbeat('n1', WALL_MS);
    expect(() => registry.isAvailable('n1')).toThrow(ClockMismatchError);
    expect(() => registry.phi('n1')).toThrow(ClockMismatchError);
    expect(registry.isAvailable('n1', WALL_MS + 500)).toBe(true);
    expect(registry.isAvailable('n1', WALL_MS + 10_000)).toBe(false);
    // a peer never heard from has no detector, hence no clock to compare
    expect(registry.isAvailable('n2')).toBe(true);
  });

  // Bug: the registry's own argument path skipping the detector's type check.
  it('refuses a string timestamp with the detector method in the message', () => {
    const registry = new DetectorRegistry<string>(() => new FixedTimeoutDetector());
    const e = expectArgumentError(() => registry.heartbeat('n1', '1000' as unknown as number), 'atMs');
    expect(e.message).toContain('FixedTimeoutDetector.heartbeat: atMs must be a number');
  });
});

/** Readings a broken clock option might return, with how the message must show them (written out). */
const BAD_READINGS = [
  { reading: '5000', says: 'atMs must be a number', shown: 'got "5000" (a string)' },
  { reading: Number.NaN, says: 'atMs must be a finite monotonic timestamp', shown: 'got NaN' },
  {
    reading: Number.POSITIVE_INFINITY,
    says: 'atMs must be a finite monotonic timestamp',
    shown: 'got Infinity',
  },
  // 2^53 = 9007199254740992, one past the largest timestamp accepted
  { reading: 2 ** 53, says: 'atMs must be a finite monotonic timestamp', shown: 'got 9007199254740992' },
] as const;

describe.each(DETECTORS)('$name: a query that reads a broken clock', ({ name, make }) => {
  const queries = QUERIES.filter((q) => q.phiOnly !== true || name === 'PhiAccrualDetector');
  const rows = queries.flatMap((q) => BAD_READINGS.map((r) => ({ ...q, ...r })));

  // Bug: the clock's reading taken on trust when atMs is omitted, so a string or NaN reading becomes the
  // query's time (silence NaN, or computed from a string) instead of a refusal naming the method.
  it.each(rows)('$method() with the clock reading $shown throws FDKIT_INVALID_ARGUMENT', (row) => {
    let reading: unknown = 0;
    const clock: Clock = {
      now: () => reading as number,
      wallNow: () => 0,
      setTimer: () => ({ cancel() {} }),
    };
    const d = make(clock);
    for (const t of [0, 1000, 2000]) d.heartbeat(t);
    reading = row.reading;
    const e = expectArgumentError(() => row.call(d, undefined), 'atMs');
    expect(e.message).toContain(`${name}.${row.method}: ${row.says}`);
    expect(e.message).toContain(row.shown);
    // the refusal changed nothing: a sound reading again gets the verdicts of a clean detector
    expectVerdicts(d, (offset) => {
      reading = offset;
      return d.isAvailable();
    });
  });
});

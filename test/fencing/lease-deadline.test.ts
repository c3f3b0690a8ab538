import { describe, expect, it } from 'vitest';
import { InvalidOptionError, LeaseError } from '../../src/errors.js';
import { resolveAcquireOptions } from '../../src/fencing/lease.js';
import { LeaseDeadline } from '../../src/fencing/lease-deadline.js';
import {
  defaultSafetyMarginMs,
  grantedTimings,
  KUBERNETES_LEASE_TIMINGS,
  minimumSafetyMarginMs,
} from '../../src/fencing/lease-timings.js';
import type { Clock, Timer } from '../../src/runtime/clock.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

/** A clock whose time jumps without running timers: the view of a process that was just continued. */
function pausedClock(): Clock & { jump(ms: number): void } {
  let nowMs = 0;
  return {
    now: () => nowMs,
    wallNow: () => nowMs,
    setTimer: (): Timer => ({ cancel: () => undefined }),
    jump: (ms) => {
      nowMs += ms;
    },
  };
}

const reasonOf = (signal: AbortSignal) => signal.reason as LeaseError;

describe('LeaseDeadline', () => {
  it('aborts at grant send time + TTL - margin when nothing is confirmed', () => {
    const clock = new VirtualClock({ startMs: 1000 });
    const deadline = new LeaseDeadline(clock, 'billing', 900, 3000, 50);
    expect(deadline.expiresAtMs).toBe(3850);
    clock.advanceTo(3849);
    expect(deadline.signal.aborted).toBe(false);
    clock.advanceTo(3850);
    expect(deadline.signal.aborted).toBe(true);
    expect(reasonOf(deadline.signal)).toBeInstanceOf(LeaseError);
    expect(reasonOf(deadline.signal)).toMatchObject({ code: 'FDKIT_LEASE_EXPIRED', lease: 'billing' });
  });

  it('moves the deadline by each confirmed keep-alive from when it was sent, not when it was answered', () => {
    const clock = new VirtualClock();
    const deadline = new LeaseDeadline(clock, 'l', 0, 3000, 30);
    clock.advanceTo(1000);
    const sentAt = clock.now();
    clock.advanceTo(2900); // answered 1.9 s later: the service renewed no earlier than the send
    deadline.confirm(sentAt, 3000);
    expect(deadline.expiresAtMs).toBe(3970);
    deadline.confirm(500, 3000); // an older keep-alive answered late never pulls the deadline back
    expect(deadline.expiresAtMs).toBe(3970);
    clock.advanceTo(3969);
    expect(deadline.signal.aborted).toBe(false);
    clock.advanceTo(3970);
    expect(reasonOf(deadline.signal).code).toBe('FDKIT_LEASE_EXPIRED');
  });

  it('keeps a lease alive for as long as keep-alives are confirmed every third of the TTL', () => {
    const clock = new VirtualClock();
    const deadline = new LeaseDeadline(clock, 'l', 0, 3000, 32);
    for (let sent = 1000; sent <= 60_000; sent += 1000) {
      clock.advanceTo(sent + 5);
      deadline.confirm(sent, 3000);
    }
    expect(deadline.ended()).toBe(false);
    clock.advanceTo(60_000 + 3000 - 32);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('reports an expiry on the first read after a pause, before any timer has had a chance to run', () => {
    const clock = pausedClock();
    const deadline = new LeaseDeadline(clock, 'l', 0, 1000, 12);
    expect(deadline.ended()).toBe(false);
    clock.jump(40_000); // a 40 s garbage collection pause
    expect(deadline.signal.aborted).toBe(false); // no timer ran
    expect(deadline.ended()).toBe(true);
    expect(reasonOf(deadline.signal)).toBeInstanceOf(LeaseError);
    expect(reasonOf(deadline.signal).code).toBe('FDKIT_LEASE_EXPIRED');
    expect(reasonOf(deadline.signal).message).toMatch(/deadline passed 39012 ms ago/);
  });

  it('keeps the first reason, and ignores confirmations after the end', () => {
    const clock = new VirtualClock();
    const deadline = new LeaseDeadline(clock, 'l', 0, 1000, 10);
    deadline.end(new LeaseError('FDKIT_LEASE_REVOKED', 'l', 'revoked'));
    deadline.end(new LeaseError('FDKIT_LEASE_RELEASED', 'l', 'released'));
    deadline.confirm(500, 1000);
    expect(deadline.expiresAtMs).toBe(990);
    expect(reasonOf(deadline.signal).code).toBe('FDKIT_LEASE_REVOKED');
    expect(deadline.ended()).toBe(true);
    expect(reasonOf(deadline.signal).message).toBe('revoked');
    expect(clock.nextDueMs()).toBeUndefined(); // its timer is gone
  });
});

describe('acquire options', () => {
  it('default margin: 1 % of the TTL plus 2 ms, at most half the TTL; never below 0.1 % (both clocks at 500 ppm)', () => {
    expect(defaultSafetyMarginMs(10_000)).toBe(102);
    expect(defaultSafetyMarginMs(2000)).toBe(22);
    expect(defaultSafetyMarginMs(1000)).toBe(12);
    expect(defaultSafetyMarginMs(4)).toBe(2);
    expect(minimumSafetyMarginMs(10_000)).toBe(10);
    for (const ttl of [4, 1000, 15_000, 86_400_000]) {
      expect(defaultSafetyMarginMs(ttl)).toBeGreaterThanOrEqual(minimumSafetyMarginMs(ttl));
    }
  });

  it('checks the TTL and the margin, and names the option', () => {
    expect(resolveAcquireOptions('acquire', { ttlMs: 5000 })).toEqual({
      ttlMs: 5000,
      safetyMarginMs: undefined,
      renewDeadlineMs: undefined,
      retryPeriodMs: undefined,
      signal: undefined,
    });
    expect(resolveAcquireOptions('acquire', { ttlMs: 5000, safetyMarginMs: 2500 }).safetyMarginMs).toBe(2500);
    const bad = [
      [{ ttlMs: 0 }, 'ttlMs'],
      [{ ttlMs: 1.5 }, 'ttlMs'],
      [{ ttlMs: 86_400_001 }, 'ttlMs'],
      [{} as { ttlMs: number }, 'ttlMs'],
      [{ ttlMs: 5000, safetyMarginMs: 2501 }, 'safetyMarginMs'],
      [{ ttlMs: 5000, safetyMarginMs: -1 }, 'safetyMarginMs'],
      [{ ttlMs: 5000, safetyMarginMs: 4.9 }, 'safetyMarginMs'], // below 0.1 % of the TTL
      [{ ttlMs: 5000, ttl: 5 } as { ttlMs: number }, 'ttl'],
    ] as const;
    for (const [options, option] of bad) {
      expect(() => resolveAcquireOptions('acquire', options)).toThrow(
        expect.objectContaining({ option, constructor: InvalidOptionError }),
      );
    }
  });

  it('Kubernetes timings: retryPeriodMs < renewDeadlineMs < ttlMs - safetyMarginMs, messages with the values', () => {
    expect(KUBERNETES_LEASE_TIMINGS).toEqual({ ttlMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 });
    const signal = new AbortController().signal;
    expect(resolveAcquireOptions('acquire', { ...KUBERNETES_LEASE_TIMINGS, signal })).toEqual({
      ...KUBERNETES_LEASE_TIMINGS,
      safetyMarginMs: undefined,
      signal,
    });
    const bad = [
      [{ ttlMs: 15_000, renewDeadlineMs: 0 }, 'renewDeadlineMs', /must be a number > 0, got 0/],
      [
        { ttlMs: 15_000, renewDeadlineMs: 14_848 },
        'renewDeadlineMs',
        /less than ttlMs - safetyMarginMs \(14848\), got 14848/,
      ],
      [
        { ttlMs: 15_000, renewDeadlineMs: 5000, safetyMarginMs: 10_000 },
        'safetyMarginMs',
        /must be a number >= 15 and <= 7500, got 10000/,
      ],
      [
        { ttlMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 10_000 },
        'retryPeriodMs',
        /less than renewDeadlineMs \(10000\), got 10000/,
      ],
      [
        { ttlMs: 15_000, retryPeriodMs: 10_000 },
        'retryPeriodMs',
        /less than renewDeadlineMs \(10000\), got 10000/,
      ], // the default, 2/3
      [{ ttlMs: 15_000, retryPeriodMs: Number.NaN }, 'retryPeriodMs', /got NaN/],
    ] as const;
    for (const [options, option, message] of bad) {
      const error = (() => {
        try {
          resolveAcquireOptions('acquire', options);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option, code: 'FDKIT_INVALID_OPTION' });
      expect((error as Error).message).toMatch(/^acquire: option /);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('granted timings: given ones kept, defaults from the granted TTL, valid for any longer grant', () => {
    const k8s = grantedTimings(resolveAcquireOptions('acquire', KUBERNETES_LEASE_TIMINGS), 15_000);
    expect(k8s).toEqual({ ttlMs: 15_000, safetyMarginMs: 152, renewDeadlineMs: 10_000, retryPeriodMs: 2000 });
    // Today's behaviour: a keep-alive every third of the granted TTL; jeopardy at two thirds of it.
    expect(grantedTimings(resolveAcquireOptions('acquire', { ttlMs: 1500 }), 2000)).toEqual({
      ttlMs: 2000,
      safetyMarginMs: 22,
      renewDeadlineMs: 4000 / 3,
      retryPeriodMs: 2000 / 3,
    });
    // etcd's 1 s floor under a 200 ms request: the renew deadline given stays, the retry period follows it.
    expect(
      grantedTimings(resolveAcquireOptions('acquire', { ttlMs: 200, renewDeadlineMs: 100 }), 1000),
    ).toEqual({
      ttlMs: 1000,
      safetyMarginMs: 12,
      renewDeadlineMs: 100,
      retryPeriodMs: 50,
    });
    // A large margin caps the default renew deadline at the lost deadline.
    expect(
      grantedTimings(resolveAcquireOptions('acquire', { ttlMs: 5000, safetyMarginMs: 2500 }), 5000),
    ).toMatchObject({
      renewDeadlineMs: 2500,
      retryPeriodMs: 1250,
    });
    // A margin below 0.1 % of a longer grant is raised to it.
    expect(
      grantedTimings(resolveAcquireOptions('acquire', { ttlMs: 1000, safetyMarginMs: 1 }), 9000)
        .safetyMarginMs,
    ).toBe(9);
    for (const [options, granted] of [
      [{ ttlMs: 1000, retryPeriodMs: 600 }, 1000],
      [{ ttlMs: 1999, renewDeadlineMs: 1970 }, 2000],
      [{ ttlMs: 1, safetyMarginMs: 0.5 }, 1000],
      [{ ttlMs: 3000, renewDeadlineMs: 2900, safetyMarginMs: 3 }, 60_000],
    ] as const) {
      const t = grantedTimings(resolveAcquireOptions('acquire', options), granted);
      expect(t.retryPeriodMs).toBeLessThan(t.renewDeadlineMs);
      expect(t.renewDeadlineMs).toBeLessThanOrEqual(t.ttlMs - t.safetyMarginMs);
      expect(t.safetyMarginMs).toBeGreaterThanOrEqual(minimumSafetyMarginMs(t.ttlMs));
    }
  });
});

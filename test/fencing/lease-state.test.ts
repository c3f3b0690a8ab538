import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LeaseError } from '../../src/errors.js';
import { type LeaseEventMap, LeaseStateTracker } from '../../src/fencing/lease-state.js';
import type { GrantedTimings } from '../../src/fencing/lease-timings.js';
import type { Clock, Timer } from '../../src/runtime/clock.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

/** TTL 3 s, margin 30 ms: lost at send + 2970; jeopardy at send + 2000; keep-alives every 1 s. */
const TIMINGS: GrantedTimings = {
  ttlMs: 3000,
  safetyMarginMs: 30,
  renewDeadlineMs: 2000,
  retryPeriodMs: 1000,
};

/** A tracker and the events it emitted, as `name@time`. */
function track(clock: Clock, grantSentAtMs = 0) {
  const emitter = new EventEmitter<LeaseEventMap>();
  const events: string[] = [];
  const errors: LeaseError[] = [];
  emitter.on('jeopardy', (error) => {
    events.push(`jeopardy@${clock.now()}`);
    errors.push(error);
  });
  emitter.on('safe', () => events.push(`safe@${clock.now()}`));
  emitter.on('lost', (error) => {
    events.push(`lost@${clock.now()}`);
    errors.push(error);
  });
  const tracker = new LeaseStateTracker(clock, 'billing', grantSentAtMs, TIMINGS, emitter);
  return { tracker, events, errors };
}

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

const thrown = (f: () => void): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('LeaseStateTracker', () => {
  it('enters jeopardy at the renew deadline after the grant was sent, not before', () => {
    const clock = new VirtualClock({ startMs: 100 });
    const { tracker, events, errors } = track(clock, 50);
    expect(tracker.jeopardyAtMs).toBe(2050);
    expect(tracker.expiresAtMs).toBe(3020);
    clock.advanceTo(2049);
    expect(tracker.state).toBe('held');
    expect(() => tracker.throwUnlessHeld()).not.toThrow();
    expect(events).toEqual([]);
    clock.advanceTo(2050);
    expect(events).toEqual(['jeopardy@2050']);
    expect(tracker.state).toBe('jeopardy');
    const error = thrown(() => tracker.throwUnlessHeld());
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({ code: 'FDKIT_LEASE_JEOPARDY', lease: 'billing' });
    expect((error as Error).message).toMatch(/renew deadline \(2000 ms, overdue by 0 ms\); lost in 970 ms/);
    expect(errors[0]).toMatchObject({ code: 'FDKIT_LEASE_JEOPARDY' });
    expect(tracker.signal.aborted).toBe(false); // jeopardy is not loss
  });

  it('a keep-alive confirmed in jeopardy brings it back to held (safe), and the deadlines move from its send time', () => {
    const clock = new VirtualClock();
    const { tracker, events } = track(clock);
    clock.advanceTo(1000);
    const sentAt = clock.now(); // a keep-alive goes out, and its answer is slow
    clock.advanceTo(2500);
    expect(tracker.state).toBe('jeopardy');
    tracker.confirm(sentAt, 3000);
    expect(tracker.state).toBe('held');
    expect(events).toEqual(['jeopardy@2000', 'safe@2500']);
    expect(tracker.jeopardyAtMs).toBe(3000);
    expect(tracker.expiresAtMs).toBe(3970);
    clock.advanceTo(2999);
    expect(events).toHaveLength(2);
    clock.advanceTo(3000); // no further confirmation: jeopardy again, then lost
    clock.advanceTo(3970);
    expect(events).toEqual(['jeopardy@2000', 'safe@2500', 'jeopardy@3000', 'lost@3970']);
    expect(tracker.state).toBe('lost');
    expect(thrown(() => tracker.throwUnlessHeld())).toMatchObject({ code: 'FDKIT_LEASE_EXPIRED' });
  });

  it('a late confirmation of a keep-alive too old to cover now leaves it in jeopardy, with no safe event', () => {
    const clock = new VirtualClock();
    const { tracker, events } = track(clock);
    clock.advanceTo(2600);
    tracker.confirm(500, 3000); // sent at 500: renew deadline 2500, already past
    expect(tracker.state).toBe('jeopardy');
    expect(tracker.expiresAtMs).toBe(3470); // the lost deadline still moves
    expect(events).toEqual(['jeopardy@2000']);
  });

  it('is lost at the lost deadline, not before, and each event fires once per transition', () => {
    const clock = new VirtualClock();
    const { tracker, events } = track(clock);
    clock.advanceTo(2969);
    for (let i = 0; i < 3; i++) expect(tracker.state).toBe('jeopardy'); // reading again announces nothing
    expect(tracker.signal.aborted).toBe(false);
    clock.advanceTo(2970);
    expect(tracker.signal.aborted).toBe(true);
    expect(tracker.state).toBe('lost');
    tracker.confirm(2900, 3000); // a confirmation after the loss does not bring it back
    expect(tracker.state).toBe('lost');
    clock.advanceTo(10_000);
    expect(events).toEqual(['jeopardy@2000', 'lost@2970']);
    expect(clock.nextDueMs()).toBeUndefined(); // no timer left behind
  });

  it('stays held for as long as keep-alives are confirmed every retry period', () => {
    const clock = new VirtualClock();
    const { tracker, events } = track(clock);
    for (let sent = 1000; sent <= 60_000; sent += TIMINGS.retryPeriodMs) {
      clock.advanceTo(sent + 5);
      tracker.confirm(sent, 3000);
      expect(tracker.state).toBe('held');
    }
    expect(events).toEqual([]);
    clock.advanceTo(60_000 + 2000);
    expect(events).toEqual(['jeopardy@62000']);
  });

  it('reads the clock: after a pause with no timer run, the first read finds jeopardy, or loss', () => {
    const clock = pausedClock();
    const { tracker, events } = track(clock);
    clock.jump(2500); // past the renew deadline; no timer has run
    expect(events).toEqual([]);
    expect(thrown(() => tracker.throwUnlessHeld())).toMatchObject({ code: 'FDKIT_LEASE_JEOPARDY' });
    expect(events).toEqual(['jeopardy@2500']); // announced by the read, once
    clock.jump(40_000);
    tracker.confirm(42_000, 3000); // sent after the lost deadline: too late, the lease stays lost
    expect(tracker.state).toBe('lost');
    expect(events).toEqual(['jeopardy@2500', 'lost@42500']);
  });

  it('a pause past both deadlines is a loss without a jeopardy event', () => {
    const clock = pausedClock();
    const { tracker, events } = track(clock);
    clock.jump(5000);
    expect(thrown(() => tracker.throwUnlessHeld())).toMatchObject({ code: 'FDKIT_LEASE_EXPIRED' });
    expect(events).toEqual(['lost@5000']);
  });

  it('an end (revoke, release) in any state is a lost event with that reason, and final', () => {
    const clock = new VirtualClock();
    const { tracker, events, errors } = track(clock);
    clock.advanceTo(2100);
    expect(tracker.state).toBe('jeopardy');
    tracker.end(new LeaseError('FDKIT_LEASE_REVOKED', 'billing', 'revoked'));
    tracker.end(new LeaseError('FDKIT_LEASE_RELEASED', 'billing', 'released'));
    expect(events).toEqual(['jeopardy@2000', 'lost@2100']);
    expect(errors[1]?.code).toBe('FDKIT_LEASE_REVOKED');
    expect(thrown(() => tracker.throwUnlessHeld())).toBe(tracker.signal.reason);
    expect(clock.nextDueMs()).toBeUndefined();
  });

  it('a confirmation after the end moves no deadline', () => {
    const clock = new VirtualClock({ startMs: 0 });
    const { tracker } = track(clock);
    tracker.end(new LeaseError('FDKIT_LEASE_RELEASED', 'billing', 'released'));
    tracker.confirm(1000, 3000);
    expect(tracker.jeopardyAtMs).toBe(2000);
    expect(tracker.expiresAtMs).toBe(2970);
  });

  it('throwUnlessHeld throws the reason once lost', () => {
    const clock = new VirtualClock({ startMs: 0 });
    const { tracker } = track(clock);
    const reason = new LeaseError('FDKIT_LEASE_REVOKED', 'billing', 'revoked');
    tracker.end(reason);
    expect(() => tracker.throwUnlessHeld()).toThrow(reason);
  });

  it('announces jeopardy at the renew deadline a confirmation moved, without anyone reading the state', () => {
    const clock = new VirtualClock({ startMs: 0 });
    const { tracker, events } = track(clock);
    clock.advanceTo(1000);
    tracker.confirm(1000, 3000); // jeopardy moves from 2000 to 3000
    clock.advanceTo(2999);
    expect(events).toEqual([]);
    clock.advanceTo(3000);
    expect(events).toEqual(['jeopardy@3000']);
  });

  it('confirmations keep one renew timer: none is left once the lease ends', () => {
    const clock = new VirtualClock({ startMs: 0 });
    const { tracker } = track(clock);
    clock.advanceTo(500);
    tracker.confirm(500, 3000);
    tracker.confirm(600, 3000);
    tracker.end(new LeaseError('FDKIT_LEASE_RELEASED', 'billing', 'released'));
    expect(clock.nextDueMs()).toBeUndefined();
  });

  it('a confirmation that leaves it in jeopardy sets no timer due before the lost deadline', () => {
    const clock = new VirtualClock({ startMs: 0 });
    const { tracker } = track(clock);
    clock.advanceTo(2500);
    expect(tracker.state).toBe('jeopardy');
    tracker.confirm(100, 3000); // renew deadline 2100: still overdue
    expect(tracker.state).toBe('jeopardy');
    expect(clock.nextDueMs()).toBe(2970);
  });
});

/**
 * The benches' answer deadline (`bench/support/deadline.ts`), in virtual time: it fails at the deadline
 * and not before, settling it first wins, and no timer is left behind to keep a bench alive.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from '../../bench/support/deadline.js';

/** What a promise has come to so far: still pending, or its value or error. */
function watch<T>(promise: Promise<T>): {
  state: 'pending' | 'resolved' | 'rejected';
  value?: T;
  error?: unknown;
} {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = {
    state: 'pending',
  };
  promise.then(
    (value) => {
      seen.state = 'resolved';
      seen.value = value;
    },
    (error: unknown) => {
      seen.state = 'rejected';
      seen.error = error;
    },
  );
  return seen;
}

describe('withDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with the timeout error at the deadline, not before', async () => {
    const answer = withDeadline<number>(1000, () => new Error('no answer in 1000 ms'));
    const seen = watch(answer.promise);
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.state).toBe('rejected');
    expect((seen.error as Error).message).toBe('no answer in 1000 ms');
  });

  it('resolves with the value given before the deadline and leaves no timer behind', async () => {
    const answer = withDeadline<string>(1000, () => new Error('late'));
    const seen = watch(answer.promise);
    answer.resolve('ready');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(seen).toEqual({ state: 'resolved', value: 'ready' });
  });

  it('rejects with the error given before the deadline, not with the timeout error', async () => {
    const answer = withDeadline<string>(1000, () => new Error('late'));
    const seen = watch(answer.promise);
    answer.reject(new Error('member exited'));
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(seen.state).toBe('rejected');
    expect((seen.error as Error).message).toBe('member exited');
  });
});

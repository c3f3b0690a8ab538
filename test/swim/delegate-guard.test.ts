/**
 * The fence around the application's delegates alone (src/swim/delegate-guard.ts): the option check's
 * message, what each filter is handed and how its answer is read, the state hooks' limits, and the
 * reason as the wire will carry it.
 */
import { describe, expect, it } from 'vitest';
import { zeroSwimCounters } from '../../src/swim/counters.js';
import { APP_STATE_BYTES_MAX, checkDelegates, DelegateGuard } from '../../src/swim/delegate-guard.js';
import type { CandidateMember, SwimDelegates } from '../../src/swim/delegates.js';
import type { MemberList } from '../../src/swim/messages.js';
import { expectOptionError } from '../support/validation.js';

const guard = (delegates: SwimDelegates) => {
  const counters = zeroSwimCounters();
  return { g: new DelegateGuard(delegates, counters), counters };
};

const member = (name: string, incarnation: number): CandidateMember => ({
  name,
  address: `${name}:1`,
  meta: Uint8Array.of(incarnation),
  incarnation,
});

const list = (...members: CandidateMember[]): MemberList => ({
  names: members.map((m) => m.name),
  addresses: members.map((m) => m.address),
  incarnations: Uint32Array.from(members.map((m) => m.incarnation)),
  metas: members.map((m) => m.meta),
  states: new Uint8Array(members.length),
});

describe('checkDelegates', () => {
  it('names the owner, the option and the value received when delegates is no object', () => {
    const e = expectOptionError(() => checkDelegates('SwimNode', 42), 'delegates');
    expect(e.message).toBe('SwimNode: option delegates must be an object of hooks, got 42 (a number)');
    expect(() => checkDelegates('SwimNode', null)).toThrow('got null');
  });

  it('returns the delegates it was given, and undefined for none', () => {
    const d: SwimDelegates = { notifyConflict: () => {} };
    expect(checkDelegates('SwimNode', d)).toBe(d);
    expect(checkDelegates('SwimNode', undefined)).toBeUndefined();
  });

  it('names the hook and its owner when a hook is not a function', () => {
    const e = expectOptionError(() => checkDelegates('SwimNode', { localState: 3 }), 'delegates.localState');
    expect(e.message).toBe('SwimNode: option delegates.localState must be a function, got 3 (a number)');
  });
});

describe('DelegateGuard filters', () => {
  it('tells whether an alive filter is installed', () => {
    expect(guard({}).g.filtersAlive).toBe(false);
    expect(guard({ filterMerge: () => undefined }).g.filtersAlive).toBe(false);
    expect(guard({ filterAlive: () => undefined }).g.filtersAlive).toBe(true);
  });

  it('hands the alive filter a copy of the candidate’s fields, and accepts on undefined', () => {
    const asked: CandidateMember[] = [];
    const { g, counters } = guard({ filterAlive: (m) => void asked.push(m) });
    const m = { ...member('a', 3), extra: 'not the application’s' };
    expect(g.filterAlive(m)).toBeUndefined();
    expect(asked).toEqual([member('a', 3)]);
    expect(asked[0]).not.toBe(m);
    expect(counters.delegateErrors).toBe(0);
  });

  it('hands the merge filter the first `count` members and the join flag', () => {
    const asked: Array<[CandidateMember[], boolean]> = [];
    const { g } = guard({ filterMerge: (ms, join) => void asked.push([[...ms], join]) });
    expect(g.filterMerge(list(member('a', 1), member('b', 2), member('c', 3)), 2, false)).toBeUndefined();
    expect(asked).toEqual([[[member('a', 1), member('b', 2)], false]]);
  });

  it('refuses, with a reason naming the filter, when a filter throws or answers a non-string', () => {
    const throwing = guard({
      filterAlive: () => {
        throw new Error('bug');
      },
      filterMerge: () => {
        throw new Error('bug');
      },
    });
    expect(throwing.g.filterAlive(member('a', 1))).toBe('the alive filter failed');
    expect(throwing.g.filterMerge(list(member('a', 1)), 1, true)).toBe('the merge filter failed');
    expect(throwing.counters.delegateErrors).toBe(2);
    const odd = guard({ filterAlive: () => 7 as unknown as string });
    expect(odd.g.filterAlive(member('a', 1))).toBe('the alive filter failed');
    expect(odd.counters.delegateErrors).toBe(1);
    const empty = guard({ filterAlive: () => '' });
    expect(empty.g.filterAlive(member('a', 1))).toBe('refused by the alive filter');
    expect(empty.counters.delegateErrors).toBe(0);
  });

  it('keeps characters on either side of the surrogate range, and replaces the range’s edges', () => {
    const reason = (r: string) => guard({ filterAlive: () => r }).g.filterAlive(member('a', 1));
    expect(reason('\ud7ff\ue000')).toBe('\ud7ff\ue000');
    expect(reason('a\udfffb\ud800c')).toBe('a?b?c');
    expect(reason('𝄞')).toBe('𝄞');
  });
});

describe('DelegateGuard state hooks', () => {
  it('sends a state up to the limit, and an empty one, counted, above it or when it is no bytes', () => {
    const at = new Uint8Array(APP_STATE_BYTES_MAX);
    const { g, counters } = guard({ localState: (join) => (join ? at : new Uint8Array(0)) });
    expect(g.localState(true)).toBe(at);
    expect(g.localState(false)).toEqual(new Uint8Array(0));
    expect(counters.delegateErrors).toBe(0);
    const over = guard({ localState: () => new Uint8Array(APP_STATE_BYTES_MAX + 1) });
    expect(over.g.localState(false).length).toBe(0);
    expect(over.counters.delegateErrors).toBe(1);
    const odd = guard({ localState: () => [1, 2] as unknown as Uint8Array });
    expect(odd.g.localState(false).length).toBe(0);
    expect(odd.counters.delegateErrors).toBe(1);
    const throwing = guard({
      localState: () => {
        throw new Error('bug');
      },
    });
    expect(throwing.g.localState(false).length).toBe(0);
    expect(throwing.counters.delegateErrors).toBe(1);
    expect(guard({}).g.localState(true).length).toBe(0);
  });

  it('the limit is 8 MiB', () => {
    expect(APP_STATE_BYTES_MAX).toBe(8 * 1024 * 1024);
  });

  it('hands a peer’s state on with the join flag, not an empty one, and counts a throw', () => {
    const got: Array<[number[], boolean]> = [];
    const { g, counters } = guard({ mergeRemoteState: (s, join) => void got.push([[...s], join]) });
    g.mergeRemoteState(Uint8Array.of(1), false);
    g.mergeRemoteState(new Uint8Array(0), true);
    expect([got, counters.delegateErrors]).toEqual([[[[1], false]], 0]);
    const throwing = guard({
      mergeRemoteState: () => {
        throw new Error('bug');
      },
    });
    expect(() => throwing.g.mergeRemoteState(Uint8Array.of(1), true)).not.toThrow();
    expect(throwing.counters.delegateErrors).toBe(1);
    const none = guard({});
    none.g.mergeRemoteState(Uint8Array.of(1), true);
    expect(none.counters.delegateErrors).toBe(0);
  });
});

describe('DelegateGuard reading the hooks', () => {
  /** A hook behind a getter that is there on the first read only, as a delegate object may be. */
  const once = <T>(hook: T) => {
    let reads = 0;
    return () => (reads++ === 0 ? hook : undefined);
  };

  it('reads a filter once it has found it, asking none that is gone by the time it is called', () => {
    const alive = once(() => 'refused');
    const merge = once(() => 'refused');
    // Getters that may answer undefined: not a SwimDelegates to the type checker, but an object of hooks.
    const hooks = {
      get filterAlive() {
        return alive();
      },
      get filterMerge() {
        return merge();
      },
    } as unknown as SwimDelegates;
    const { g, counters } = guard(hooks);
    expect(g.filterAlive(member('a', 1))).toBeUndefined();
    expect(g.filterMerge(list(member('a', 1)), 1, false)).toBeUndefined();
    expect(counters.delegateErrors).toBe(0);
  });
});

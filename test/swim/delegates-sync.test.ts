/**
 * State sync with the application's state hooks: `localState` goes out with every exchange this member
 * sends (requests and replies), `mergeRemoteState` gets the peer's once its member list is merged, a
 * refused exchange is neither merged nor answered, and a hook that throws or answers nonsense costs a
 * counter, never the exchange.
 */
import { describe, expect, it } from 'vitest';
import { APP_STATE_BYTES_MAX, DelegateGuard } from '../../src/swim/delegate-guard.js';
import type { SwimDelegates } from '../../src/swim/delegates.js';
import type { MemberList, PushPull } from '../../src/swim/messages.js';
import type { Refusal } from '../../src/swim/refusal.js';
import { StateSync } from '../../src/swim/state-sync.js';
import { addressOf, harness } from './swim-context.js';

const EMPTY_LIST: MemberList = {
  names: [],
  addresses: [],
  incarnations: new Uint32Array(0),
  states: new Uint8Array(0),
  metas: [],
};

function exchange(reply: boolean, join: boolean, state?: Uint8Array): PushPull {
  const base: PushPull = { type: 'push-pull', from: 'p', join, reply, members: EMPTY_LIST };
  return state === undefined ? base : { ...base, state };
}

/** State sync over a fake port whose merge answers `refusal`, with `delegates`; what it did is recorded. */
function syncing(delegates: SwimDelegates, refusal?: Refusal, order: string[] = []) {
  const h = harness();
  const sync = new StateSync(
    { ...h.ctx, delegates: new DelegateGuard(delegates, h.ctx.counters) },
    {
      incarnation: 1,
      merge: (_members, _from, join) => {
        order.push(`merge join=${join}`);
        return refusal;
      },
      pruneTombstones: () => {},
      pingOnce: () => {},
    },
  );
  const sent = () =>
    h.streams.flatMap(({ to, message }) =>
      message.type === 'push-pull'
        ? [{ to, reply: message.reply, join: message.join, state: message.state }]
        : [],
    );
  return { h, sync, order, sent };
}

/** Hooks that record their calls into `order` and send `state`. */
function recording(order: string[], state: Uint8Array): SwimDelegates {
  return {
    localState: (join) => {
      order.push(`localState join=${join}`);
      return state;
    },
    mergeRemoteState: (remote, join) => {
      order.push(`mergeRemoteState [${[...remote]}] join=${join}`);
    },
  };
}

describe('application state in state sync', () => {
  it('merges a request’s state after its members, then answers with its own, asked with the request’s join', () => {
    const order: string[] = [];
    const s = syncing(recording(order, Uint8Array.of(7)), undefined, order);
    s.sync.handlePushPull(addressOf('p'), exchange(false, true, Uint8Array.of(1, 2)));
    expect(order).toEqual(['merge join=true', 'mergeRemoteState [1,2] join=true', 'localState join=true']);
    expect(s.sent()).toEqual([{ to: addressOf('p'), reply: true, join: true, state: Uint8Array.of(7) }]);
  });

  it('merges a reply’s state, and sends none with a request when the application has none', () => {
    const merged: Uint8Array[] = [];
    const s = syncing({ mergeRemoteState: (state) => merged.push(state) });
    s.sync.handlePushPull(addressOf('p'), exchange(true, false, Uint8Array.of(3)));
    s.sync.handlePushPull(addressOf('p'), exchange(true, false));
    expect(merged).toEqual([Uint8Array.of(3)]);
    s.sync.join([addressOf('seed')]);
    expect(s.h.streams.map((x) => 'state' in x.message)).toEqual([false]);
  });

  it('merges the reply to a join, which echoes the request’s flag, as a join’s state', () => {
    const order: string[] = [];
    const s = syncing(recording(order, Uint8Array.of(5)), undefined, order);
    s.sync.handlePushPull(addressOf('seed'), exchange(true, true, Uint8Array.of(1)));
    s.sync.handlePushPull(addressOf('peer'), exchange(true, false, Uint8Array.of(3)));
    expect(order.filter((x) => x.startsWith('mergeRemoteState'))).toEqual([
      'mergeRemoteState [1] join=true',
      'mergeRemoteState [3] join=false',
    ]);
  });

  it('asks for the state of a join when it joins seeds', () => {
    const order: string[] = [];
    const s = syncing(recording(order, Uint8Array.of(5)));
    s.sync.join([addressOf('seed')]);
    expect(order).toEqual(['localState join=true']);
    expect(s.sent()).toEqual([{ to: addressOf('seed'), reply: false, join: true, state: Uint8Array.of(5) }]);
  });

  it('answers a refused request with the refusal, not its state, and merges no state of a refused exchange', () => {
    const order: string[] = [];
    const refusal = { code: 'FDKIT_JOIN_REJECTED', reason: 'no' } as const;
    const s = syncing(recording(order, Uint8Array.of(7)), refusal, order);
    s.sync.handlePushPull(addressOf('p'), exchange(false, true, Uint8Array.of(1)));
    expect(order).toEqual(['merge join=true']);
    expect(s.h.streams.map((x) => x.message)).toEqual([
      { type: 'refuse', from: 'self', code: 'FDKIT_JOIN_REJECTED', reason: 'no' },
    ]);
  });

  it('fails the join with its own filters’ refusal of a seed’s reply, merging none of its state', () => {
    const order: string[] = [];
    const refusal = { code: 'FDKIT_JOIN_REJECTED', reason: 'the seed is in another cluster' } as const;
    const s = syncing(recording(order, Uint8Array.of(7)), refusal, order);
    const answers: unknown[] = [];
    s.sync.join([addressOf('seed')], (answer) => answers.push(answer));
    s.sync.handlePushPull(addressOf('seed'), exchange(true, true, Uint8Array.of(1)));
    expect(order).toEqual(['localState join=true', 'merge join=true']);
    expect(answers).toEqual([{ seed: addressOf('seed'), refusal }]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('bug');
      },
    ],
    ['answers a string', () => 'state' as unknown as Uint8Array],
    ['answers more than APP_STATE_BYTES_MAX', () => new Uint8Array(APP_STATE_BYTES_MAX + 1)],
  ])('sends the exchange without state, and counts it, when localState %s', (_why, localState) => {
    const s = syncing({ localState });
    s.sync.join([addressOf('seed')]);
    expect(s.sent()).toEqual([{ to: addressOf('seed'), reply: false, join: true, state: undefined }]);
    expect(s.h.ctx.counters.delegateErrors).toBe(1);
  });

  it('sends a state of exactly APP_STATE_BYTES_MAX', () => {
    const s = syncing({ localState: () => new Uint8Array(APP_STATE_BYTES_MAX) });
    s.sync.join([addressOf('seed')]);
    expect(s.sent()[0]?.state?.length).toBe(APP_STATE_BYTES_MAX);
    expect(s.h.ctx.counters.delegateErrors).toBe(0);
  });

  it('swallows a mergeRemoteState that throws, counts it, and still answers', () => {
    const s = syncing({
      mergeRemoteState: () => {
        throw new Error('bug');
      },
    });
    s.sync.handlePushPull(addressOf('p'), exchange(false, false, Uint8Array.of(1)));
    expect(s.h.ctx.counters.delegateErrors).toBe(1);
    expect(s.sent()).toHaveLength(1);
  });
});

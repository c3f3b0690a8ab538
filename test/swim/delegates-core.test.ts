/**
 * The `delegates` option of a SwimCore: its checks (each present hook a function, the error naming the
 * option path and the value received), and that the core hands its hooks to the rules and to state sync:
 * one refused stranger, one state out and in, one filter answering nonsense.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { SwimCore } from '../../src/swim/core.js';
import { zeroSwimCounters } from '../../src/swim/counters.js';
import { DelegateGuard } from '../../src/swim/delegate-guard.js';
import type { SwimDelegates } from '../../src/swim/delegates.js';
import { expectOptionError } from '../support/validation.js';
import { alive, solo } from './core-solo.js';
import { addressOf, memberList } from './swim-scripted.js';

describe('SwimCore option delegates', () => {
  const create = (delegates: unknown) =>
    new SwimCore(
      { name: 'a', address: 'a:1', delegates: delegates as SwimDelegates },
      { clock: new VirtualClock(), random: new Random(1), sendPacket() {}, sendStream() {}, emit() {} },
    );

  it.each([
    ['filterAlive', 'yes', 'got "yes" (a string)'],
    ['filterMerge', 5, 'got 5'],
    ['localState', true, 'got true'],
    ['mergeRemoteState', {}, 'got '],
    ['notifyConflict', [], 'got an array'],
  ])('refuses delegates.%s that is not a function', (hook, value, received) => {
    const e = expectOptionError(() => create({ [hook]: value }), `delegates.${hook}`);
    expect(e.message).toContain(`SwimCore: option delegates.${hook} must be a function, ${received}`);
  });

  it.each([5, 'x', [], () => {}])('refuses delegates = %s, not an object of hooks', (value) => {
    expectOptionError(() => create(value), 'delegates');
  });

  it('takes an object of functions, a class instance’s methods included, and no delegates at all', () => {
    class Hooks {
      filterAlive(): string | undefined {
        return undefined;
      }
    }
    expect(() => create({ localState: () => new Uint8Array(0) })).not.toThrow();
    expect(() => create(new Hooks())).not.toThrow();
    expect(() => create(undefined)).not.toThrow();
    expectOptionError(() => create(null), 'delegates');
  });
});

describe('a SwimCore with delegates', () => {
  it('keeps out the stranger its alive filter refuses, merges the rest, and counts it', () => {
    const s = solo({ delegates: { filterAlive: (m) => (m.name === 'bad' ? 'not ours' : undefined) } });
    s.core.start();
    s.learn(alive('good'), alive('bad'));
    expect(s.core.stateOf('good')).toBe('alive');
    expect(s.core.stateOf('bad')).toBeUndefined();
    expect(s.core.counters.aliveRefused).toBe(1);
  });

  it('sends its application state with its reply, and hands the peer’s to mergeRemoteState', () => {
    const received: Array<[number[], boolean]> = [];
    const s = solo({
      delegates: {
        localState: (join) => Uint8Array.of(join ? 1 : 0, 42),
        mergeRemoteState: (state, join) => received.push([[...state], join]),
      },
    });
    s.core.start();
    s.core.handleStream(addressOf('p'), {
      type: 'push-pull',
      from: 'p',
      join: true,
      reply: false,
      members: memberList([alive('p')]),
      state: Uint8Array.of(9),
    });
    expect(received).toEqual([[[9], true]]);
    const reply = s.streams.at(-1)!.message;
    expect(reply.type === 'push-pull' ? [reply.reply, [...(reply.state ?? [])]] : []).toEqual([
      true,
      [1, 42],
    ]);
  });

  it('treats a filter answering something other than a reason as a refusal, and counts the error', () => {
    const s = solo({ delegates: { filterAlive: () => 0 as unknown as string } });
    s.core.start();
    s.learn(alive('p'));
    expect(s.core.stateOf('p')).toBeUndefined();
    expect(s.core.counters.delegateErrors).toBe(1);
  });

  it('cuts a long reason to 255 bytes of whole characters, and gives an empty one a reason', () => {
    const guard = (reason: string) =>
      new DelegateGuard({ filterMerge: () => reason }, zeroSwimCounters()).filterMerge(
        memberList([alive('p')]),
        1,
        true,
      );
    expect(guard('é'.repeat(200))).toBe('é'.repeat(127)); // 2 bytes each
    expect(guard('x'.repeat(255))).toBe('x'.repeat(255));
    expect(guard('')).toBe('refused by the merge filter');
    expect(guard('a\ud800b\ufffdc')).toBe('a?b?c'); // what the wire refuses to carry
    expect(guard('😀'.repeat(64))).toBe('😀'.repeat(63)); // 4 bytes each: 252 fit
  });
});

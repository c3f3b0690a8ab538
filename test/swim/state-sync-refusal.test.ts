/**
 * State sync's side of a refused join, over a fake port (`state-sync-harness.ts`): a request the rules
 * refuse is answered with the refusal, not with this member's state, and nothing of it is merged; on the
 * joiner, each seed of the current join is heard once, with its state or its refusal, and answers that
 * belong to no join are not counted.
 */
import { describe, expect, it } from 'vitest';
import type { SeedAnswer } from '../../src/swim/join-attempt.js';
import type { MemberList, PushPull } from '../../src/swim/messages.js';
import type { Refusal } from '../../src/swim/refusal.js';
import { encodeStream } from '../../src/wire/encode.js';
import { syncHarness } from './state-sync-harness.js';
import { addressOf } from './swim-context.js';

const LIST: MemberList = {
  names: ['j'],
  addresses: [addressOf('j')],
  incarnations: Uint32Array.of(3),
  states: Uint8Array.of(0),
  metas: [new Uint8Array(0)],
};
const LABEL: Refusal = { code: 'FDKIT_JOIN_LABEL_MISMATCH', reason: 'cluster label differs' };

function pushPull(from: string, join: boolean, reply: boolean): PushPull {
  return { type: 'push-pull', from, join, reply, members: LIST };
}

describe('StateSync: refusing a state exchange', () => {
  it('answers a refused request with the refusal, at its encoded size, and merges nothing', () => {
    const s = syncHarness();
    s.refusal = LABEL;
    s.sync.handlePushPull(addressOf('j'), pushPull('j', true, false));
    expect(s.merged).toEqual([]);
    expect(s.streams).toHaveLength(1);
    const { to, message, bytes } = s.streams[0]!;
    expect(to).toBe(addressOf('j'));
    expect(message).toEqual({
      type: 'refuse',
      from: 'self',
      code: 'FDKIT_JOIN_LABEL_MISMATCH',
      reason: 'cluster label differs',
    });
    expect(bytes).toBe(encodeStream(message).length);
    expect(s.ctx.counters.streamsSent).toBe(1);
  });

  it('answers an accepted request with its state, echoing the join flag, as memberlist does', () => {
    for (const join of [true, false]) {
      const s = syncHarness();
      s.sync.handlePushPull(addressOf('j'), pushPull('j', join, false));
      expect(s.merged).toEqual([{ members: LIST, from: 'j', join }]);
      expect(s.streams.map((x) => x.message)).toMatchObject([{ type: 'push-pull', reply: true, join }]);
    }
  });

  it('a refused reply is merged nowhere and sends nothing back', () => {
    const s = syncHarness();
    s.refusal = LABEL;
    s.sync.handlePushPull(addressOf('seed'), pushPull('seed', true, true));
    expect([s.merged, s.streams]).toEqual([[], []]);
  });
});

describe('StateSync: the answers to a join', () => {
  function joining(seeds: readonly string[]) {
    const s = syncHarness();
    const answers: SeedAnswer[] = [];
    s.sync.start();
    s.sync.join(seeds, (a) => answers.push(a));
    return { s, answers };
  }

  it('hears each seed once: its state as accepted, its refusal with the code and reason', () => {
    const { s, answers } = joining([addressOf('self'), addressOf('s1'), addressOf('s2')]);
    s.sync.handleRefuse(addressOf('s2'), { type: 'refuse', from: 's2', ...LABEL });
    s.sync.handlePushPull(addressOf('s1'), pushPull('s1', true, true));
    s.sync.handlePushPull(addressOf('s1'), pushPull('s1', true, true)); // a retry's answer: heard already
    expect(answers).toEqual([
      { seed: addressOf('s2'), refusal: LABEL },
      { seed: addressOf('s1'), refusal: undefined },
    ]);
  });

  it('an answer to a join from an address no seed has goes to the first seed still waiting', () => {
    // A seed named by a host name answers from the address it advertises.
    const { s, answers } = joining(['seeds.example:7946', addressOf('s2')]);
    s.sync.handlePushPull(addressOf('s9'), pushPull('s9', true, true));
    s.sync.handleRefuse('10.1.1.1:40000', { type: 'refuse', from: 's2', ...LABEL });
    expect(answers).toEqual([
      { seed: 'seeds.example:7946', refusal: undefined },
      { seed: addressOf('s2'), refusal: LABEL },
    ]);
  });

  it('a reply to an exchange that was no join, from an address no seed has, is no answer', () => {
    const { s, answers } = joining([addressOf('s1')]);
    s.sync.handlePushPull(addressOf('other'), pushPull('other', false, true));
    expect(answers).toEqual([]);
    // From the seed's own address it counts even so: an older seed does not echo the flag.
    s.sync.handlePushPull(addressOf('s1'), pushPull('s1', false, true));
    expect(answers).toEqual([{ seed: addressOf('s1'), refusal: undefined }]);
  });

  it('a refusal outside a join, and answers after the join was answered in full, are ignored', () => {
    const s = syncHarness();
    s.sync.handleRefuse(addressOf('s1'), { type: 'refuse', from: 's1', ...LABEL });
    const answers: SeedAnswer[] = [];
    s.sync.join([addressOf('s1')], (a) => answers.push(a));
    s.sync.handlePushPull(addressOf('s1'), pushPull('s1', true, true));
    s.sync.handleRefuse(addressOf('s1'), { type: 'refuse', from: 's1', ...LABEL });
    expect(answers).toEqual([{ seed: addressOf('s1'), refusal: undefined }]);
  });
});

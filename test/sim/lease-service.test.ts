/**
 * The simulator's lease service for lease-majority: held by a side (its owner name) for its time to live,
 * granted again to that side, refused to any other until it runs out; answers a round trip later, as the
 * member's process receives a message.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { SimLeaseService } from '../../src/sim/lease-service.js';
import { SimProcess } from '../../src/sim/process.js';

const TTL_MS = 10_000;
const RTT_MS = 4;

function service() {
  const clock = new VirtualClock();
  const lease = new SimLeaseService(clock, { ttlMs: TTL_MS, rttMs: RTT_MS });
  const process = new SimProcess(0, clock, new Random(1));
  const answers: Array<[string, boolean, number]> = [];
  const ask = (owner: string): void => {
    lease
      .leaseFor(process)
      .acquire(owner)
      .then((held) => {
        answers.push([owner, held, clock.now()]);
      });
  };
  return { clock, lease, process, answers, ask };
}

describe('SimLeaseService', () => {
  it('grants the first side, again to that side, and refuses another side until the TTL runs out', () => {
    const { clock, lease, answers, ask } = service();
    ask('n0');
    clock.advance(RTT_MS - 1);
    expect(answers).toEqual([]);
    clock.advance(1);
    expect(answers).toEqual([['n0', true, RTT_MS]]);
    ask('n3');
    ask('n0');
    clock.advance(RTT_MS);
    expect(answers.slice(1)).toEqual([
      ['n3', false, 2 * RTT_MS],
      ['n0', true, 2 * RTT_MS],
    ]);
    // Granted at RTT/2 for TTL: still held just before it runs out, free at it. Asking again did not renew it.
    clock.advance(RTT_MS / 2 + TTL_MS - 2 * RTT_MS - RTT_MS / 2 - 1);
    ask('n3');
    clock.advance(RTT_MS);
    expect(answers.at(-1)).toEqual(['n3', false, clock.now()]);
    ask('n3');
    clock.advance(RTT_MS);
    expect(answers.at(-1)).toEqual(['n3', true, clock.now()]);
    expect([lease.requests, lease.granted]).toEqual([5, 3]);
  });

  it('a paused member gets its answer when it resumes, a crashed one never', () => {
    const { clock, process, answers, ask } = service();
    ask('n0');
    process.pause(1_000);
    clock.advance(999);
    expect(answers).toEqual([]);
    clock.advance(1);
    expect(answers).toEqual([['n0', true, 1_000]]);
    ask('n0');
    process.crash();
    clock.advance(10 * RTT_MS);
    expect(answers).toHaveLength(1);
  });
});

/**
 * The scale bench's pure parts (bench/scale/scale-checks.ts): convergence read from event lines, the
 * time for a kill to be known by all, and the convergence bound, worked out by hand from the `lan`
 * parameters (probe 1 s, gossip every 200 ms to 3 members, retransmit multiplier 4, 1400-byte packets).
 */
import { describe, expect, it } from 'vitest';
import { convergedAt, convergenceBound, killKnown, type SeenEvent } from '../../bench/scale/scale-checks.js';

const e = (observer: string, member: string, event: string, atMs: number): SeenEvent => ({
  observer,
  member,
  event,
  atMs,
});

describe('convergedAt', () => {
  it('is the last first-alive when nobody flapped', () => {
    const events = [
      e('a', 'b', 'alive', 10),
      e('b', 'a', 'alive', 12),
      e('a', 'c', 'alive', 30),
      e('c', 'a', 'alive', 5),
    ];
    events.push(e('b', 'c', 'alive', 20), e('c', 'b', 'alive', 25));
    expect(convergedAt(events, ['a', 'b', 'c'])).toBe(30);
  });

  it('is the alive that ended a suspicion, not the first alive', () => {
    const events = [
      e('a', 'b', 'alive', 10),
      e('b', 'a', 'alive', 12),
      e('a', 'b', 'suspect', 40),
      e('a', 'b', 'update', 45),
      e('a', 'b', 'alive', 50),
    ];
    expect(convergedAt(events, ['a', 'b'])).toBe(50);
  });

  it('is undefined while someone is missing from a view, or held in another state at the end', () => {
    expect(convergedAt([e('a', 'b', 'alive', 10)], ['a', 'b'])).toBeUndefined();
    expect(
      convergedAt(
        [e('a', 'b', 'alive', 10), e('b', 'a', 'alive', 1), e('a', 'b', 'suspect', 20)],
        ['a', 'b'],
      ),
    ).toBeUndefined();
  });
});

describe('killKnown', () => {
  it('is the latest first report of the death among the observers, from the kill', () => {
    const events = [
      e('a', 'k', 'suspect', 1200),
      e('a', 'k', 'dead', 1300),
      e('b', 'k', 'left', 1900),
      e('b', 'k', 'dead', 2500),
      // A death of an earlier life, before the kill, does not count.
      e('c', 'k', 'dead', 500),
      e('c', 'k', 'dead', 1100),
    ];
    expect(killKnown(events, 'k', 1000, ['a', 'b', 'c'])).toEqual({
      member: 'k',
      killedAtMs: 1000,
      allKnowMs: 900,
      unaware: [],
    });
  });

  it('names the observers that never reported it, and has no time then', () => {
    const events = [e('a', 'k', 'dead', 1300), e('b', 'k', 'suspect', 1300), e('c', 'k', 'dead', 900)];
    expect(killKnown(events, 'k', 1000, ['a', 'b', 'c'])).toEqual({
      member: 'k',
      killedAtMs: 1000,
      allKnowMs: null,
      unaware: ['b', 'c'],
    });
  });
});

describe('convergenceBound', () => {
  it('at 100 members: 6 rounds of dissemination, and one round of 3 packets drained 12 times', () => {
    // lan's fan-out of 5: log6(100) + ln(100)/5 = 2.57 + 0.92 → 4, plus 2 rounds: 6 × 200 ms. 99 × 30 B = 2970 B: 3 packets,
    // one round of up to 5; retransmitLimit = 4 × ceil(log10 101) = 12.
    const b = convergenceBound({}, 100, 30);
    expect(b.disseminationMs).toBe(1200);
    expect(b.packetsPerSweep).toBe(3);
    expect(b.roundsPerSweep).toBe(1);
    expect([b.gossipNodes, b.gossipIntervalMs]).toEqual([5, 200]);
    expect(b.retransmitLimit).toBe(12);
    expect(b.pushPullIntervalMs).toBe(90_000);
    expect(b.boundMs).toBe(1200 + 12 * 200);
  });

  it('grows with the statements to carry: 200 members of 60-byte statements', () => {
    // 199 × 60 = 11940 B: 9 packets, over lan's fan-out of 5 in 2 rounds; log6(200) + ln(200)/5 = 2.96 +
    // 1.06 → 5, + 2 = 7 rounds; retransmitLimit = 4 × ceil(log10 201) = 12.
    const b = convergenceBound({}, 200, 60);
    expect(b.packetsPerSweep).toBe(9);
    expect(b.roundsPerSweep).toBe(2);
    expect(b.boundMs).toBe(7 * 200 + 2 * 12 * 200);
  });

  it('takes the fields it is given over lan', () => {
    // memberlist's fan-out of 3: 9 packets in 3 rounds.
    const b = convergenceBound({ gossipNodes: 3 }, 200, 60);
    expect(b.roundsPerSweep).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import type { SwimContext } from '../../src/swim/context.js';
import { Gossiper } from '../../src/swim/gossiper.js';
import type { Update } from '../../src/swim/messages.js';
import { CountingRandom } from './counting-random.js';
import { type Harness, harness, run } from './swim-context.js';

const SEED = 7;
const I = 200; // lan.gossipIntervalMs
const DEAD_F: Update = { kind: 'dead', name: 'f', incarnation: 1, from: 'self' };

/**
 * Five other members, the clock at 1000 ms, and a gossiper on a counted random source of seed 7. With six
 * members, an update goes out retransmitMult × ceil(log10(7)) = 4 times: 3 gossip packets on one tick and
 * the last one on the next.
 */
function gossiping(): { h: Harness; gossiper: Gossiper; random: CountingRandom } {
  const h = harness();
  for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
  run(h.clock, 1000);
  const random = new CountingRandom(SEED);
  const ctx: SwimContext = { ...h.ctx, random };
  return { h, gossiper: new Gossiper(ctx), random };
}

/** Runs `h`'s timers up to `untilMs`, returning the time each gossip packet left. */
function gossipTimes(h: Harness, untilMs: number): number[] {
  const at: number[] = [];
  for (let due = h.clock.nextDueMs(); due !== undefined && due <= untilMs; due = h.clock.nextDueMs()) {
    const before = h.packets.length;
    h.clock.runNext();
    for (const p of h.packets.slice(before)) if (p.packet.type === 'gossip') at.push(h.clock.now());
  }
  h.clock.advanceTo(untilMs);
  return at;
}

/** The first number of a fresh source of seed 7: where the gossiper's phase falls in its interval. */
const PHASE = 1000 + new Random(SEED).next() * I;

describe('Gossiper, over the shared context', () => {
  it('sleeps while nothing waits, then gossips to gossipNodes members per interval until the queue is spent', () => {
    const h = harness();
    for (const n of ['b', 'c', 'd', 'e', 'f']) h.know(n);
    const gossiper = new Gossiper(h.ctx);
    gossiper.start();
    run(h.clock, 10 * h.ctx.config.gossipIntervalMs);
    expect(h.packets).toEqual([]);
    h.ctx.outbox.enqueue(DEAD_F, h.id('f'));
    gossiper.wake();
    run(h.clock, h.ctx.config.gossipIntervalMs);
    const first = h.packets.filter((p) => p.packet.type === 'gossip');
    expect(first).toHaveLength(h.ctx.config.gossipNodes);
    expect(new Set(first.map((p) => p.to)).size).toBe(h.ctx.config.gossipNodes);
    run(h.clock, 100 * h.ctx.config.gossipIntervalMs);
    expect(h.ctx.outbox.pending).toBe(0);
    const sent = h.packets.length;
    run(h.clock, 10 * h.ctx.config.gossipIntervalMs);
    expect(h.packets.length).toBe(sent);
  });

  it('ticks at a random phase of its interval, once per interval however often woken, and stops when spent', () => {
    const { h, gossiper } = gossiping();
    expect(PHASE).toBeGreaterThan(1000);
    expect(PHASE).toBeLessThan(1000 + I);
    h.ctx.outbox.enqueue(DEAD_F, h.id('f'));
    gossiper.start();
    gossiper.wake(); // the outbox wakes it on every update: a second wake adds no tick
    // Three targets at the phase, the fourth and last transmission one interval later, and no packet
    // without an update in it.
    expect(gossipTimes(h, 1000 + 20 * I)).toEqual([PHASE, PHASE, PHASE, PHASE + I]);
    expect(h.ctx.outbox.pending).toBe(0);
    expect(h.clock.nextDueMs()).toBeUndefined(); // asleep: no timer left
  });

  it('an idle tick draws no random number and schedules no further tick', () => {
    const { h, gossiper, random } = gossiping();
    gossiper.start();
    expect(random.drawn).toBe(1); // the phase
    expect(gossipTimes(h, 1000 + 10 * I)).toEqual([]);
    expect(random.drawn).toBe(1);
    expect(h.clock.nextDueMs()).toBeUndefined();
  });

  it('stop() cancels the next tick; a wake after it resumes the same rhythm', () => {
    const { h, gossiper } = gossiping();
    h.ctx.outbox.enqueue(DEAD_F, h.id('f'));
    gossiper.start();
    gossiper.stop();
    expect(gossipTimes(h, 1000 + 3 * I)).toEqual([]);
    // At 1600 ms the rhythm's next tick is the first phase + 3 intervals.
    gossiper.wake();
    expect(gossipTimes(h, 1000 + 20 * I)).toEqual([
      PHASE + 3 * I,
      PHASE + 3 * I,
      PHASE + 3 * I,
      PHASE + 4 * I,
    ]);
  });

  it('a stopped member neither gossips on a tick already due nor schedules one', () => {
    const { h, gossiper } = gossiping();
    h.ctx.outbox.enqueue(DEAD_F, h.id('f'));
    gossiper.start();
    h.ctx.lifecycle.phase = 'stopped';
    expect(gossipTimes(h, 1000 + 3 * I)).toEqual([]);
    gossiper.wake();
    expect(h.clock.nextDueMs()).toBeUndefined();
    expect(h.ctx.outbox.pending).toBe(1);
  });
});

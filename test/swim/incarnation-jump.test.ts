/**
 * The cap on incarnation jumps (src/swim/incarnation-jump.ts), on one core whose every peer the test plays.
 * The attack it answers was measured on three agents without a keyring: one forged gossip datagram saying
 * that a live member was dead at 2^32 − 1 had every member hold it dead for good, since no refutation can
 * go higher. The cap is 64 above the incarnation held, as docs/membership.md ("Forged statements") states:
 * the tests write 64 and 2^32 − 1 out rather than import them, so that a changed constant fails here.
 */
import { describe, expect, it } from 'vitest';
import { isMemberEvent, type MemberEvent } from '../../src/swim/events.js';
import type { Update } from '../../src/swim/messages.js';
import { packetProblem } from '../../src/wire/validate.js';
import { alive, solo } from './core-solo.js';
import { run } from './swim-context.js';
import { addressOf, memberList } from './swim-scripted.js';

type Solo = ReturnType<typeof solo>;

const CAP = 64;
const TOP = 2 ** 32 - 1;
/** The forger's address: no member's. */
const FORGER = '203.0.113.9:7946';

function running(): Solo {
  const s = solo();
  s.core.start();
  s.learn(alive('b', 5), alive('c', 7));
  return s;
}

function forged(s: Solo, ...updates: Update[]): void {
  s.core.handlePacket(FORGER, { type: 'gossip', from: 'mallory', updates });
}

const dead = (name: string, incarnation: number, from = 'mallory'): Update => ({
  kind: 'dead',
  name,
  incarnation,
  from,
});
const suspect = (name: string, incarnation: number): Update => ({
  kind: 'suspect',
  name,
  incarnation,
  from: 'mallory',
});
const aliveAt = (name: string, incarnation: number): Update => ({
  kind: 'alive',
  name,
  address: addressOf(name),
  incarnation,
  meta: new Uint8Array(0),
});

function held(s: Solo, name: string): { state: string; incarnation: number } | undefined {
  const m = s.core.members().find((i) => i.name === name);
  return m === undefined ? undefined : { state: m.state, incarnation: m.incarnation };
}

const memberEvents = (s: Solo, about: string): MemberEvent[] =>
  s.events.filter(isMemberEvent).filter((e) => e.member === about);

/** Every update about `name` in the datagrams the core sent from index `from` on. */
function sentAbout(s: Solo, name: string, from = 0): Update[] {
  return s.packets
    .slice(from)
    .flatMap(({ packet }) => ('updates' in packet ? packet.updates : []))
    .filter((u) => 'name' in u && u.name === name);
}

describe('accusations far above the life held are dropped and counted', () => {
  it.each([
    ['dead at 2^32 − 1', dead('b', TOP)],
    ['dead at held + 100', dead('b', 5 + 100)],
    ['dead at held + 65', dead('b', 5 + CAP + 1)],
    ['suspect at 2^32 − 1', suspect('b', TOP)],
    ['suspect at held + 65', suspect('b', 5 + CAP + 1)],
  ])('%s: the member stays alive at its incarnation, nothing is gossiped on', (_label, update) => {
    const s = running();
    const before = memberEvents(s, 'b').length;
    const sentBefore = s.packets.length;
    forged(s, update);
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 });
    expect(memberEvents(s, 'b')).toHaveLength(before);
    expect(s.core.counters.incarnationJumps).toBe(1);
    // A gossip round later, the accusation has not been passed on either.
    run(s.clock, 2_000);
    expect(sentAbout(s, 'b', sentBefore).filter((u) => u.kind !== 'alive')).toEqual([]);
    expect(held(s, 'b')?.state).toBe('alive');
  });

  it('at held + 64 an accusation is believed as ever: the cap is not off by one', () => {
    const s = running();
    forged(s, dead('b', 5 + CAP));
    expect(held(s, 'b')).toEqual({ state: 'dead', incarnation: 5 + CAP });
    expect(s.core.counters.incarnationJumps).toBe(0);
    const s2 = running();
    forged(s2, suspect('c', 7 + CAP));
    expect(held(s2, 'c')).toEqual({ state: 'suspect', incarnation: 7 + CAP });
  });

  it('a death in a state exchange (taken as a suspicion) is dropped the same way', () => {
    const s = running();
    s.learn(alive('c', 7), { name: 'b', incarnation: TOP, state: 'dead' });
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 });
    expect(s.core.counters.incarnationJumps).toBe(1);
  });

  it('about a member held dead, a far death is dropped too: it would raise the bar its next life must clear', () => {
    const s = running();
    forged(s, dead('b', 6));
    expect(held(s, 'b')).toEqual({ state: 'dead', incarnation: 6 });
    forged(s, dead('b', TOP));
    expect(held(s, 'b')).toEqual({ state: 'dead', incarnation: 6 });
    // Its restart (the wall clock in seconds) comes back, capped, rather than below a forged 2^32 − 1.
    forged(s, aliveAt('b', 1_700_000_123));
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 6 + CAP });
  });
});

describe('alive statements far above the life held are believed at the cap', () => {
  it('a forged alive at 2^32 − 1 moves the member by 64 and no further, and is gossiped on at 64', () => {
    const s = running();
    const sentBefore = s.packets.length;
    forged(s, aliveAt('b', TOP));
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 + CAP });
    expect(s.core.counters.incarnationJumps).toBe(1);
    run(s.clock, 2_000);
    const passedOn = sentAbout(s, 'b', sentBefore).filter((u) => u.kind === 'alive');
    expect(passedOn.length).toBeGreaterThan(0);
    for (const u of passedOn) expect(u.incarnation).toBe(5 + CAP);
    // So a later suspicion at the incarnation held stays refutable by far: 2^32 − 1 was never adopted.
    forged(s, suspect('b', 5 + CAP));
    expect(held(s, 'b')).toEqual({ state: 'suspect', incarnation: 5 + CAP });
    forged(s, aliveAt('b', 5 + CAP + 1));
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 + CAP + 1 });
  });

  it('a member restarted while held dead rejoins at once, at the cap, with a rejoined event', () => {
    const s = running();
    forged(s, dead('b', 5, 'c'));
    expect(held(s, 'b')?.state).toBe('dead');
    forged(s, aliveAt('b', 1_700_000_500));
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 + CAP });
    expect(memberEvents(s, 'b').at(-1)).toMatchObject({ type: 'alive', cause: 'rejoined' });
  });

  it('a suspect cleared by an alive far above is cleared at the cap, a refutation like any other', () => {
    const s = running();
    forged(s, suspect('b', 5));
    forged(s, aliveAt('b', 5_000));
    expect(held(s, 'b')).toEqual({ state: 'alive', incarnation: 5 + CAP });
    expect(memberEvents(s, 'b').at(-1)).toMatchObject({ type: 'alive', cause: 'refuted' });
  });

  it("a member's own leave far above its life is believed at the cap: it is its own word", () => {
    const s = running();
    forged(s, dead('b', TOP, 'b'));
    expect(held(s, 'b')).toEqual({ state: 'left', incarnation: 5 + CAP });
    expect(s.core.counters.incarnationJumps).toBe(1);
  });

  it('a member nobody holds is not capped: there is no life to measure the jump from', () => {
    const s = running();
    forged(s, aliveAt('stranger', TOP));
    expect(held(s, 'stranger')).toEqual({ state: 'alive', incarnation: TOP });
    expect(s.core.counters.incarnationJumps).toBe(0);
  });
});

describe('statements about this member itself', () => {
  it('accused at 2^32 − 1, it climbs 2^20 above the wall clock in seconds and no further: never to the top', () => {
    // Found by the fuzz on live members: refuting at the top put the victim there, and a member that learned
    // it there (a joiner) believed the next forged death at 2^32 − 1, which nothing could refute.
    const s = solo({ incarnation: 5 });
    s.core.start();
    s.learn(alive('b', 5));
    const ceiling = Math.floor(s.clock.wallNow() / 1000) + 2 ** 20;
    expect(ceiling).toBeLessThan(TOP - 1000);
    forged(s, dead('solo', TOP));
    expect(s.core.incarnation).toBe(ceiling);
    forged(s, suspect('solo', TOP));
    expect(s.core.incarnation).toBe(ceiling + 1);
    // What a member that learned it fresh holds, forged dead: still refuted, above it.
    forged(s, dead('solo', ceiling + 1));
    expect(s.core.incarnation).toBe(ceiling + 2);
  });

  it('started above the wall clock, it climbs 2^20 above its start', () => {
    const start = 3_000_000_000;
    const s = solo({ incarnation: start });
    s.core.start();
    s.learn(alive('b', 5));
    expect(Math.floor(s.clock.wallNow() / 1000)).toBeLessThan(start);
    forged(s, dead('solo', TOP));
    expect(s.core.incarnation).toBe(start + 2 ** 20);
  });

  it('started at the highest start (2^32 − 16), accused at 2^32 − 1, it refutes at the top, and what it sends encodes', () => {
    const s = solo({ incarnation: TOP - 15 });
    s.core.start();
    s.learn(alive('b', 5));
    const from = s.packets.length;
    forged(s, dead('solo', TOP));
    expect(s.core.incarnation).toBe(TOP);
    forged(s, suspect('solo', TOP));
    expect(s.core.incarnation).toBe(TOP);
    run(s.clock, 2_000);
    const own = sentAbout(s, 'solo', from).filter((u) => u.kind === 'alive');
    expect(own.length).toBeGreaterThan(0);
    for (const { packet } of s.packets.slice(from)) {
      expect(packetProblem(packet)).toBeUndefined();
    }
  });

  it('a member restarted from 0 still refutes the death of its old life far above it', () => {
    const s = solo({ incarnation: 0 });
    s.core.start();
    s.learn(alive('b', 5));
    s.core.handleStream(addressOf('b'), {
      type: 'push-pull',
      from: 'b',
      join: false,
      reply: false,
      members: memberList([alive('b', 5), { name: 'solo', incarnation: 9_000, state: 'dead' }]),
    });
    expect(s.core.incarnation).toBe(9_001);
  });
});

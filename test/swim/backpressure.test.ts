/**
 * Backpressure from busy members (docs/membership.md, "Busy members"), on three levels:
 * - the mechanism alone over a harness: which statements mark a member and are passed on, which packet
 *   ends a mark, the own statement gossiped once per announcement, the deaths sent straight to the busy,
 *   and the half-the-members threshold past which nobody is spared;
 * - the gossiper and the prober on the harness: the fan-out skips busy members, and a busy target's late
 *   ack is excused (no helpers, no fallback, no suspicion, no health change), and busy members help nobody;
 * - real cores: one whose timers run late says so on its packets, one that holds a silent member busy
 *   spares it, and `busySignal: false` turns all of it off.
 */
import { describe, expect, it } from 'vitest';
import { DEAD, SUSPECT } from '../../src/membership/member-state.js';
import type { Clock, Timer } from '../../src/runtime/clock.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { Backpressure } from '../../src/swim/backpressure.js';
import { SwimCore } from '../../src/swim/core.js';
import { Gossiper } from '../../src/swim/gossiper.js';
import type { BusyUpdate, DeadUpdate, Packet, Update } from '../../src/swim/messages.js';
import { Prober } from '../../src/swim/prober.js';
import { memberlistLan } from '../../src/swim/profiles.js';
import { fakePort, recorder } from './prober-fakes.js';
import { addressOf, harness, run } from './swim-context.js';
import { memberList, Scripted } from './swim-scripted.js';

const busy = (name: string, seq: number): BusyUpdate => ({ kind: 'busy', name, seq });
const DEAD_X: DeadUpdate = { kind: 'dead', name: 'x', incarnation: 1, from: 'self' };
const I = memberlistLan.probeIntervalMs;
const T = memberlistLan.probeTimeoutMs;

/** Backpressure over a harness that knows `names` alive: with itself, one member more. */
function pressured(names = ['b', 'c', 'd']) {
  const h = harness();
  for (const n of names) h.know(n);
  run(h.clock, 1000);
  const bp = new Backpressure(h.ctx, h.ctx.health.busy!);
  /** Moves time on by 1 ms: whether the member spares others is worked out once per instant. */
  const tick = (): void => run(h.clock, 1);
  return { h, bp, tick };
}

/** Makes the harness's own member busy: late timers 500 ms apart, the clock left at the second. */
function makeBusy(h: ReturnType<typeof harness>): void {
  h.ctx.health.noteLag(h.clock.now() - 100);
  run(h.clock, 500);
  h.ctx.health.noteLag(h.clock.now() - 100);
}

describe('Backpressure: the statements it receives', () => {
  it('a statement marks its member; a newer one is passed on, a repeated or older one is not', () => {
    const { h, bp } = pressured();
    const b = h.id('b');
    bp.received('c', [busy('b', 3)]);
    expect([bp.excuses(b), bp.spares(b), h.wakes]).toEqual([true, true, 1]);
    bp.received('d', [busy('b', 3)]);
    bp.received('d', [busy('b', 2)]);
    expect(h.wakes).toBe(1);
    bp.received('c', [busy('b', 4)]);
    expect(h.wakes).toBe(2);
    // Queued under b's key: the newer statement replaced the older one.
    h.ctx.outbox.sendPacket(addressOf('d'), { type: 'gossip', from: 'self', updates: [] });
    expect(h.packets[0]!.packet.updates).toEqual([busy('b', 4)]);
    expect([bp.excuses(h.id('c')), bp.excuses(h.id('d'))]).toEqual([false, false]);
  });

  it('marks suspects too, and ignores statements about the dead, strangers and itself', () => {
    const { h, bp } = pressured();
    h.know('e', SUSPECT);
    h.know('f', DEAD);
    bp.periodStarted(); // sees e and f join the view: nothing is passed on for 5 s
    run(h.clock, 5000);
    bp.received('c', [busy('f', 1), busy('stranger', 1), busy('self', 1)]);
    expect([bp.excuses(h.id('f')), bp.excuses(h.ctx.view.selfId), h.wakes]).toEqual([false, false, 0]);
    bp.received('c', [busy('e', 1)]);
    expect([bp.excuses(h.id('e')), h.wakes]).toEqual([true, 1]);
  });

  it("a packet straight from the member without its statement ends its mark; one with it, or another's, does not", () => {
    const { h, bp } = pressured();
    const [b, c] = [h.id('b'), h.id('c')];
    bp.received('c', [busy('b', 1)]);
    bp.received('b', [busy('b', 1)]);
    bp.received('c', []);
    bp.received('d', [busy('c', 1)]);
    expect([bp.excuses(b), bp.excuses(c)]).toEqual([true, true]);
    bp.received('b', [busy('c', 1)]); // b's packet passes c's statement on, without one of its own
    expect([bp.excuses(b), bp.excuses(c)]).toEqual([false, true]);
  });
});

describe('Backpressure: its own statement', () => {
  it('rides on packets only while busy, numbered anew once per announcement, never queued by its member', () => {
    // Every packet of a busy member carries its statement: queueing it as well would send it twice.
    const { h, bp } = pressured();
    bp.periodStarted();
    expect([bp.statement(), h.wakes]).toEqual([undefined, 0]);
    makeBusy(h);
    bp.periodStarted();
    expect([bp.statement(), h.wakes]).toEqual([busy('self', 1), 0]);
    run(h.clock, 1999);
    h.ctx.health.noteLag(h.clock.now() - 100);
    bp.periodStarted();
    expect([bp.statement(), h.wakes]).toEqual([busy('self', 1), 0]);
    run(h.clock, 1);
    bp.periodStarted();
    expect([bp.statement(), h.wakes]).toEqual([busy('self', 2), 0]);
    // The last late timer was 2000 ms ago: no longer busy, nothing to say.
    run(h.clock, 1999);
    bp.periodStarted();
    expect([bp.statement(), h.wakes]).toEqual([undefined, 0]);
  });
});

describe('Backpressure: half the members busy', () => {
  it('spares, passes on and sends deaths while fewer than half are busy; at half, excuses only', () => {
    // Four members with itself: one busy is a quarter, two are half.
    const { h, bp, tick } = pressured();
    const [b, c] = [h.id('b'), h.id('c')];
    bp.received('d', [busy('b', 1)]);
    tick();
    bp.convicted(DEAD_X);
    expect(h.packets.map((p) => p.to)).toEqual([addressOf('b')]);
    expect(h.packets[0]!.packet).toMatchObject({ type: 'gossip', from: 'self' });
    expect(h.packets[0]!.packet.updates).toContainEqual(DEAD_X);
    bp.received('d', [busy('c', 1)]);
    tick();
    const wakes = h.wakes;
    expect([bp.spares(b), bp.spares(c), bp.excuses(b), bp.excuses(c)]).toEqual([false, false, true, true]);
    bp.received('d', [busy('b', 2)]);
    makeBusy(h);
    bp.periodStarted();
    bp.convicted(DEAD_X);
    expect([h.wakes, h.packets.length]).toEqual([wakes, 1]);
    expect(bp.statement()).toEqual(busy('self', 0)); // its packets still say so
    // b caught up: one in four again, once this member's own spell is over (2 s after its late timer).
    bp.received('b', []);
    run(h.clock, 2000);
    expect([bp.spares(c), bp.excuses(b)]).toEqual([true, false]);
  });

  it('nobody is spared, nor a statement passed on, for 5 s after a member joined the view', () => {
    // A busy member spared gossip would miss the join: in a forming cluster, members went without a few
    // others for 20 s and more.
    const { h, bp, tick } = pressured();
    const b = h.id('b');
    bp.received('d', [busy('b', 1)]);
    tick();
    expect(bp.spares(b)).toBe(true);
    h.know('e');
    expect(bp.spares(b)).toBe(false);
    const wakes = h.wakes;
    bp.received('d', [busy('b', 2)]);
    expect(h.wakes).toBe(wakes);
    run(h.clock, 4999);
    bp.received('d', [busy('b', 3)]); // keeps b marked
    expect(bp.spares(b)).toBe(false);
    run(h.clock, 1);
    expect(bp.spares(b)).toBe(true);
  });

  it('a member that is busy itself spares nobody, and still excuses the busy', () => {
    // Four members with itself, one busy: a quarter. It is no better placed than b while it lags too.
    const { h, bp, tick } = pressured();
    const b = h.id('b');
    bp.received('d', [busy('b', 1)]);
    tick();
    expect([bp.spares(b), bp.excuses(b)]).toEqual([true, true]);
    makeBusy(h);
    expect([bp.spares(b), bp.excuses(b)]).toEqual([false, true]);
    bp.convicted(DEAD_X);
    expect(h.packets).toEqual([]);
    // Its own statement is still numbered anew: the others should know it lags.
    bp.periodStarted();
    expect(bp.statement()).toEqual(busy('self', 1));
    // Nor does it pass others' statements on, new as they are: it would add work to a busy cluster.
    const wakes = h.wakes;
    bp.received('d', [busy('c', 1)]);
    expect([h.wakes, bp.excuses(h.id('c'))]).toEqual([wakes, true]);
  });

  it('the statement that makes half the members busy is not passed on, and nobody is spared from then', () => {
    // Four members with itself: b and c in one packet are half.
    const { h, bp } = pressured();
    bp.received('d', [busy('b', 1), busy('c', 1)]);
    expect(h.wakes).toBe(1);
    expect([bp.spares(h.id('b')), bp.spares(h.id('c'))]).toEqual([false, false]);
  });

  it('sends each death straight to every busy member, and to no other', () => {
    const { h, bp, tick } = pressured(['b', 'c', 'd', 'e']);
    bp.received('d', [busy('b', 1), busy('c', 7)]);
    tick();
    bp.convicted(DEAD_X);
    expect(h.packets.map((p) => p.to).sort()).toEqual([addressOf('b'), addressOf('c')]);
    for (const p of h.packets) expect(p.packet.updates).toContainEqual(DEAD_X);
  });
});

describe('Backpressure: the gossiper and the prober', () => {
  /** Where gossip goes over 2 s (within the marks' hold), for seeds 1 to 10, `marked` said busy. */
  function gossipTargets(marked: readonly string[]): Set<string> {
    const to = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) {
      const h = harness({ seed });
      for (const n of ['b', 'c', 'd']) h.know(n);
      const bp = new Backpressure(h.ctx, h.ctx.health.busy!);
      bp.received(
        'd',
        marked.map((n) => busy(n, 1)),
      );
      run(h.clock, 1);
      const gossiper = new Gossiper(h.ctx, (id) => bp.spares(id));
      gossiper.start();
      for (let i = 0; i < 10; i++) h.ctx.outbox.enqueue({ ...DEAD_X, incarnation: i }, 100 + i);
      run(h.clock, 2000);
      for (const p of h.packets) if (p.packet.type === 'gossip') to.add(p.to);
    }
    return to;
  }

  it('the fan-out never picks a busy member while fewer than half are busy; at half it does', () => {
    expect([...gossipTargets(['b'])].sort()).toEqual([addressOf('c'), addressOf('d')]);
    expect([...gossipTargets(['b', 'c'])].sort()).toEqual([addressOf('b'), addressOf('c'), addressOf('d')]);
  });

  it("a busy target's failed probe: no helpers, no fallback, no suspicion, the health score unchanged", () => {
    const h = harness();
    const b = h.know('b');
    h.know('c');
    h.know('d');
    const { port, calls } = fakePort(undefined, [b], new Set([b]));
    const rec = recorder(h);
    new Prober(h.ctx, port, undefined).start();
    rec.advance(h.clock.nextDueMs()! - h.clock.now());
    h.ctx.health.awareness.apply(3);
    rec.advance(I);
    expect(rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping-req')).toEqual([]);
    expect(rec.log.filter((s) => s.via === 'stream')).toEqual([]);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
    expect(h.ctx.health.awareness.score).toBe(3);
    expect(h.ctx.counters).toMatchObject({ indirectProbes: 0, fallbackPings: 0, busyExcused: 1 });
  });

  it('excused once, excused to the end: a mark that lapses after the helpers were skipped raises nothing', () => {
    // Without helpers the probe has no second vantage point: suspecting on the direct ping alone would be
    // memberlist's timing with none of its checks.
    const h = harness();
    const b = h.know('b');
    h.know('c');
    h.know('d');
    const marked = new Set([b]);
    const { port, calls } = fakePort(undefined, [b], marked);
    const rec = recorder(h);
    new Prober(h.ctx, port, undefined).start();
    rec.advance(h.clock.nextDueMs()! - h.clock.now());
    rec.advance(T);
    marked.delete(b);
    rec.advance(I - T);
    expect(rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping-req')).toEqual([]);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
    expect(h.ctx.health.awareness.score).toBe(0);
    expect(h.ctx.counters.busyExcused).toBe(1);
  });

  it('a busy member is never asked to help probe another', () => {
    // Helpers are drawn at random among b, d and e (3 × 4 draws): over 20 seeds b would come up often.
    const asked = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const h = harness({ seed });
      const [b, c] = [h.know('b'), h.know('c')];
      h.know('d');
      h.know('e');
      const rec = recorder(h);
      new Prober(h.ctx, fakePort(undefined, [c], new Set([b])).port, undefined).start();
      rec.advance(h.clock.nextDueMs()! - h.clock.now() + T);
      const helpers = rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping-req');
      expect(helpers.length, `seed ${seed}`).toBeGreaterThan(0);
      for (const s of helpers) asked.add(s.to);
    }
    expect([...asked].sort()).toEqual([addressOf('d'), addressOf('e')]);
  });
});

/** A clock whose timers all fire `lagMs` late, as on a starved CPU. */
class LaggingClock implements Clock {
  lagMs = 0;
  constructor(private readonly clock: VirtualClock) {}
  now(): number {
    return this.clock.now();
  }
  wallNow(): number {
    return this.clock.wallNow();
  }
  setTimer(delayMs: number, callback: () => void): Timer {
    return this.clock.setTimer(delayMs + this.lagMs, callback);
  }
}

/**
 * A core `a` that knows b, c, d and e, which ack its pings 2 ms later; its timers run on time for 10 s,
 * 100 ms late for the next 10 s (from `onMs`), then on time again (from `offMs`) for 10 s more. `chatty`:
 * it broadcasts every 500 ms.
 */
function lateFor10s(busySignal: boolean, chatty = false) {
  const clock = new VirtualClock({ wallStartMs: 1_700_000_000_000 });
  const lagging = new LaggingClock(clock);
  const sent: Array<{ atMs: number; packet: Packet; said: BusyUpdate[] }> = [];
  const core: SwimCore = new SwimCore(
    { name: 'a', address: addressOf('a'), config: memberlistLan, busySignal },
    {
      clock: lagging,
      random: new Random(3),
      sendPacket: (to, packet) => {
        const said = packet.updates.filter((u): u is BusyUpdate => u.kind === 'busy');
        sent.push({ atMs: clock.now(), packet, said });
        const from = to.slice(0, to.indexOf('.'));
        if (packet.type !== 'ping') return;
        clock.setTimer(2, () => core.handlePacket(to, { type: 'ack', seq: packet.seq, from, updates: [] }));
      },
      sendStream: () => {},
      emit: () => {},
    },
  );
  core.start();
  const members = ['b', 'c', 'd', 'e'].map((name) => ({ name, incarnation: 1, state: 'alive' as const }));
  core.handleStream(addressOf('b'), {
    type: 'push-pull',
    from: 'b',
    join: false,
    reply: false,
    members: memberList(members),
  });
  const for10s = (): void => {
    for (let i = 0; i < 20; i++) {
      if (chatty) core.broadcast(Uint8Array.of(i));
      clock.advance(500);
    }
  };
  for10s();
  const onMs = clock.now();
  lagging.lagMs = 100;
  for10s();
  const offMs = clock.now();
  lagging.lagMs = 0;
  for10s();
  return { core, sent, onMs, offMs };
}

describe('Backpressure in a core: the statement on its packets', () => {
  // Quiet: only the probe timer runs. Chatty: a broadcast every 500 ms keeps the gossip timer running too.
  // Quiet, its packets are its probes only, one a period (1.1 s once late): 6 in the 6.8 s it is busy.
  it.each([
    { chatty: false, first: 1, fewest: 6, types: ['ping'] },
    { chatty: true, first: 0, fewest: 11, types: ['ping', 'gossip'] },
  ])(
    'a member whose timers run late says so on every packet while busy, not before or after (chatty $chatty)',
    ({ chatty, first, fewest, types }) => {
      const { core, sent, onMs, offMs } = lateFor10s(true, chatty);
      // Probe periods of 1 s, 1.1 s once late: the period under way when the lag starts ends on time, the
      // next two late; busy at the second, 500 ms or more after the first, by the probe timer alone.
      const [probeBusyFrom, busyBy] = [onMs + 2 * (I + 100), onMs + I + 2 * (I + 100)];
      // The last late timer was set before the lag ended, at most a period before; busy 2 s more.
      const calmFrom = offMs + I + 100 + 2000;
      const at = (from: number, to: number) => sent.filter((s) => s.atMs >= from && s.atMs < to);
      const saidFrom = sent.find((s) => s.said.length > 0)!.atMs;
      expect(saidFrom).toBeGreaterThanOrEqual(onMs + 500);
      // Late gossip ticks count as well: with them, busy before the probe timer alone could make it.
      if (chatty) expect(saidFrom).toBeLessThan(probeBusyFrom);
      const whileBusy = at(busyBy, offMs);
      expect(whileBusy.length).toBeGreaterThanOrEqual(fewest);
      for (const s of whileBusy) expect(s.said.length, `${s.packet.type} at ${s.atMs}`).toBeGreaterThan(0);
      expect(new Set(whileBusy.map((s) => s.packet.type))).toEqual(new Set(types));
      expect(at(calmFrom, Number.POSITIVE_INFINITY).flatMap((s) => s.said)).toEqual([]);
      // Numbered from 0 (before the first announcement, made at a period start: a late gossip tick may
      // come first) up by one per announcement, at most one every 2 s.
      const firstOf = new Map<number, number>();
      for (const s of sent) for (const u of s.said) if (!firstOf.has(u.seq)) firstOf.set(u.seq, s.atMs);
      const seqs = [...firstOf.keys()];
      expect(seqs).toEqual(seqs.map((_, i) => first + i));
      expect(seqs.length).toBeGreaterThanOrEqual(3);
      for (let n = 2; n <= seqs.at(-1)!; n++) {
        expect(firstOf.get(n)! - firstOf.get(n - 1)!).toBeGreaterThanOrEqual(2000);
      }
      for (const s of sent) for (const u of s.said) expect(u.name).toBe('a');
      expect(core.counters.busySpells).toBe(1);
    },
  );

  it('with busySignal false, the same lateness puts no statement on any packet', () => {
    const { core, sent } = lateFor10s(false, true);
    expect(sent.length).toBeGreaterThan(100);
    expect(sent.flatMap((s) => s.said)).toEqual([]);
    expect(core.counters.busySpells).toBe(0);
  });
});

describe('Backpressure in a core: a silent member that said it is busy', () => {
  /**
   * A core `a` among scripted b, c, d and x, b and x silent from the start; every 2 s for 40 s, c passes
   * on b's next statement and d, a second later, the same one again. x crashed and is convicted; b is
   * excused while its statements come.
   */
  function busyB(busySignal: boolean) {
    const s = new Scripted({ peers: ['b', 'c', 'd', 'x'], core: { busySignal } });
    s.start();
    // Past the 5 s after its view last grew (its peers joined it, seen at its first period), in which
    // nobody is spared.
    s.run(7000);
    s.events.length = 0;
    s.peer('b').silent = true;
    s.peer('x').silent = true;
    const pass = (from: string, seq: number): void =>
      s.core.handlePacket(addressOf(from), { type: 'gossip', from, updates: [busy('b', seq)] });
    for (let seq = 1; seq <= 20; seq++) {
      pass('c', seq);
      s.run(1000);
      pass('d', seq);
      s.run(1000);
    }
    const toB = s.sent.filter((p) => p.to === addressOf('b'));
    const carrying = (u: Update) => s.sent.filter((p) => p.packet.updates.some((v) => equal(u, v)));
    return { s, toB, carrying, xDiedAt: s.about('x').find((e) => e.type === 'dead')?.atMs };
  }
  const equal = (u: Update, v: Update): boolean => JSON.stringify(u) === JSON.stringify(v);

  it('is never suspected, asked about, or asked to help; gets no fan-out, only the death, straight away', () => {
    const { s, toB, carrying, xDiedAt } = busyB(true);
    expect(s.about('b')).toEqual([]);
    expect(s.about('x').map((e) => e.type)).toEqual(['suspect', 'dead']);
    expect(s.pings('b').length).toBeGreaterThan(3); // it was probed all along, and excused
    expect(s.sent.filter((p) => p.packet.type === 'ping-req' && p.packet.target === 'b')).toEqual([]);
    expect(toB.filter((p) => p.packet.type === 'ping-req')).toEqual([]);
    expect(s.streams.filter((m) => m.to === addressOf('b') && m.message.type === 'ping')).toEqual([]);
    expect(s.core.localHealth).toBe(0);
    const gossipToB = toB.filter((p) => p.packet.type === 'gossip');
    expect(gossipToB.map((p) => p.atMs)).toEqual([xDiedAt]);
    expect(gossipToB[0]!.packet.updates.some((u) => u.kind === 'dead' && u.name === 'x')).toBe(true);
    // Each statement passed on from c's packet, and not again from d's a second later: at most the
    // retransmit limit of 4 × ceil(log10(5 + 1)) = 4 packets each.
    for (let seq = 1; seq <= 20; seq++) {
      expect(carrying(busy('b', seq)).length, `seq ${seq}`).toBeGreaterThan(0);
      expect(carrying(busy('b', seq)).length, `seq ${seq}`).toBeLessThanOrEqual(4);
    }
  });

  it('once its statements stop coming, it is suspected as any other, after the last one has held 5 s', () => {
    const { s } = busyB(true);
    const lastMs = s.clock.now() - 1000; // d's last pass
    const suspectedAt = s.runUntil(() => s.about('b').length > 0, 20_000);
    expect(suspectedAt).toBeGreaterThanOrEqual(lastMs + 5000);
    expect(s.about('b')[0]).toMatchObject({ type: 'suspect', cause: 'probe-failed' });
  });

  it('with busySignal false: suspected, asked about, in the fan-out, and no statement passed on', () => {
    const { s, toB, xDiedAt } = busyB(false);
    expect(xDiedAt).toBeDefined();
    expect(s.about('b')[0]?.type).toBe('suspect');
    expect(s.sent.some((p) => p.packet.type === 'ping-req' && p.packet.target === 'b')).toBe(true);
    expect(toB.filter((p) => p.packet.type === 'gossip' && p.atMs !== xDiedAt).length).toBeGreaterThan(0);
    expect(toB.filter((p) => p.atMs === xDiedAt)).toEqual([]);
    expect(s.sent.filter((p) => p.packet.updates.some((u) => u.kind === 'busy'))).toEqual([]);
    expect(s.core.counters.busyExcused).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { SUSPECT } from '../../src/membership/member-state.js';
import type { PingReq, SuspectUpdate } from '../../src/swim/messages.js';
import { Prober } from '../../src/swim/prober.js';
import { fakePort } from './prober-fakes.js';
import { addressOf, harness, run } from './swim-context.js';

describe('Prober, over a fake port', () => {
  it('probes once a period, attaches the accusation the port holds, and reports a silent target as failed', () => {
    const h = harness();
    const b = h.know('b', SUSPECT, 3);
    const accusation: SuspectUpdate = { kind: 'suspect', name: 'b', incarnation: 3, from: 'self' };
    const { port, calls } = fakePort(new Map([[b, accusation]]));
    const prober = new Prober(h.ctx, port, undefined);
    prober.start();
    run(h.clock, h.ctx.config.probeIntervalMs);
    const ping = h.packets.find((p) => p.packet.type === 'ping');
    expect(ping?.to).toBe(addressOf('b'));
    expect(ping?.packet.updates[0]).toEqual(accusation);
    expect(calls).toEqual(['period', `probing ${b}`]);
    // No ack, no helper to ask: the next period decides the probe failed.
    run(h.clock, h.ctx.config.probeIntervalMs);
    expect(calls).toContain(`failed ${b} false`);
    expect(h.ctx.counters.probes).toBe(2);
  });

  /** Runs `h` in steps of 1 ms for `ms`, returning when each ping and each fallback stream ping left. */
  function timeline(h: ReturnType<typeof harness>, ms: number): { pings: number[]; fallbacks: number[] } {
    const pings: number[] = [];
    const fallbacks: number[] = [];
    for (let t = 0; t < ms; t++) {
      const [packets, streams] = [h.packets.length, h.streams.length];
      run(h.clock, 1);
      for (const p of h.packets.slice(packets)) if (p.packet.type === 'ping') pings.push(h.clock.now());
      for (const s of h.streams.slice(streams)) if (s.message.type === 'ping') fallbacks.push(h.clock.now());
    }
    return { pings, fallbacks };
  }

  it('an acked probe is no failure, and lowers the health score at the end of its period', () => {
    const h = harness();
    h.know('b');
    const { port, calls } = fakePort();
    const prober = new Prober(h.ctx, port, undefined);
    h.ctx.health.awareness.apply(2);
    prober.start();
    const { pings } = timeline(h, h.ctx.config.probeIntervalMs);
    expect(pings).toHaveLength(1);
    const ping = h.packets.find((p) => p.packet.type === 'ping')!.packet;
    prober.handleAck(ping.type === 'ping' ? ping.seq : -1);
    run(h.clock, 3 * h.ctx.config.probeIntervalMs);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
    expect(h.ctx.health.awareness.score).toBe(1);
  });

  it('stretches the probe period and the probe timeout by the health score + 1', () => {
    const h = harness();
    h.know('b');
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    h.ctx.health.awareness.apply(2);
    prober.start();
    const { probeIntervalMs, probeTimeoutMs } = h.ctx.config;
    const { pings, fallbacks } = timeline(h, 5 * probeIntervalMs);
    // The second probe follows the first by a period at score 2; the first's fallback ping (no helper
    // to ask) leaves one stretched probe timeout after it.
    expect(pings[1]! - pings[0]!).toBe(3 * probeIntervalMs);
    expect(fallbacks[0]! - pings[0]!).toBe(3 * probeTimeoutMs);
  });

  it('answers a ping with the accusation it holds against the pinger (buddy system)', () => {
    const h = harness();
    const b = h.know('b', SUSPECT, 7);
    const accusation: SuspectUpdate = { kind: 'suspect', name: 'b', incarnation: 7, from: 'c' };
    const prober = new Prober(h.ctx, fakePort(new Map([[b, accusation]])).port, undefined);
    prober.answer(addressOf('b'), 42, 'b');
    expect(h.packets).toEqual([
      { to: addressOf('b'), packet: { type: 'ack', seq: 42, from: 'self', updates: [accusation] } },
    ]);
  });

  it('answers a fallback stream ping only when meant for it and from a member it knows', () => {
    const h = harness();
    h.know('b');
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    prober.answerStreamPing({ type: 'ping', seq: 1, from: 'b', target: 'other', updates: [] });
    prober.answerStreamPing({ type: 'ping', seq: 2, from: 'stranger', target: 'self', updates: [] });
    prober.answerStreamPing({ type: 'ping', seq: 3, from: 'b', target: 'self', updates: [] });
    expect(h.ctx.counters.misdirectedPings).toBe(1);
    expect(h.ctx.counters.fallbackPingsAnswered).toBe(1);
    expect(h.streams).toEqual([
      { to: addressOf('b'), message: { type: 'ack', seq: 3, from: 'self', updates: [] } },
    ]);
  });

  it('answers no stream ping from a member it holds unknown, and asks the port only about members it knows', () => {
    const h = harness();
    h.ctx.view.directory.intern('ghost', addressOf('ghost')); // named, but not in the view
    const fake = fakePort();
    const prober = new Prober(h.ctx, fake.port, undefined);
    prober.answerStreamPing({ type: 'ping', seq: 1, from: 'ghost', target: 'self', updates: [] });
    expect(h.streams).toEqual([]);
    prober.answer(addressOf('stranger'), 5, 'stranger');
    expect(fake.asked).toEqual([]);
    expect(h.packets).toEqual([
      { to: addressOf('stranger'), packet: { type: 'ack', seq: 5, from: 'self', updates: [] } },
    ]);
  });

  it('ignores acks and nacks of sequence numbers it is not waiting for, counting the nacks', () => {
    const h = harness();
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    prober.handleAck(12);
    prober.handleNack(12);
    expect(h.ctx.counters.nacksReceived).toBe(1);
  });
});

/** A ping-req from a (at `addressOf('a')`) to probe x, sequence number 77. */
const pingReq = (nack: boolean): PingReq => ({
  type: 'ping-req',
  seq: 77,
  from: 'a',
  target: 'x',
  targetAddress: addressOf('x'),
  nack,
  updates: [],
});

describe('Prober, as the helper of a ping-req (T = 500 ms; the nack at 0.8 T = 400 ms)', () => {
  /** A prober that got `req` at time 0; returns what it sent to a, and the seq of its ping of x. */
  function helping(req: PingReq) {
    const h = harness();
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    prober.handlePingReq(addressOf('a'), req);
    const ping = h.packets[0]!;
    const toA = () => h.packets.filter((p) => p.to === addressOf('a')).map((p) => p.packet);
    return { h, prober, ping, toA, seq: ping.packet.type === 'ping' ? ping.packet.seq : -1 };
  }
  const nack = { type: 'nack', seq: 77, from: 'self', updates: [] };
  const ack = { type: 'ack', seq: 77, from: 'self', updates: [] };

  it('pings the target, and nacks at 400 ms, not before, when it stays silent; nothing more after', () => {
    const { h, ping, toA } = helping(pingReq(true));
    expect(ping).toEqual({
      to: addressOf('x'),
      packet: { type: 'ping', seq: 1, from: 'self', target: 'x', updates: [] },
    });
    run(h.clock, 399);
    expect(toA()).toEqual([]);
    run(h.clock, 1);
    expect(toA()).toEqual([nack]);
    expect(h.ctx.counters.nacksSent).toBe(1);
    run(h.clock, 10_000);
    expect(h.packets).toHaveLength(2);
  });

  it('relays the target’s ack at once, and then sends no nack', () => {
    const { h, prober, toA, seq } = helping(pingReq(true));
    run(h.clock, 10);
    prober.handleAck(seq);
    expect(toA()).toEqual([ack]);
    run(h.clock, 1000);
    expect(toA()).toEqual([ack]);
    expect(h.ctx.counters.nacksSent).toBe(0);
  });

  it('relays an ack that comes after its nack, but none after its own probe timeout', () => {
    const late = helping(pingReq(true));
    run(late.h.clock, 450);
    late.prober.handleAck(late.seq);
    expect(late.toA()).toEqual([nack, ack]);
    const tooLate = helping(pingReq(true));
    run(tooLate.h.clock, 500);
    tooLate.prober.handleAck(tooLate.seq);
    expect(tooLate.toA()).toEqual([nack]);
  });

  it('without nack asked, only relays the ack', () => {
    const { h, prober, toA, seq } = helping(pingReq(false));
    run(h.clock, 450);
    expect(toA()).toEqual([]);
    prober.handleAck(seq);
    expect(toA()).toEqual([ack]);
  });

  it('sends no nack once it stopped running', () => {
    const { h, toA } = helping(pingReq(true));
    h.ctx.lifecycle.phase = 'stopped';
    run(h.clock, 1000);
    expect(toA()).toEqual([]);
    expect(h.ctx.counters.nacksSent).toBe(0);
  });
});

describe('Prober.pingOnce', () => {
  function once(accuse?: boolean) {
    const h = harness();
    const b = h.know('b', SUSPECT, 3);
    const accusation: SuspectUpdate = { kind: 'suspect', name: 'b', incarnation: 3, from: 'self' };
    const prober = new Prober(h.ctx, fakePort(new Map([[b, accusation]])).port, undefined);
    const done: Array<[number, boolean]> = [];
    const answer = (acked: boolean) => done.push([h.clock.now(), acked]);
    if (accuse === undefined) prober.pingOnce(b, 300, answer);
    else prober.pingOnce(b, 300, answer, accuse);
    const ping = h.packets[0]!;
    return { h, prober, done, accusation, ping, seq: ping.packet.type === 'ping' ? ping.packet.seq : -1 };
  }

  it('carries the accusation only when asked to accuse', () => {
    const plain = { type: 'ping', seq: 1, from: 'self', target: 'b', updates: [] };
    expect(once().ping).toEqual({ to: addressOf('b'), packet: plain });
    expect(once(false).ping.packet).toEqual(plain);
    const accused = once(true);
    expect(accused.ping.packet).toEqual({ ...plain, updates: [accused.accusation] });
    // Accusing a member held nothing against sends no update.
    const h = harness();
    const c = h.know('c');
    new Prober(h.ctx, fakePort().port, undefined).pingOnce(c, 300, () => {}, true);
    expect(h.packets[0]!.packet.updates).toEqual([]);
  });

  it('answers false at the timeout, not before, and forgets the ping', () => {
    const { h, prober, done, seq } = once();
    run(h.clock, 299);
    expect(done).toEqual([]);
    run(h.clock, 1);
    expect(done).toEqual([[300, false]]);
    prober.handleAck(seq);
    expect(done).toEqual([[300, false]]);
  });

  it('answers true on the ack, once', () => {
    const { h, prober, done, seq } = once();
    run(h.clock, 120);
    prober.handleAck(seq);
    prober.handleAck(seq);
    run(h.clock, 1000);
    expect(done).toEqual([[120, true]]);
  });

  it('is not cut short by the end of a probe period that sent no ping-req', () => {
    // The one-off ping takes sequence number 1; the probe that follows, acked, has no ping-req round, and
    // the end of its period must forget only its own numbers.
    const h = harness();
    const c = h.know('c');
    const prober = new Prober(h.ctx, fakePort().port, undefined);
    const done: boolean[] = [];
    prober.pingOnce(c, 10_000, (acked) => done.push(acked));
    prober.start();
    run(h.clock, h.clock.nextDueMs()!); // the first tick: c is probed, with sequence number 2
    expect(h.packets.map((p) => (p.packet.type === 'ping' ? p.packet.seq : -1))).toEqual([1, 2]);
    prober.handleAck(2);
    run(h.clock, h.ctx.config.probeIntervalMs); // the period ends
    prober.handleAck(1);
    expect(done).toEqual([true]);
  });
});

import { describe, expect, it } from 'vitest';
import { SUSPECT } from '../../src/membership/member-state.js';
import type { SuspectUpdate } from '../../src/swim/messages.js';
import { Prober, type ProberPort } from '../../src/swim/prober.js';
import { addressOf, harness, run } from './swim-context.js';

/** A port that records what the prober asks and holds `accusations` against members. */
function fakePort(accusations = new Map<number, SuspectUpdate>()) {
  const calls: string[] = [];
  const port: ProberPort = {
    accusationOf: (id) => accusations.get(id),
    ownSuspectToProbe: () => -1,
    probing: (id) => calls.push(`probing ${id}`),
    probeFailed: (id, counted) => calls.push(`failed ${id} ${counted}`),
    probeRefused: (id) => calls.push(`refused ${id}`),
    periodStarted: () => calls.push('period'),
  };
  return { port, calls };
}

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
    expect(
      h.streams.map((s) => [s.to, s.message.type, s.message.type === 'ack' ? s.message.seq : -1]),
    ).toEqual([[addressOf('b'), 'ack', 3]]);
  });
});

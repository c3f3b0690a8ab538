/**
 * One probe of the prober, over a fake port (SWIM section 3.1, Lifeguard's nacks, memberlist's fallback):
 * the ping; one probe timeout T later the ping-reqs to live helpers and the stream fallback; with a
 * connection check, the connect at T / 5 first; the verdict at the end of the period. lan: I = 1000 ms,
 * T = 500 ms, k = 3 helpers; the harness answers a connection 1 ms after it is tried.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, SUSPECT } from '../../src/membership/member-state.js';
import { AdaptiveTimeout } from '../../src/swim/adaptive-timeout.js';
import { MemberDirectory } from '../../src/swim/directory.js';
import { MemberView } from '../../src/swim/member-view.js';
import { Outbox } from '../../src/swim/outbox.js';
import { Prober } from '../../src/swim/prober.js';
import { memberlistLan } from '../../src/swim/profiles.js';
import { fakePort, recorder, seqOf } from './prober-fakes.js';
import { addressOf, type Harness, type HarnessOptions, harness } from './swim-context.js';

const I = memberlistLan.probeIntervalMs;
const T = memberlistLan.probeTimeoutMs;

/**
 * A prober started on a harness that knows b (which never answers), helpers c and d, e suspected and f
 * dead; the port names b as the suspect to probe first. Time runs up to its first ping.
 */
function probingB(options: HarnessOptions = {}) {
  const h = harness(options);
  const b = h.know('b');
  h.know('c');
  h.know('d');
  h.know('e', SUSPECT);
  h.know('f', DEAD);
  const fake = fakePort(undefined, [b]);
  const prober = new Prober(h.ctx, fake.port, undefined);
  const rec = recorder(h);
  prober.start();
  rec.advance(h.clock.nextDueMs()! - h.clock.now()); // the first tick, at a random phase
  const ping = rec.log[0]!;
  return { h, b, prober, rec, ...fake, ping, t0: ping.atMs };
}

/** What left at `atMs` or later. */
const after = <S extends { atMs: number }>(log: readonly S[], atMs: number): S[] =>
  log.filter((s) => s.atMs >= atMs);

describe('Prober: the probe timeline', () => {
  it('without a connection check: the ping, then one probe timeout later the ping-reqs and the fallback', () => {
    const { h, rec, ping, t0 } = probingB();
    const p = seqOf(ping);
    expect(ping).toEqual({
      atMs: t0,
      via: 'datagram',
      to: addressOf('b'),
      message: { type: 'ping', seq: p, from: 'self', target: 'b', updates: [] },
    });
    rec.advance(T - 0.001);
    expect(rec.log).toHaveLength(1); // nothing before the probe timeout
    rec.advance(0.001);
    // Helpers are the live members other than the target: c and d (e is suspected, f dead). The ping-reqs
    // share the next sequence number, the fallback the one after.
    const req = (helper: string) => ({
      atMs: t0 + T,
      via: 'datagram',
      to: addressOf(helper),
      message: {
        type: 'ping-req',
        seq: p + 1,
        from: 'self',
        target: 'b',
        targetAddress: addressOf('b'),
        nack: true,
        updates: [],
      },
    });
    const sent = rec.log.slice(1);
    expect(sent.filter((s) => s.via === 'datagram').sort((x, y) => x.to.localeCompare(y.to))).toEqual([
      req('c'),
      req('d'),
    ]);
    expect(sent.filter((s) => s.via === 'stream')).toEqual([
      {
        atMs: t0 + T,
        via: 'stream',
        to: addressOf('b'),
        message: { type: 'ping', seq: p + 2, from: 'self', target: 'b', updates: [] },
      },
    ]);
    expect(sent).toHaveLength(3);
    expect(h.ctx.counters.indirectProbes).toBe(2);
    expect(h.ctx.counters.fallbackPings).toBe(1);
    expect(h.connects).toEqual([]);
  });

  it('without a connection check, the ping-req round is due exactly one probe timeout after the ping', () => {
    // One deadline at the ping's time + the timeout, here an adaptive one of 1000 / 3 ms: no sum of
    // partial delays, whose rounding could move it.
    const timeoutMs = 1000 / 3;
    for (let seed = 1; seed <= 100; seed++) {
      const h = harness({ seed });
      const b = h.know('b');
      h.know('c');
      const rec = recorder(h);
      new Prober(h.ctx, fakePort(undefined, [b]).port, new FixedTimeout(timeoutMs)).start();
      rec.advance(h.clock.nextDueMs()! - h.clock.now() + timeoutMs);
      const [ping, ...round] = rec.log;
      expect(
        round.filter((s) => s.via === 'stream'),
        `seed ${seed}`,
      ).toHaveLength(1);
      for (const s of round) expect(s.atMs, `seed ${seed}`).toBe(ping!.atMs + timeoutMs);
    }
  });

  it('with a connection check: the connect at one fifth of the probe timeout, the ping-reqs at the timeout', () => {
    const { rec, t0 } = probingB({ connect: true });
    rec.advance(T / 5 - 0.001);
    expect(rec.log).toHaveLength(1);
    rec.advance(0.001);
    expect(rec.log.slice(1)).toEqual([{ atMs: t0 + T / 5, via: 'connect', to: addressOf('b') }]);
    rec.advance(T - T / 5 - 0.001);
    expect(rec.log).toHaveLength(2); // an accepted connection proves nothing, and nothing else is due yet
    rec.advance(0.002);
    const reqs = rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping-req');
    expect(reqs).toHaveLength(2);
    // T / 5 + 4T / 5: equal to T up to the rounding of the sums.
    for (const r of reqs) expect(r.atMs).toBeCloseTo(t0 + T, 9);
    expect(rec.log.filter((s) => s.via === 'stream')).toHaveLength(1);
  });

  it('a refused connection is reported, sends no fallback, and the failure is counted as refused', () => {
    const { h, b, rec, calls, t0 } = probingB({ connect: true });
    h.refusing.add(addressOf('b'));
    rec.advance(T / 5 + 1);
    expect(calls).toEqual(['period', `probing ${b}`, `refused ${b}`]);
    rec.advance(I - T / 5 - 1);
    expect(after(rec.log, t0 + T).filter((s) => s.via === 'stream')).toEqual([]);
    expect(rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping-req')).toHaveLength(2);
    expect(calls).toContain(`failed ${b} true`);
  });

  it.each(['ack', 'stop'])('a refusal that comes after the %s is ignored', (what) => {
    const { h, prober, rec, calls, ping } = probingB({ connect: true });
    h.refusing.add(addressOf('b'));
    rec.advance(T / 5 + 0.5);
    if (what === 'ack') prober.handleAck(seqOf(ping));
    else prober.stop();
    rec.advance(0.5);
    expect(calls.filter((c) => c.startsWith('refused'))).toEqual([]);
  });

  it('stop() cancels the next period, and the probe in flight neither connects nor asks helpers', () => {
    for (const connect of [false, true]) {
      const { h, prober, rec } = probingB({ connect });
      rec.advance(T / 10);
      prober.stop();
      rec.advance(5 * I);
      expect(rec.log, `connect ${connect}`).toHaveLength(1);
      expect(h.connects).toEqual([]);
    }
    new Prober(harness().ctx, fakePort().port, undefined).stop(); // before start(): nothing to cancel
  });

  it('a member that stopped running neither asks helpers nor probes again', () => {
    const { h, rec, calls } = probingB();
    h.ctx.lifecycle.phase = 'stopped';
    rec.advance(5 * I);
    expect(rec.log).toHaveLength(1);
    expect(calls).toHaveLength(2); // the first period and its probe
  });
});

describe('Prober: the verdict at the end of the period', () => {
  /**
   * Seeds the health score at 3 once the first probe is under way (its period stays one interval), and
   * runs to the end of that period, `during` just after the ping-reqs.
   */
  function verdict(during: (reqSeq: number, fallbackSeq: number, prober: Prober) => void) {
    const t = probingB();
    t.h.ctx.health.awareness.apply(3);
    t.rec.advance(T);
    const reqSeq = seqOf(t.rec.log.find((s) => s.via === 'datagram' && s.message.type === 'ping-req'));
    during(reqSeq, reqSeq + 1, t.prober);
    t.rec.advance(I - T);
    return { ...t, score: t.h.ctx.health.awareness.score };
  }

  it('an ack relayed by a helper is a success: the score falls by one', () => {
    const { calls, score } = verdict((reqSeq, _, prober) => prober.handleAck(reqSeq));
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
    expect(score).toBe(2);
  });

  it('a failed probe raises the score by the nacks that did not come: 2 helpers, 1 nack, +1', () => {
    const { b, calls, score, h } = verdict((reqSeq, _, prober) => prober.handleNack(reqSeq));
    expect(calls).toContain(`failed ${b} false`);
    expect(score).toBe(4);
    expect(h.ctx.counters.nacksReceived).toBe(1);
  });

  it('a failed probe without helpers raises the score by one', () => {
    const h = harness();
    const b = h.know('b');
    const { port, calls } = fakePort();
    new Prober(h.ctx, port, undefined).start();
    recorder(h).advance(2 * I);
    expect(calls).toContain(`failed ${b} false`);
    expect(h.ctx.health.awareness.score).toBe(1);
  });

  it('the fallback ack is a success, counted once; after a helper’s ack it is not counted', () => {
    const alone = verdict((_, fallbackSeq, prober) => prober.handleAck(fallbackSeq));
    expect(alone.score).toBe(2);
    expect(alone.h.ctx.counters.fallbackAcks).toBe(1);
    const second = verdict((reqSeq, fallbackSeq, prober) => {
      prober.handleAck(reqSeq);
      prober.handleAck(fallbackSeq);
    });
    expect(second.score).toBe(2);
    expect(second.h.ctx.counters.fallbackAcks).toBe(0);
  });

  it('a probe sent before a freeze ended convicts nobody', () => {
    const { h, b, rec, calls } = probingB();
    rec.advance(T);
    h.ctx.health.noteTimer(h.clock.now() - (T + 100)); // a timer that fired more than T late
    expect(h.ctx.health.freezeGuard?.trips).toBe(1);
    rec.advance(I - T); // the end of the period
    expect(calls).toEqual(['period', `probing ${b}`, 'period', expect.stringMatching(/^probing /)]);
  });

  it('without a freeze guard, a silent target fails', () => {
    const { b, rec, calls } = probingB({ freezeGuard: false });
    rec.advance(I);
    expect(calls).toContain(`failed ${b} false`);
  });
});

describe('Prober: the helpers', () => {
  it('never asks itself, even when its probe list holds it (a warm start lists every live member)', () => {
    const asked = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) {
      const h = harness({ seed });
      const b = h.know('b');
      for (const n of ['c', 'd', 'e']) h.know(n);
      h.ctx.view.assumeDirectoryMembers(1, [], h.ctx.random);
      expect(h.ctx.view.order.has(h.ctx.view.selfId)).toBe(true);
      const rec = recorder(h);
      new Prober(h.ctx, fakePort(undefined, [b]).port, undefined).start();
      rec.advance(h.clock.nextDueMs()! - h.clock.now() + T); // the first ping, then its ping-reqs
      for (const s of rec.log) if (s.via === 'datagram' && s.message.type === 'ping-req') asked.add(s.to);
    }
    expect([...asked].sort()).toEqual([addressOf('c'), addressOf('d'), addressOf('e')]);
  });
});

describe('Prober: the targets', () => {
  /** The targets of the first `periods` probes of two silent members b and c, for `seed`. */
  function targets(seed: number, periods: number, kill?: (h: Harness) => void): string[] {
    const h = harness({ seed });
    h.know('b');
    h.know('c');
    const rec = recorder(h);
    new Prober(h.ctx, fakePort().port, undefined).start();
    for (let i = 0; i < periods; i++) {
      rec.advance(I);
      kill?.(h);
    }
    return rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping').map((s) => s.to);
  }

  it('probes a target whose probe failed once more the next period, never a third time', () => {
    // Each failed probe (no helper) raises the score: periods of 1, 2, 3 and 4 intervals.
    for (let seed = 1; seed <= 6; seed++) {
      const [x, again, y, yAgain] = targets(seed, 10);
      expect(again, `seed ${seed}`).toBe(x);
      expect(y, `seed ${seed}`).not.toBe(x);
      expect(yAgain, `seed ${seed}`).toBe(y);
    }
  });

  it('does not probe again a target that died meanwhile', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const killed: string[] = [];
      const pings = targets(seed, 3, (h) => {
        // The first target dies before the second period starts.
        const first = h.packets.find((p) => p.packet.type === 'ping');
        if (first === undefined || killed.length > 0) return;
        const name = first.to === addressOf('b') ? 'b' : 'c';
        killed.push(name);
        h.ctx.view.table.set(h.id(name), DEAD, 1, h.clock.now());
      });
      expect(pings.slice(1), `seed ${seed}`).not.toContain(addressOf(killed[0]!));
    }
  });

  it('probes a member of id 0 like any other: taken from the port, from the round, and probed again', () => {
    // A shared directory in which b, not this member, has id 0.
    const h = harness();
    const directory = new MemberDirectory();
    const b = directory.intern('b', addressOf('b'));
    const self = directory.intern('self', addressOf('self'));
    const c = directory.intern('c', addressOf('c'));
    expect(b).toBe(0);
    const view = new MemberView(directory, self, h.clock, h.ctx.config.gossipToTheDeadMs);
    for (const id of [self, b, c]) view.table.set(id, ALIVE, 1, 0);
    view.order.add(c, h.ctx.random); // c alone in the round: b comes from the port
    const { port } = fakePort(undefined, [b]);
    const rec = recorder(h);
    new Prober({ ...h.ctx, view }, port, undefined).start();
    rec.advance(6 * I); // periods of 1, 2 and 3 intervals, each failed probe raising the score
    const pings = rec.log.filter((s) => s.via === 'datagram' && s.message.type === 'ping').map((s) => s.to);
    // b from the port, b again (its probe failed), then c from the round.
    expect(pings.slice(0, 3)).toEqual([addressOf('b'), addressOf('b'), addressOf('c')]);
  });
});

/** An adaptive timeout stuck at `fixedMs`. */
class FixedTimeout extends AdaptiveTimeout {
  constructor(private readonly fixedMs: number) {
    super({}, fixedMs);
  }
  override timeoutMs(): number {
    return this.fixedMs;
  }
}

/** An adaptive timeout that keeps the round trips it is given. */
class RecordedTimeout extends AdaptiveTimeout {
  readonly given: number[] = [];
  override record(rttMs: number): void {
    this.given.push(rttMs);
    super.record(rttMs);
  }
}

describe('Prober: the direct ack', () => {
  it('gives the adaptive timeout its round trip, and lowers the score without a freeze guard too', () => {
    const h = harness({ freezeGuard: false });
    h.know('b');
    h.ctx.health.awareness.apply(2);
    const timeout = new RecordedTimeout({}, T);
    const prober = new Prober(h.ctx, fakePort().port, timeout);
    const rec = recorder(h);
    prober.start();
    rec.advance(h.clock.nextDueMs()! - h.clock.now());
    rec.advance(7);
    prober.handleAck(seqOf(rec.log[0]));
    expect(timeout.given).toEqual([7]);
    rec.advance(3 * I); // the end of the period
    expect(h.ctx.health.awareness.score).toBe(1);
  });

  it('an ack that comes back within the send of the ping counts: no ping-req, no failure', () => {
    // A transport that delivers at once: b's ack arrives before the ping's send returns.
    const h = harness();
    h.know('b');
    let prober: Prober | undefined;
    const sends: string[] = [];
    const outbox = new Outbox(
      h.ctx.config,
      {
        clock: h.clock,
        random: h.ctx.random,
        sendPacket: (to, packet) => {
          sends.push(`${packet.type} ${to}`);
          if (packet.type === 'ping') prober?.handleAck(packet.seq);
        },
        sendStream: (to, message) => sends.push(`stream ${message.type} ${to}`),
        emit: () => {},
      },
      h.ctx.view,
      h.ctx.counters,
      () => {},
    );
    const { port, calls } = fakePort();
    prober = new Prober({ ...h.ctx, outbox }, port, undefined);
    prober.start();
    recorder(h).advance(2 * I);
    expect(sends).toEqual([`ping ${addressOf('b')}`, `ping ${addressOf('b')}`]);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
  });
});

/**
 * The prober's evidence of a silent host: the `silent` flag it gives `probeFailed`, and the connection
 * it tries for it. lan: I = 1000 ms, T = 500 ms, hostSilenceMs = 1500. The probe of b (helpers c and d):
 * the ping at t0, the connection at t0 + T/5 = t0 + 100, the ping-reqs at t0 + 500, a helper's nack at
 * 80 % of its own timeout (t0 + 900), the verdict at the end of the period, t0 + 1000.
 */
import { describe, expect, it } from 'vitest';
import type { SwimConfig } from '../../src/swim/config.js';
import { Prober } from '../../src/swim/prober.js';
import { memberlistLan, wan } from '../../src/swim/profiles.js';
import { ACCEPTED, REFUSED, type Reply, silenceHarness } from './host-silence-fixture.js';
import { fakePort, recorder, seqOf } from './prober-fakes.js';
import { addressOf, harness } from './swim-context.js';

/**
 * The values these tests work their times out from: memberlist's, with a 1.5 s host silence and
 * suspicionMult 6 (the shipped `lan` differs; test/swim/timing.test.ts pins it).
 */
const SILENT_LAN: SwimConfig = { ...memberlistLan, suspicionMult: 6, hostSilenceMs: 1500 };

const I = SILENT_LAN.probeIntervalMs;
const T = SILENT_LAN.probeTimeoutMs;
const NACK_AT = T + 0.8 * T;

interface Script {
  readonly config?: Partial<SwimConfig>;
  /** How b's host answers the connection. */
  readonly reply?: Reply;
  /** Nacks from the helpers, at t0 + 900. */
  readonly nacks?: number;
  /** Runs at t0 + 300, between the connection and the ping-reqs; `ping` is the probe's sequence number. */
  readonly during?: (prober: Prober, ping: number) => void;
}

/** One probe of b on SILENT_LAN (or `config`) to the end of its period; the port's calls, and the attempts. */
function probeB(script: Script = {}) {
  const f = silenceHarness(script.config ?? SILENT_LAN);
  const { h } = f;
  const b = h.know('b');
  h.know('c');
  h.know('d');
  f.reply = () => script.reply ?? 'silent';
  const fake = fakePort(undefined, [b]);
  const prober = new Prober(h.ctx, fake.port, undefined);
  const rec = recorder(h);
  prober.start();
  rec.advance(h.clock.nextDueMs()! - h.clock.now()); // the first tick, at a random phase
  const t0 = h.clock.now();
  rec.advance(0.3 * T);
  script.during?.(prober, seqOf(rec.log[0]));
  rec.advance(NACK_AT - 0.3 * T);
  const req = rec.log.find((s) => s.via === 'datagram' && s.message.type === 'ping-req');
  if (req !== undefined) for (let i = 0; i < (script.nacks ?? 1); i++) prober.handleNack(seqOf(req));
  rec.advance(I - NACK_AT);
  const verdict = fake.calls.filter((c) => c.startsWith(`failed ${b}`));
  return { ...f, b, t0, prober, rec, calls: fake.calls, verdict };
}

describe('Prober: the silent flag', () => {
  it('is set when the connection got no answer, a nack came and nothing came from the target', () => {
    const { b, verdict, attempts, t0 } = probeB();
    expect(verdict).toEqual([`failed ${b} false silent`]);
    expect(attempts).toEqual([{ to: addressOf('b'), atMs: t0 + T / 5, timeoutMs: I + 1500 }]);
  });

  it('with hostSilenceMs 0 (memberlist-lan) the connection is the plain check, given the probe timeout', () => {
    const { attempts, t0 } = probeB({ config: memberlistLan });
    expect(attempts).toEqual([
      { to: addressOf('b'), atMs: t0 + T / 5, timeoutMs: memberlistLan.probeTimeoutMs },
    ]);
  });

  // With hostSilenceMs 0 the prober does not listen for an accepted connection: the flag must not claim a
  // silence it did not check.
  it('is not set with hostSilenceMs 0 (memberlist-lan), even for a host that accepted', () => {
    const { b, verdict } = probeB({ config: memberlistLan, reply: ACCEPTED });
    expect(verdict).toEqual([`failed ${b} false`]);
  });

  it('is not set without a nack: this member may be the one cut off', () => {
    const { b, verdict } = probeB({ nacks: 0 });
    expect(verdict).toEqual([`failed ${b} false`]);
  });

  it('is set with one nack of two: another vantage point is enough', () => {
    const { b, verdict, h } = probeB({ nacks: 1 });
    expect(verdict).toEqual([`failed ${b} false silent`]);
    expect(h.ctx.counters.nacksReceived).toBe(1);
  });

  it('is not set when a packet from the target arrived during the probe', () => {
    const { b, verdict } = probeB({ during: (p) => p.heardFrom('b') });
    expect(verdict).toEqual([`failed ${b} false`]);
  });

  it('is set when packets came from others only, or from the target before the probe', () => {
    const others = probeB({ during: (p) => p.heardFrom('c') });
    expect(others.verdict).toEqual([`failed ${others.b} false silent`]);
    // Heard of in an earlier period: a host that crashed since is silent now.
    const f = silenceHarness(SILENT_LAN);
    const b = f.h.know('b');
    f.h.know('c');
    const fake = fakePort(undefined, [b]);
    const prober = new Prober(f.h.ctx, fake.port, undefined);
    const rec = recorder(f.h);
    prober.heardFrom('b');
    prober.start();
    rec.advance(f.h.clock.nextDueMs()! - f.h.clock.now() + NACK_AT);
    const req = rec.log.find((s) => s.via === 'datagram' && s.message.type === 'ping-req');
    prober.handleNack(seqOf(req));
    rec.advance(I - NACK_AT);
    expect(fake.calls).toContain(`failed ${b} false silent`);
  });

  it('is not set when the host accepted the connection during the period, which is not reported apart', () => {
    const { b, verdict, calls } = probeB({ reply: ACCEPTED });
    expect(verdict).toEqual([`failed ${b} false`]);
    expect(calls.filter((c) => c.startsWith('answered'))).toEqual([]);
  });

  it('is set when the host accepts only after the period; the acceptance is then reported', () => {
    // A SYN lost once is sent again 1 s later: accepted at t0 + 100 + 1200 = t0 + 1300.
    const { b, verdict, calls, rec, t0, h } = probeB({ reply: { outcome: 'accepted', afterMs: 1200 } });
    expect(verdict).toEqual([`failed ${b} false silent`]);
    rec.advance(t0 + 1300 - 0.001 - h.clock.now());
    expect(calls.filter((c) => c.startsWith('answered'))).toEqual([]);
    rec.advance(0.001);
    expect(calls.filter((c) => c.startsWith('answered'))).toEqual([`answered ${b}`]);
  });

  it('is not set when the port refused: the refusal is the evidence then', () => {
    const { b, verdict, calls } = probeB({ reply: REFUSED });
    expect(verdict).toEqual([`failed ${b} true`]);
    expect(calls).toContain(`refused ${b}`);
  });

  it('is not set when no connection could be tried (an environment without a kernel)', () => {
    const h = harness({ config: SILENT_LAN });
    const b = h.know('b');
    h.know('c');
    const fake = fakePort(undefined, [b]);
    const prober = new Prober(h.ctx, fake.port, undefined);
    const rec = recorder(h);
    prober.start();
    rec.advance(h.clock.nextDueMs()! - h.clock.now() + NACK_AT);
    const req = rec.log.find((s) => s.via === 'datagram' && s.message.type === 'ping-req');
    prober.handleNack(seqOf(req));
    rec.advance(I - NACK_AT);
    expect(fake.calls).toContain(`failed ${b} false`);
    expect(h.connects).toEqual([]);
  });

  it('a probe that was acked fails nothing', () => {
    const { verdict, calls } = probeB({ during: (p, ping) => p.handleAck(ping) });
    expect(verdict).toEqual([]);
    expect(calls.filter((c) => c.startsWith('failed'))).toEqual([]);
  });
});

describe('Prober: the connection tried for the silence', () => {
  it.each([
    { name: 'the test values', config: SILENT_LAN, timeoutMs: 1000 + 1500 },
    { name: 'wan with a 5 s silence', config: { ...wan, hostSilenceMs: 5000 }, timeoutMs: 5000 + 5000 },
    {
      name: 'I 2000, T 800, silence 3000',
      config: { ...SILENT_LAN, probeIntervalMs: 2000, probeTimeoutMs: 800, hostSilenceMs: 3000 },
      timeoutMs: 2000 + 3000,
    },
  ])('is given the rest of the period and the silence: $name, $timeoutMs ms', ({ config, timeoutMs }) => {
    const f = silenceHarness(config);
    const b = f.h.know('b');
    f.h.know('c');
    const prober = new Prober(f.h.ctx, fakePort(undefined, [b]).port, undefined);
    prober.start();
    const t0 = f.h.clock.nextDueMs()!;
    recorder(f.h).advance(t0 - f.h.clock.now() + config.probeTimeoutMs);
    expect(f.attempts).toEqual([{ to: addressOf('b'), atMs: t0 + config.probeTimeoutMs / 5, timeoutMs }]);
  });
});

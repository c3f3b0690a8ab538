/**
 * `SwimCore`'s public surface, member by member: the typed errors of its methods, what its options turn
 * on and off, and what `members()`, `stateOf()` and its counters report. One core alone over a recording
 * environment on a virtual clock; what it knows it learns from push-pulls and packets written by hand.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, LifecycleError } from '../../src/errors.js';
import { USER_PAYLOAD_BYTES_MAX } from '../../src/membership/limits.js';
import type { SwimCore, SwimCoreOptions } from '../../src/swim/core.js';
import { FreezableClock } from '../heartbeat/heartbeat-harness.js';
import { alive, type SoloKernel, solo } from './core-solo.js';
import { addressOf } from './swim-scripted.js';

/** What `f` threw. */
function thrown(f: () => void): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('SwimCore: the errors of its methods', () => {
  const payload = Uint8Array.of(1);
  const calls: ReadonlyArray<readonly [string, (c: SwimCore) => void]> = [
    ['join', (c) => c.join(['x:1'])],
    ['leave', (c) => c.leave()],
    ['updateMetadata', (c) => c.updateMetadata(payload)],
    ['broadcast', (c) => c.broadcast(payload)],
    ['send', (c) => c.send('x:1', payload)],
  ];

  it.each(calls)('%s() before start() names itself and what to do', (method, call) => {
    const { core } = solo();
    const e = thrown(() => call(core));
    expect(e).toBeInstanceOf(LifecycleError);
    expect(e).toMatchObject({
      code: 'FDKIT_NOT_STARTED',
      message: `SwimCore: ${method}() needs a started member that has not stopped; call start() first`,
    });
  });

  it('start() a second time says it may be called once', () => {
    const { core } = solo();
    core.start();
    expect(thrown(() => core.start())).toMatchObject({
      code: 'FDKIT_ALREADY_STARTED',
      message: 'SwimCore: start() may be called once, on a new member',
    });
  });

  it.each([
    ['broadcast', (c: SwimCore, p: Uint8Array) => c.broadcast(p)],
    ['send', (c: SwimCore, p: Uint8Array) => c.send(addressOf('b'), p)],
  ] as const)('%s() refuses a payload that is no Uint8Array, or over 64,512 bytes', (method, call) => {
    const { core } = solo();
    core.start();
    const message = `SwimCore: ${method} payload must be a Uint8Array of at most 64512 bytes`;
    for (const p of ['text' as unknown as Uint8Array, new Uint8Array(USER_PAYLOAD_BYTES_MAX + 1)]) {
      const e = thrown(() => call(core, p));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e).toMatchObject({ code: 'FDKIT_INVALID_ARGUMENT', argument: 'payload', message });
    }
  });

  it('send() takes a payload of up to 64,512 bytes, and adds no update of its own making', () => {
    const { core, packets } = solo();
    core.start();
    core.send(addressOf('b'), Uint8Array.of(1, 2));
    core.send(addressOf('b'), new Uint8Array(USER_PAYLOAD_BYTES_MAX));
    const sent = packets.filter((p) => p.packet.type === 'user');
    // The small one carries the alive statement start() queued; the large one has no room for it.
    expect(
      sent.map((p) => [p.to, p.packet.updates.map((u) => [u.kind, u.kind === 'user' ? u.origin : u.name])]),
    ).toEqual([
      [addressOf('b'), [['alive', 'solo']]],
      [addressOf('b'), []],
    ]);
  });

  it('broadcast() takes what fits one gossip packet of packetBytesMax, and names the limit beyond', () => {
    const { core } = solo();
    core.start();
    // A gossip packet from "solo": 3 bytes of envelope + 5 of name, and 3 for the update array's header
    // at its largest, leave 1400 − 11 = 1389 bytes for the update: 2 + 5 (origin) + 1 (seq) + the
    // payload with its 3-byte header, so at most 1378 bytes of payload.
    expect(thrown(() => core.broadcast(new Uint8Array(1379)))).toMatchObject({
      code: 'FDKIT_INVALID_ARGUMENT',
      argument: 'payload',
      message:
        'SwimCore: broadcast payload of 1379 bytes does not fit packetBytesMax (1400); send it directly, or raise packetBytesMax',
    });
    const before = core.pendingBroadcasts;
    core.broadcast(new Uint8Array(1378));
    expect(core.pendingBroadcasts).toBe(before + 1);
  });
});

describe('SwimCore: what its packets and streams do', () => {
  it('counts every packet received, and answers only the pings meant for it', () => {
    const { core, packets, learn } = solo();
    core.start();
    learn(alive('b'));
    packets.length = 0;
    core.handlePacket(addressOf('b'), { type: 'gossip', from: 'b', updates: [] });
    core.handlePacket(addressOf('b'), { type: 'ping', seq: 4, from: 'b', target: 'other', updates: [] });
    expect([core.counters.packetsReceived, core.counters.misdirectedPings, packets]).toEqual([2, 1, []]);
    core.handlePacket(addressOf('b'), { type: 'ping', seq: 5, from: 'b', target: 'solo', updates: [] });
    expect(core.counters.packetsReceived).toBe(3);
    expect(packets.map((p) => [p.to, p.packet.type, p.packet.type === 'ack' && p.packet.seq])).toEqual([
      [addressOf('b'), 'ack', 5],
    ]);
  });

  it('exchanges state with a stranger that pings it, not with a member it knows', () => {
    const { core, streams, learn } = solo();
    core.start();
    learn(alive('b'));
    streams.length = 0;
    core.handlePacket(addressOf('b'), { type: 'ping', seq: 1, from: 'b', target: 'solo', updates: [] });
    expect(streams).toEqual([]);
    core.handlePacket(addressOf('x'), { type: 'ping', seq: 2, from: 'x', target: 'solo', updates: [] });
    expect(streams.map((s) => [s.to, s.message.type])).toEqual([[addressOf('x'), 'push-pull']]);
  });
});

describe('SwimCore: members(), stateOf() and phi', () => {
  /** b heard from twice a second for 10 s, then silent for 1 s, a probe it got meanwhile unanswered. */
  function heardThenSilent(options: Partial<SwimCoreOptions>) {
    const s = solo(options);
    s.core.start();
    s.learn(alive('b'));
    for (let k = 0; k < 10; k++) {
      s.clock.advance(1000);
      s.core.handlePacket(addressOf('b'), { type: 'gossip', from: 'b', updates: [] });
      s.core.handleStream(addressOf('b'), { type: 'ack', seq: 99, from: 'b', updates: [] });
    }
    s.clock.advance(1000);
    return s;
  }

  it('lists itself and every member it knows, in directory order, each with the phi of its silence', () => {
    const { core } = heardThenSilent({ incarnation: 3 });
    const members = core.members();
    expect(members.map((m) => [m.name, m.address, m.incarnation, m.meta.length])).toEqual([
      ['solo', addressOf('solo'), 3, 0],
      ['b', addressOf('b'), 1, 0],
    ]);
    expect(members[0]!.state).toBe('alive');
    // Messages half a second apart on average (a packet and a stream each second), then 1 s of silence:
    // twice the mean interval, beyond phi 0.
    expect(members[1]!.phi).toBeGreaterThan(0);
    expect(members[0]!.phi).toBe(0); // never "heard from" itself
    expect([core.stateOf('b'), core.stateOf('nobody')]).toEqual([members[1]!.state, undefined]);
  });

  it('with trackPhi false, hears the same and reports phi 0', () => {
    const { core } = heardThenSilent({ trackPhi: false });
    expect(core.members().map((m) => [m.name, m.phi])).toEqual([
      ['solo', 0],
      ['b', 0],
    ]);
    expect(core.counters.packetsReceived).toBe(10);
  });
});

describe('SwimCore: options', () => {
  it('adaptiveProbeTimeoutMs is undefined without the option, and the probe timeout until round trips are measured', () => {
    expect(solo().core.adaptiveProbeTimeoutMs).toBeUndefined();
    expect(solo({ adaptiveProbeTimeout: {} }).core.adaptiveProbeTimeoutMs).toBe(500);
  });

  it.each([
    {
      why: 'the environment can watch and connect',
      options: {},
      kernel: { connect: 'accepted', watch: true },
      on: true,
    },
    {
      why: 'deathWatch is false',
      options: { deathWatch: false },
      kernel: { connect: 'accepted', watch: true },
      on: false,
    },
    { why: 'the environment cannot watch', options: {}, kernel: { connect: 'accepted' }, on: false },
    { why: 'the environment cannot connect', options: {}, kernel: { watch: true }, on: false },
  ] satisfies ReadonlyArray<{
    why: string;
    options: Partial<SwimCoreOptions>;
    kernel: SoloKernel;
    on: boolean;
  }>)('watches its successors on the ring only when $why', ({ options, kernel, on }) => {
    const s = solo(options, kernel);
    s.core.start();
    s.learn(alive('b'), alive('c'), alive('d'));
    s.clock.advance(2000);
    // The next two after "solo" on the ring of names b, c, d, solo: b and c.
    expect([s.core.watching.sort(), s.watched.sort()]).toEqual(
      on
        ? [
            ['b', 'c'],
            [addressOf('b'), addressOf('c')],
          ]
        : [[], []],
    );
  });

  /** The core probes b, then freezes for 3 s before the probe's timeout: it runs at the thaw. */
  function frozenDuringProbe(options: Partial<SwimCoreOptions>) {
    let freezable: FreezableClock | undefined;
    const s = solo(options, {
      clock: (c) => {
        freezable = new FreezableClock(c);
        return freezable;
      },
    });
    s.core.start();
    s.learn(alive('b'));
    while (!s.packets.some((p) => p.packet.type === 'ping' && p.to === addressOf('b'))) s.clock.runNext();
    freezable!.frozen = true;
    s.clock.advance(3000);
    const thawMs = s.clock.now();
    freezable!.thaw();
    return { ...s, thawMs };
  }

  it('by default, does not count a probe that a freeze of its own made time out (the freeze guard)', () => {
    const { core, events } = frozenDuringProbe({});
    expect(core.stateOf('b')).toBe('alive');
    expect(events.filter((e) => e.type === 'suspect')).toEqual([]);
  });

  it('with freezeGuard false, suspects the member whose probe timed out during its freeze, at the thaw', () => {
    const { core, events, thawMs } = frozenDuringProbe({ freezeGuard: false });
    expect(core.stateOf('b')).toBe('suspect');
    expect(events.filter((e) => e.type === 'suspect').map((e) => e.atMs)).toEqual([thawMs]);
  });
});

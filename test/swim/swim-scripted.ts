/**
 * One real `SwimCore` among scripted peers, on a virtual clock. The peers are not SWIM members: each
 * answers what the core sends it the way a live (or a paused) member would, and nothing else. They never
 * gossip, never probe and never suspect anyone, so whatever the core concludes it concludes alone, from
 * its own probes: a suspicion it raises gets no confirmation from anyone. Only the public surface of the
 * core is used (its constructor, `handlePacket`, `handleStream`, its events and counters, and what it
 * sends through its environment), so these tests survive a reorganisation of its internals.
 *
 * Every datagram and stream message takes 1 ms each way.
 */

import type { Watch, WatchEnd } from '../../src/membership/connection.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { SwimCore, type SwimCoreOptions } from '../../src/swim/core.js';
import type { SwimEnvironment } from '../../src/swim/environment.js';
import { isMemberEvent } from '../../src/swim/events.js';
import type { MemberList, Packet, PushPull, StreamMessage, Update } from '../../src/swim/messages.js';
import { memberlistLan } from '../../src/swim/profiles.js';

export const WALL_START_MS = 1_700_000_000_000;
export const LATENCY_MS = 1;

export const addressOf = (name: string): string => `${name}.test:7946`;

/** A scripted peer: how it answers, changeable at any time by the test. */
export interface ScriptedPeer {
  readonly name: string;
  readonly address: string;
  incarnation: number;
  /** While true it answers nothing (a paused or cut-off process). */
  silent: boolean;
  /** Whether it refutes an accusation it receives (on the ack it sends back). */
  refutes: boolean;
}

/** One datagram the core sent, with the core's local health when it sent it. */
export interface Sent {
  readonly atMs: number;
  readonly to: string;
  readonly packet: Packet;
  readonly localHealth: number;
}

/** How a watch the core opens to a peer behaves. */
export type WatchScript = (peer: string) => 'open' | WatchEnd;

export interface ScriptedOptions {
  readonly peers: readonly string[];
  readonly config?: Partial<SwimConfig>;
  readonly seed?: number;
  readonly name?: string;
  /** Gives the core `probeConnect` (always `accepted`) and `watch`, which ends as this says. */
  readonly watch?: WatchScript;
  readonly core?: Partial<SwimCoreOptions>;
}

export class Scripted {
  readonly clock = new VirtualClock({ wallStartMs: WALL_START_MS });
  readonly core: SwimCore;
  readonly peers = new Map<string, ScriptedPeer>();
  readonly sent: Sent[] = [];
  readonly streams: Array<{ atMs: number; to: string; message: StreamMessage }> = [];
  readonly events: MemberEvent[] = [];
  /** Every watch the core opened: when, and to whom. */
  readonly watches: Array<{ atMs: number; to: string }> = [];
  private readonly byAddress = new Map<string, ScriptedPeer>();

  constructor(options: ScriptedOptions) {
    const name = options.name ?? 'a';
    for (const p of options.peers) {
      const peer: ScriptedPeer = {
        name: p,
        address: addressOf(p),
        incarnation: 1,
        silent: false,
        refutes: true,
      };
      this.peers.set(p, peer);
      this.byAddress.set(peer.address, peer);
    }
    const watch = options.watch;
    const kernel: Pick<SwimEnvironment, 'probeConnect' | 'watch'> =
      watch === undefined
        ? {}
        : {
            probeConnect: (_to, _timeoutMs, done) => {
              this.clock.setTimer(LATENCY_MS, () => done('accepted'));
            },
            watch: (to, onEnd): Watch => {
              this.watches.push({ atMs: this.clock.now(), to });
              const peer = this.byAddress.get(to);
              const outcome = peer === undefined ? 'failed' : watch(peer.name);
              let live = true;
              if (outcome !== 'open') {
                this.clock.setTimer(LATENCY_MS, () => {
                  if (live) onEnd(outcome);
                  live = false;
                });
              }
              return {
                cancel: () => {
                  live = false;
                },
              };
            },
          };
    const env: SwimEnvironment = {
      clock: this.clock,
      random: new Random(options.seed ?? 1),
      sendPacket: (to, packet) => {
        this.sent.push({ atMs: this.clock.now(), to, packet, localHealth: this.core.localHealth });
        const peer = this.byAddress.get(to);
        if (peer !== undefined) this.clock.setTimer(LATENCY_MS, () => this.receive(peer, packet));
      },
      sendStream: (to, message) => {
        this.streams.push({ atMs: this.clock.now(), to, message });
        const peer = this.byAddress.get(to);
        if (peer !== undefined) this.clock.setTimer(LATENCY_MS, () => this.receiveStream(peer, message));
      },
      emit: (event) => {
        if (isMemberEvent(event)) this.events.push(event);
      },
      ...kernel,
    };
    this.core = new SwimCore(
      // memberlist's values unless told otherwise: the tests work their timeouts out from them.
      { name, address: addressOf(name), config: { ...memberlistLan, ...options.config }, ...options.core },
      env,
    );
  }

  peer(name: string): ScriptedPeer {
    const p = this.peers.get(name);
    if (p === undefined) throw new Error(`no peer ${name}`);
    return p;
  }

  /** Starts the core and tells it of every peer, alive, by a state exchange from the first peer. */
  start(): void {
    this.core.start();
    const [first] = this.peers.keys();
    if (first === undefined) return;
    this.core.handleStream(addressOf(first), this.pushPull(first, [...this.peers.values()].map(aliveEntry)));
  }

  /** A push-pull request from `from` listing `entries`. */
  pushPull(from: string, entries: readonly ListEntry[]): PushPull {
    return { type: 'push-pull', from, join: false, reply: false, members: memberList(entries) };
  }

  /** Events about `member`. */
  about(member: string): MemberEvent[] {
    return this.events.filter((e) => e.member === member);
  }

  /** Runs every timer due in the next `ms` milliseconds. */
  run(ms: number): void {
    this.clock.advance(ms);
  }

  /** Runs timers one at a time until `done` holds; throws after `maxMs`. Returns the time it held. */
  runUntil(done: () => boolean, maxMs: number): number {
    const deadline = this.clock.now() + maxMs;
    while (!done()) {
      const due = this.clock.nextDueMs();
      if (due === undefined || due > deadline) throw new Error(`condition not met within ${maxMs} ms`);
      this.clock.runNext();
    }
    return this.clock.now();
  }

  /** The probes the core sent: pings as a prober (not the helper pings a ping-req would ask for). */
  pings(to?: string): Sent[] {
    return this.sent.filter((s) => s.packet.type === 'ping' && (to === undefined || s.to === addressOf(to)));
  }

  private answer(peer: ScriptedPeer, packet: Packet): void {
    this.clock.setTimer(LATENCY_MS, () => this.core.handlePacket(peer.address, packet));
  }

  private refutation(peer: ScriptedPeer, updates: readonly Update[]): Update[] {
    if (!peer.refutes) return [];
    let heard = -1;
    for (const u of updates) {
      if ((u.kind === 'suspect' || u.kind === 'dead') && u.name === peer.name) heard = u.incarnation;
    }
    if (heard < peer.incarnation) return [];
    peer.incarnation = heard + 1;
    return [aliveUpdate(peer)];
  }

  private receive(peer: ScriptedPeer, packet: Packet): void {
    if (peer.silent) return;
    switch (packet.type) {
      case 'ping': {
        if (packet.target !== peer.name) return;
        const updates = this.refutation(peer, packet.updates);
        this.answer(peer, { type: 'ack', seq: packet.seq, from: peer.name, updates });
        return;
      }
      case 'ping-req': {
        // The helper pings the target (1 ms each way) and relays its ack, or nacks at 80 % of its timeout.
        const target = this.peers.get(packet.target);
        const timeoutMs = this.core.config.probeTimeoutMs;
        this.clock.setTimer(2 * LATENCY_MS, () => {
          if (target !== undefined && !target.silent) {
            this.answer(peer, { type: 'ack', seq: packet.seq, from: peer.name, updates: [] });
          }
        });
        if (packet.nack && (target === undefined || target.silent)) {
          this.clock.setTimer(0.8 * timeoutMs, () => {
            if (!peer.silent)
              this.answer(peer, { type: 'nack', seq: packet.seq, from: peer.name, updates: [] });
          });
        }
        return;
      }
      default:
        return;
    }
  }

  private receiveStream(peer: ScriptedPeer, message: StreamMessage): void {
    if (peer.silent || message.type !== 'ping' || message.target !== peer.name) return;
    this.clock.setTimer(LATENCY_MS, () =>
      this.core.handleStream(peer.address, { type: 'ack', seq: message.seq, from: peer.name, updates: [] }),
    );
  }
}

/** One entry of a member list. */
export interface ListEntry {
  readonly name: string;
  readonly incarnation: number;
  readonly state: 'alive' | 'suspect' | 'dead' | 'left';
}

const STATE_CODES = { alive: 0, suspect: 1, dead: 2, left: 3 } as const;

function aliveEntry(peer: ScriptedPeer): ListEntry {
  return { name: peer.name, incarnation: peer.incarnation, state: 'alive' };
}

function aliveUpdate(peer: ScriptedPeer): Update {
  return {
    kind: 'alive',
    name: peer.name,
    address: peer.address,
    incarnation: peer.incarnation,
    meta: new Uint8Array(0),
  };
}

export function memberList(entries: readonly ListEntry[]): MemberList {
  return {
    names: entries.map((e) => e.name),
    addresses: entries.map((e) => addressOf(e.name)),
    incarnations: Uint32Array.from(entries.map((e) => e.incarnation)),
    states: Uint8Array.from(entries.map((e) => STATE_CODES[e.state])),
    metas: entries.map(() => new Uint8Array(0)),
  };
}

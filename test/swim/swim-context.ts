/**
 * A SwimContext on a virtual clock, with a recording environment and a view of a few members, so that
 * one mechanism of the SWIM core can be driven alone, its port faked.
 */
import type { ConnectOutcome, Watch, WatchEnd } from '../../src/membership/connection.js';
import { ALIVE, type StateCode } from '../../src/membership/member-state.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { resolveSwimConfig, type SwimConfig } from '../../src/swim/config.js';
import type { SwimContext } from '../../src/swim/context.js';
import { zeroSwimCounters } from '../../src/swim/counters.js';
import { DelegateGuard } from '../../src/swim/delegate-guard.js';
import { MemberDirectory } from '../../src/swim/directory.js';
import type { SwimEnvironment } from '../../src/swim/environment.js';
import type { SwimEvent } from '../../src/swim/events.js';
import { Health } from '../../src/swim/health.js';
import { Lifecycle } from '../../src/swim/lifecycle.js';
import { MemberView } from '../../src/swim/member-view.js';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import { Outbox } from '../../src/swim/outbox.js';
import { memberlistLan } from '../../src/swim/profiles.js';

export const addressOf = (name: string): string => `${name}.test:7946`;

export interface Harness {
  readonly ctx: SwimContext;
  readonly clock: VirtualClock;
  /** Datagrams sent, in order. */
  readonly packets: Array<{ to: string; packet: Packet }>;
  /** Stream messages sent, in order. */
  readonly streams: Array<{ to: string; message: StreamMessage }>;
  readonly events: SwimEvent[];
  /** Connection attempts, and the outcome each gets (`refused` for addresses in `refusing`). */
  readonly connects: string[];
  readonly refusing: Set<string>;
  /** Times the outbox asked the gossiper to wake. */
  wakes: number;
  /** The id of member `name`. */
  id(name: string): number;
  /** Puts `name` in the view in `state` at `incarnation` (and in the probe order). */
  know(name: string, state?: StateCode, incarnation?: number): number;
}

export interface HarnessOptions {
  readonly name?: string;
  readonly config?: Partial<SwimConfig>;
  /** Give the environment `probeConnect` (answered one millisecond later). */
  readonly connect?: boolean;
  readonly seed?: number;
  readonly freezeGuard?: boolean;
}

export function harness(options: HarnessOptions = {}): Harness {
  const name = options.name ?? 'self';
  const clock = new VirtualClock({ wallStartMs: 1_700_000_000_000 });
  const random = new Random(options.seed ?? 1);
  // memberlist's values: the mechanisms are tested on the formulas their comments work out by hand.
  const config = resolveSwimConfig(options.config ?? {}, memberlistLan);
  const packets: Harness['packets'] = [];
  const streams: Harness['streams'] = [];
  const events: SwimEvent[] = [];
  const connects: string[] = [];
  const refusing = new Set<string>();
  const env: SwimEnvironment = {
    clock,
    random,
    sendPacket: (to, packet) => packets.push({ to, packet }),
    sendStream: (to, message) => streams.push({ to, message }),
    emit: (event) => events.push(event),
    ...(options.connect === true
      ? {
          probeConnect: (to: string, _timeoutMs: number, done: (outcome: ConnectOutcome) => void) => {
            connects.push(to);
            clock.setTimer(1, () => done(refusing.has(to) ? 'refused' : 'accepted'));
          },
        }
      : {}),
  };
  const directory = new MemberDirectory();
  const selfId = directory.intern(name, addressOf(name));
  const counters = zeroSwimCounters();
  const view = new MemberView(directory, selfId, clock, config.gossipToTheDeadMs);
  const lifecycle = new Lifecycle();
  lifecycle.phase = 'running';
  const h: Harness = {
    ctx: undefined as unknown as SwimContext,
    clock,
    packets,
    streams,
    events,
    connects,
    refusing,
    wakes: 0,
    id: (member) => {
      const id = directory.find(member);
      if (id === undefined) throw new Error(`unknown member ${member}`);
      return id;
    },
    know: (member, state = ALIVE, incarnation = 1) => {
      const id = directory.intern(member, addressOf(member));
      view.table.set(id, state, incarnation, clock.now());
      view.order.add(id, random);
      return id;
    },
  };
  const outbox = new Outbox(config, env, view, counters, () => h.wakes++);
  const health = new Health(config, options.freezeGuard !== false, counters, clock);
  const ctx: SwimContext = {
    name,
    address: addressOf(name),
    config,
    clock,
    random,
    counters,
    view,
    outbox,
    health,
    lifecycle,
    delegates: new DelegateGuard({}, counters),
  };
  Object.assign(h, { ctx });
  view.table.set(selfId, ALIVE, 1, clock.now());
  return h;
}

/** Runs every timer due in the next `ms` milliseconds. */
export function run(clock: VirtualClock, ms: number): void {
  const target = clock.now() + ms;
  for (let due = clock.nextDueMs(); due !== undefined && due <= target; due = clock.nextDueMs())
    clock.runNext();
  clock.advanceTo(target);
}

/** A watch opener that records what it opened and lets the test end each one. */
export function watches(): {
  open: (address: string, onEnd: (reason: WatchEnd) => void) => Watch;
  opened: Array<{ address: string; end: (reason: WatchEnd) => void; cancelled: boolean }>;
} {
  const opened: Array<{ address: string; end: (reason: WatchEnd) => void; cancelled: boolean }> = [];
  return {
    opened,
    open: (address, onEnd) => {
      const entry = { address, end: onEnd, cancelled: false };
      opened.push(entry);
      return {
        cancel: () => {
          entry.cancelled = true;
        },
      };
    },
  };
}

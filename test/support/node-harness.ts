/**
 * Helpers of the node runtime's integration suites (`test/node/`): a cluster of `SwimNode`s on
 * one in-memory network driven by a virtual clock, a fake DNS for seeds, an event recorder, and a
 * wall-clock poll with a deadline for the suites over real sockets.
 *
 * Virtual time moves one timer at a time: before each timer fires, every pending microtask and
 * promise (the memory transport's deliveries, the node's datagram batcher, seed resolution) runs to
 * completion, so a message sent at virtual time t is handled at t, and a run is a pure function of the
 * seeds.
 */
import { expect } from 'vitest';
import type { MemberStateName } from '../../src/membership/member-state.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { isMemberEvent, type MemberEvent, type MessageEvent, type SwimEvent } from '../../src/swim/events.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import type { SeedResolver, SrvRecord } from '../../src/transport/resolve.js';

/** Lets every pending microtask, promise chain and I/O callback run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Most timers one {@link run} may fire: a bound on every loop, far above what any scenario needs. */
const TIMERS_PER_RUN_MAX = 2_000_000;

/**
 * Lets `ms` of virtual time pass: fires every timer due until then, one at a time, with the microtasks
 * each one causes flushed before the next.
 */
export async function run(clock: VirtualClock, ms: number): Promise<void> {
  const target = clock.now() + ms;
  await flush();
  for (let fired = 0; ; fired++) {
    if (fired > TIMERS_PER_RUN_MAX) throw new Error(`more than ${TIMERS_PER_RUN_MAX} timers in ${ms} ms`);
    const due = clock.nextDueMs();
    if (due === undefined || due > target) break;
    clock.runNext();
    await flush();
  }
  clock.advanceTo(target);
  await flush();
}

/**
 * Runs virtual time until `condition()` holds, checking it after every timer, and returns the virtual
 * ms that took; throws naming `what` once `maxMs` passed without it.
 */
export async function runUntil(
  clock: VirtualClock,
  condition: () => boolean,
  maxMs: number,
  what: string,
): Promise<number> {
  const start = clock.now();
  const deadline = start + maxMs;
  await flush();
  for (let fired = 0; !condition(); fired++) {
    const due = clock.nextDueMs();
    if (due === undefined || due > deadline || fired > TIMERS_PER_RUN_MAX) {
      throw new Error(`not within ${maxMs} virtual ms: ${what}`);
    }
    clock.runNext();
    await flush();
  }
  return clock.now() - start;
}

/**
 * Settles `promise` while virtual time runs (at most `maxMs`), for calls that wait on the clock
 * (`leave()`, `join()` with timeouts). Returns the outcome instead of throwing.
 */
export async function settleWhileRunning<T>(
  clock: VirtualClock,
  promise: Promise<T>,
  maxMs: number,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  promise.then(
    (value) => {
      outcome = { ok: true, value };
    },
    (error: unknown) => {
      outcome = { ok: false, error };
    },
  );
  await runUntil(clock, () => outcome !== undefined, maxMs, 'the promise to settle');
  return outcome!;
}

/** The rejection of `promise` (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** The exception `fn` throws synchronously (fails the test when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an exception, but the call returned');
}

/**
 * Every event of one node, in the order it emitted them, from its EventEmitter. Each is kept with the
 * event name it was emitted under, and {@link EventLog.about} selects by that name, so an event emitted
 * on the wrong channel (a `left` as `'dead'`) is caught.
 */
export class EventLog {
  readonly received: { readonly channel: SwimEvent['type']; readonly event: SwimEvent }[] = [];

  constructor(node: SwimNode) {
    for (const type of ['alive', 'suspect', 'dead', 'left', 'update'] as const) {
      node.on(type, (event) => this.received.push({ channel: type, event }));
    }
    node.on('message', (event) => this.received.push({ channel: 'message', event }));
  }

  /** The events, in order. */
  get events(): SwimEvent[] {
    return this.received.map((r) => r.event);
  }

  /** Events whose `type` differs from the name they were emitted under: none, ever. */
  miswired(): string[] {
    return this.received
      .filter((r) => r.channel !== r.event.type)
      .map((r) => `${r.event.type} as ${r.channel}`);
  }

  /** Member events about `member`, optionally only those emitted as `type`. */
  about(member: string, type?: MemberEvent['type']): MemberEvent[] {
    return this.received
      .filter((r) => r.channel !== 'message' && (type === undefined || r.channel === type))
      .map((r) => r.event)
      .filter((e): e is MemberEvent => isMemberEvent(e) && e.member === member);
  }

  /** Message events (emitted as `'message'`). */
  messages(): MessageEvent[] {
    return this.received
      .filter((r) => r.channel === 'message')
      .map((r) => r.event)
      .filter((e): e is MessageEvent => e.type === 'message');
  }

  clear(): void {
    this.received.length = 0;
  }
}

/** `name → state` of a node's view, itself included. */
export function view(node: SwimNode): Record<string, MemberStateName> {
  const out: Record<string, MemberStateName> = {};
  for (const m of node.members()) out[m.name] = m.state;
  return out;
}

/** Whether `node` holds every one of `names` in `state`. */
export function holds(node: SwimNode, names: readonly string[], state: MemberStateName): boolean {
  const v = view(node);
  return names.every((name) => v[name] === state);
}

/** A node's members as comparable data: name, address, state, incarnation, metadata bytes; by name. */
export function snapshot(
  node: SwimNode,
): { name: string; address: string; state: string; incarnation: number; meta: number[] }[] {
  return node
    .members()
    .map((m) => ({
      name: m.name,
      address: m.address,
      state: m.state,
      incarnation: m.incarnation,
      meta: [...m.meta],
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

// --- fake DNS ---------------------------------------------------------------------------------------

function notFound(what: string): Error {
  return Object.assign(new Error(`queryA ENOTFOUND ${what}`), { code: 'ENOTFOUND' });
}

/**
 * A {@link SeedResolver} answering from tables the test edits, and recording every question, so a test
 * can change "DNS" between attempts and check that names are asked again.
 */
export class FakeResolver implements SeedResolver {
  /** Host name → IPv4 addresses. */
  readonly a = new Map<string, string[]>();
  /** SRV name → records. */
  readonly srv = new Map<string, SrvRecord[]>();
  /** Every question, as `A name`, `AAAA name`, `SRV name` or `lookup name`. */
  readonly asked: string[] = [];

  async resolve4(hostname: string): Promise<string[]> {
    this.asked.push(`A ${hostname}`);
    const found = this.a.get(hostname);
    if (found === undefined || found.length === 0) throw notFound(hostname);
    return [...found];
  }

  async resolve6(hostname: string): Promise<string[]> {
    this.asked.push(`AAAA ${hostname}`);
    throw Object.assign(new Error(`queryAaaa ENODATA ${hostname}`), { code: 'ENODATA' });
  }

  async resolveSrv(name: string): Promise<SrvRecord[]> {
    this.asked.push(`SRV ${name}`);
    const found = this.srv.get(name);
    if (found === undefined) throw notFound(name);
    return found.map((r) => ({ ...r }));
  }

  async lookup(hostname: string): Promise<{ address: string; family: number }[]> {
    this.asked.push(`lookup ${hostname}`);
    throw notFound(hostname);
  }

  /** How many questions named `name` (any record type). */
  count(name: string): number {
    return this.asked.filter((q) => q.endsWith(` ${name}`)).length;
  }
}

// --- an in-memory cluster ---------------------------------------------------------------------------

/**
 * A fast configuration for virtual time: 500 ms probe periods, gossip every 100 ms, push-pull every 10 s,
 * reconnection every 2 s.
 *
 * Push-pull stays on: it is SWIM's backstop for an update whose retransmissions all went elsewhere. With
 * it off (600 s), 8 of 200 seeds left one member of five unaware of another 30 s after joining through
 * one seed, which is the protocol's nature (4 retransmissions at n ≤ 9), not the runtime's.
 */
export const MEMORY_CONFIG: Partial<SwimConfig> = Object.freeze({
  probeIntervalMs: 500,
  probeTimeoutMs: 200,
  gossipIntervalMs: 100,
  pushPullIntervalMs: 10_000,
  reconnectIntervalMs: 2000,
  gossipToTheDeadMs: 10_000,
});

/** One member of a {@link MemoryCluster}. */
export interface Member {
  readonly name: string;
  /** The address it binds and is reached at, `10.0.0.i:7946`. */
  readonly address: string;
  readonly node: SwimNode;
  readonly log: EventLog;
}

/**
 * Nodes on one {@link MemoryNetwork} and one {@link VirtualClock}; member `i` is `n<i>` at
 * `10.0.0.<i>:7946` with `Random(seed * 100 + i)`. Every node created is shut down by {@link close}.
 */
export class MemoryCluster {
  readonly clock = new VirtualClock();
  readonly network = new MemoryNetwork({ clock: this.clock });
  readonly resolver = new FakeResolver();
  readonly members = new Map<string, Member>();
  private readonly created: SwimNode[] = [];

  constructor(
    readonly seed: number,
    readonly config: Partial<SwimConfig> = MEMORY_CONFIG,
  ) {}

  /** Options of member `i`, before overrides. */
  options(i: number): NodeOptions {
    return {
      name: `n${i}`,
      bind: `10.0.0.${i}:7946`,
      transport: (o) => this.network.createTransport(o),
      clock: this.clock,
      random: new Random(this.seed * 100 + i),
      resolver: this.resolver,
      config: this.config,
      leaveTimeoutMs: 5000,
      // The default samples this process's real GC pauses: on a loaded machine they raise a member's
      // health score, which stretches its probes and timeouts, and a test on virtual time stops being
      // deterministic. A test that wants local health passes its own source.
      localHealth: false,
    };
  }

  /** Creates member `i` (not started). */
  create(i: number, overrides: Partial<NodeOptions> = {}): Member {
    const node = createNode({ ...this.options(i), ...overrides });
    this.created.push(node);
    const member: Member = { name: `n${i}`, address: `10.0.0.${i}:7946`, node, log: new EventLog(node) };
    this.members.set(member.name, member);
    return member;
  }

  /** Creates and starts member `i`. */
  async start(i: number, overrides: Partial<NodeOptions> = {}): Promise<Member> {
    const member = this.create(i, overrides);
    await member.node.start();
    return member;
  }

  /** Starts members 1..n, joins 2..n through n1, and runs until every one holds all n alive. */
  async form(n: number): Promise<Member[]> {
    const members: Member[] = [];
    for (let i = 1; i <= n; i++) members.push(await this.start(i));
    for (const m of members.slice(1)) {
      const answered = await m.node.join([members[0]!.address]);
      expect(answered).toBe(1);
    }
    const names = members.map((m) => m.name);
    await runUntil(
      this.clock,
      () => members.every((m) => holds(m.node, names, 'alive')),
      30_000,
      `${n} members to see each other alive`,
    );
    return members;
  }

  get(name: string): Member {
    const member = this.members.get(name);
    if (member === undefined) throw new Error(`no member ${name}`);
    return member;
  }

  run(ms: number): Promise<void> {
    return run(this.clock, ms);
  }

  runUntil(condition: () => boolean, maxMs: number, what: string): Promise<number> {
    return runUntil(this.clock, condition, maxMs, what);
  }

  /** Shuts every node down, letting virtual time run for what waits on it. */
  async close(): Promise<void> {
    const done = Promise.all(this.created.map((node) => node.shutdown()));
    await settleWhileRunning(this.clock, done, 60_000);
  }

  /** Events emitted under another name than their type, by member: empty when all is well. */
  miswired(): string[] {
    return [...this.members.values()].flatMap((m) => m.log.miswired().map((x) => `${m.name}: ${x}`));
  }
}

// --- wall clock ------------------------------------------------------------------------------------

/**
 * Polls `condition` every few ms until it holds; throws naming `what` after `timeoutMs` of wall time.
 * For suites over real sockets: the deadline bounds the test, it is not an assertion on speed.
 */
export async function poll(
  condition: () => boolean,
  what: string | (() => string),
  timeoutMs = 4000,
): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > timeoutMs) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

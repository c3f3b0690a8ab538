/**
 * The lifecycle that `createNode` and `createHeartbeatMonitor` share (`src/node/core-host.ts`): `start`
 * and `shutdown` with an `AbortSignal`, and `Symbol.asyncDispose` for `await using`. Both run on the
 * in-memory network and a virtual clock, so "nothing bound" is the network's list of held addresses and
 * "no timers" the clock's queue, and every wait is a settled-or-not check after the microtasks ran.
 */
import { describe, expect, it } from 'vitest';
import { AbortError, LifecycleError } from '../../src/errors.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import type { ShutdownOptions, StartOptions } from '../../src/node/lifecycle.js';
import { createNode } from '../../src/node/node.js';
import type { TransportFactory } from '../../src/node/node-options.js';
import type { Logger } from '../../src/runtime/logger.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import type { TransportOptions } from '../../src/transport/options.js';
import type { Transport } from '../../src/transport/transport.js';
import { flush, MEMORY_CONFIG, rejection, thrown } from '../support/node-harness.js';

/** What the tests need of either public class. */
interface Member {
  start(options?: StartOptions): Promise<void>;
  shutdown(options?: ShutdownOptions): Promise<void>;
  readonly localAddress: string;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Setup {
  readonly transport?: TransportFactory;
  readonly logger?: Logger;
}

const ADDRESS = '10.0.0.1:7946';

/** Each public class on one network and clock; `create` passes the transport and logger given. */
class World {
  readonly clock = new VirtualClock();
  readonly network = new MemoryNetwork({ clock: this.clock });
  readonly memory: TransportFactory = (o) => this.network.createTransport(o);

  constructor(readonly kind: 'createNode' | 'createHeartbeatMonitor') {}

  create(setup: Setup = {}): Member {
    const common = {
      name: 'a',
      bind: ADDRESS,
      transport: setup.transport ?? this.memory,
      clock: this.clock,
      random: new Random(1),
      localHealth: false as const,
      ...(setup.logger === undefined ? {} : { logger: setup.logger }),
    };
    return this.kind === 'createNode'
      ? createNode({ ...common, config: MEMORY_CONFIG })
      : createHeartbeatMonitor({ ...common, peers: ['10.0.0.2:7946'] });
  }

  /** A member whose transport binds only once the test calls `bind`. */
  createBindingLate(): { member: Member; bind: () => void } {
    const binding = deferred<void>();
    const member = this.create({
      transport: async (o) => {
        await binding.promise;
        return this.memory(o);
      },
    });
    return { member, bind: () => binding.resolve() };
  }

  /** Whether a fresh member can bind the address now: a start that left it bound makes this false. */
  async addressFree(): Promise<boolean> {
    const other = this.create();
    try {
      await other.start();
      return true;
    } catch {
      return false;
    } finally {
      await other.shutdown();
    }
  }
}

/** A promise and its resolution, for a transport factory that binds when the test says so. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Whether `promise` has settled once every pending microtask and I/O callback ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await flush();
  return done;
}

/** The lines a member logged at info, by message. */
function infoLines(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const ignore = (): void => {};
  return {
    lines,
    logger: { debug: ignore, warn: ignore, error: ignore, info: (_fields, message) => lines.push(message) },
  };
}

describe.each(['createNode', 'createHeartbeatMonitor'] as const)('%s lifecycle', (kind) => {
  const owner = kind === 'createNode' ? 'SwimNode' : 'HeartbeatMonitor';

  it('an already aborted signal rejects start() with FDKIT_ABORTED and its reason, and binds nothing', async () => {
    // Catches a check of the signal made only after binding: the factory would have been called and
    // the address held, so the second member below could not bind it.
    const world = new World(kind);
    const calls: TransportOptions[] = [];
    const member = world.create({
      transport: (o) => {
        calls.push(o);
        return world.memory(o);
      },
    });
    const reason = new Error('deploy cancelled');
    const error = await rejection(member.start({ signal: AbortSignal.abort(reason) }));
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({
      name: 'AbortError',
      code: 'FDKIT_ABORTED',
      cause: reason,
      message: `${owner}: start() was aborted; nothing is bound`,
    });
    expect(calls).toEqual([]);
    expect(world.network.addresses()).toEqual([]);
    expect(world.clock.nextDueMs()).toBeUndefined();
    expect(await world.addressFree()).toBe(true);
    // An aborted start counts as the one start: a retry would be a second start of a stopped member.
    expect(await rejection(member.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
  });

  it('an abort while the transport is being bound rejects start() at once and closes the late transport', async () => {
    // Catches two bugs: waiting for the factory regardless of the signal (start would stay pending
    // after the abort), and forgetting what the factory binds after the abort (the address stays held
    // and the core's timers run).
    const world = new World(kind);
    const { member, bind } = world.createBindingLate();
    const controller = new AbortController();
    const starting = member.start({ signal: controller.signal });
    expect(await settled(starting)).toBe(false);
    controller.abort('operator gave up');
    expect(await settled(starting)).toBe(true);
    expect(await rejection(starting)).toMatchObject({ code: 'FDKIT_ABORTED', cause: 'operator gave up' });
    bind();
    await flush();
    expect(world.network.addresses()).toEqual([]);
    expect(world.clock.nextDueMs()).toBeUndefined();
    expect(thrown(() => member.localAddress)).toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(await world.addressFree()).toBe(true);
  });

  it('shutdown() while start() is binding ends the start and closes what it binds', async () => {
    // Catches a start that carries on after shutdown: it would start the core on the late transport,
    // holding the address with a member nobody can stop any more.
    const world = new World(kind);
    const { member, bind } = world.createBindingLate();
    const starting = member.start();
    const stopping = member.shutdown();
    bind();
    const error = await rejection(starting);
    expect(error).toBeInstanceOf(LifecycleError);
    expect(error).toMatchObject({ code: 'FDKIT_STOPPED' });
    await stopping;
    expect(world.network.addresses()).toEqual([]);
    expect(world.clock.nextDueMs()).toBeUndefined();
  });

  it('a transport factory that throws instead of rejecting ends the start like a rejection', async () => {
    // Catches the factory called outside the start's error handling: the member would stay "starting"
    // for ever, and a second start() would report FDKIT_ALREADY_STARTED instead of FDKIT_STOPPED.
    const world = new World(kind);
    const failure = new Error('no sockets today');
    const member = world.create({
      transport: () => {
        throw failure;
      },
    });
    expect(await rejection(member.start())).toBe(failure);
    expect(await rejection(member.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
  });

  it('shutdown() with an aborted signal resolves without waiting for a slow close, and has closed', async () => {
    // Catches a shutdown that ignores its signal: with a transport whose close never finishes, it
    // would stay pending like the plain shutdown() beside it.
    const world = new World(kind);
    const member = world.create({
      transport: async (o) => {
        const inner = await world.memory(o);
        const slowClose = (): Promise<void> => {
          void inner.close();
          return new Promise<void>(() => {});
        };
        return new Proxy(inner, {
          get: (target, key) => (key === 'close' ? slowClose : Reflect.get(target, key, target)),
        }) satisfies Transport;
      },
    });
    await member.start();
    const plain = member.shutdown();
    const given = member.shutdown({ signal: AbortSignal.abort() });
    expect(await settled(given)).toBe(true);
    expect(await settled(plain)).toBe(false);
    expect(world.network.addresses()).toEqual([]);
    expect(world.clock.nextDueMs()).toBeUndefined();
    expect(thrown(() => member.localAddress)).toMatchObject({ code: 'FDKIT_STOPPED' });
  });

  it('await using shuts the member down when the block ends', async () => {
    // Catches a missing or wrong Symbol.asyncDispose: without one `await using` throws a TypeError,
    // and one that does not shut down leaves the address held and the member running.
    const world = new World(kind);
    let escaped: Member | undefined;
    {
      await using member = world.create();
      await member.start();
      escaped = member;
      expect(world.network.addresses()).toEqual([ADDRESS]);
    }
    expect(world.network.addresses()).toEqual([]);
    expect(world.clock.nextDueMs()).toBeUndefined();
    expect(thrown(() => escaped.localAddress)).toMatchObject({ code: 'FDKIT_STOPPED' });
  });

  it('disposing after shutdown() is a no-op', async () => {
    // Catches a dispose that runs the stop again (a second "stopped" line) or refuses a stopped member
    // with a LifecycleError, which would make `await using` throw after an explicit shutdown.
    const world = new World(kind);
    const { logger, lines } = infoLines();
    {
      await using member = world.create({ logger });
      await member.start();
      await member.shutdown();
      await member[Symbol.asyncDispose]();
    }
    expect(lines.filter((line) => line === 'stopped')).toHaveLength(1);
    expect(world.network.addresses()).toEqual([]);
  });
});

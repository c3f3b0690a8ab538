/**
 * A fake Redis behind the narrow client of the Redis lease provider (redis-client.ts), keeping Redis's
 * semantics for the three scripts it runs (redis-scripts.ts): keys with a TTL in ms that expire on the
 * virtual clock, `SET NX` that only creates, a token counter raised to the server's clock in µs and then
 * incremented, and compare-then-act renew and release. Each script runs atomically against the store as
 * it is when the request lands. No server, no network: the tests decide when Redis is unreachable, when
 * a request lands (`hold`), and can steal or wipe keys as an operator or a failover would.
 */
import type { RedisScriptClient } from '../../src/fencing/redis-client.js';
import { ACQUIRE_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT } from '../../src/fencing/redis-scripts.js';
import type { VirtualClock } from '../../src/runtime/virtual-clock.js';

/** The scripts, by name. */
export type ScriptName = 'acquire' | 'renew' | 'release';

interface Stored {
  readonly value: string;
  /** Virtual time at which Redis drops the key; undefined for none. */
  expiresAtMs: number | undefined;
}

/** One request as the code under test sent it. */
export interface SentScript {
  readonly script: ScriptName;
  readonly atMs: number;
  readonly keysAndArgs: readonly string[];
}

/** A request held until the test lets it land. */
export interface HeldScript {
  land(): void;
  fail(error: unknown): void;
}

const NAMES = new Map<string, ScriptName>([
  [ACQUIRE_SCRIPT, 'acquire'],
  [RENEW_SCRIPT, 'renew'],
  [RELEASE_SCRIPT, 'release'],
]);

export class FakeRedis {
  private readonly store = new Map<string, Stored>();
  readonly sent: SentScript[] = [];
  /** When set, every request rejects with this error (Redis unreachable). */
  down: Error | undefined;
  /** Added to the virtual wall clock for the server's `TIME`, in µs: a server clock ahead or behind. */
  timeOffsetUs = 0n;
  closed = false;
  private readonly holds = new Map<ScriptName, ((gate: HeldScript) => void)[]>();

  constructor(private readonly clock: VirtualClock) {}

  /** The client the provider takes. */
  client(): RedisScriptClient {
    return {
      eval: (script, numKeys, ...keysAndArgs) => this.eval(script, numKeys, keysAndArgs),
      close: async () => {
        this.closed = true;
      },
    };
  }

  /** The next request running `script` waits until the test settles it. */
  hold(script: ScriptName): Promise<HeldScript> {
    return new Promise((resolve) => {
      const list = this.holds.get(script) ?? [];
      list.push(resolve);
      this.holds.set(script, list);
    });
  }

  /** A key's value now, or undefined (expired keys are gone). */
  get(key: string): string | undefined {
    return this.live(key)?.value;
  }

  /** A key's remaining TTL in ms, -1 without one, -2 when absent (Redis's PTTL). */
  pttl(key: string): number {
    const stored = this.live(key);
    if (stored === undefined) return -2;
    return stored.expiresAtMs === undefined ? -1 : stored.expiresAtMs - this.clock.now();
  }

  /** `SET key value [PX ms]`, as another client would. */
  set(key: string, value: string, pxMs?: number): void {
    this.store.set(key, {
      value,
      expiresAtMs: pxMs === undefined ? undefined : this.clock.now() + pxMs,
    });
  }

  /** `FLUSHALL`: what a restart without persistence, or a failover to an empty replica, leaves. */
  flushAll(): void {
    this.store.clear();
  }

  /** Deletes `key`, as an operator might. */
  del(key: string): void {
    this.store.delete(key);
  }

  /** How many requests of `script` were sent. */
  count(script: ScriptName): number {
    return this.sent.filter((s) => s.script === script).length;
  }

  private live(key: string): Stored | undefined {
    const stored = this.store.get(key);
    if (stored?.expiresAtMs !== undefined && stored.expiresAtMs <= this.clock.now()) {
      this.store.delete(key);
      return undefined;
    }
    return stored;
  }

  private eval(script: string, numKeys: number, keysAndArgs: string[]): Promise<unknown> {
    const name = NAMES.get(script);
    if (name === undefined) return Promise.reject(new Error('NOSCRIPT: not one of the three'));
    this.sent.push({ script: name, atMs: this.clock.now(), keysAndArgs });
    const keys = keysAndArgs.slice(0, numKeys);
    const args = keysAndArgs.slice(numKeys);
    const run = (): unknown => {
      if (this.down !== undefined) throw this.down;
      return this.run(name, keys, args);
    };
    const waiting = this.holds.get(name)?.shift();
    if (waiting === undefined) return Promise.resolve().then(run);
    return new Promise((resolve, reject) => {
      waiting({
        land: () => {
          try {
            resolve(run());
          } catch (error) {
            reject(error);
          }
        },
        fail: reject,
      });
    });
  }

  private run(name: ScriptName, keys: string[], args: string[]): unknown {
    const [lock = '', counter = ''] = keys;
    switch (name) {
      case 'acquire': {
        if (this.live(lock) !== undefined) return [0, this.pttl(lock)];
        const floor = BigInt(this.clock.wallNow()) * 1000n + this.timeOffsetUs;
        const last = this.live(counter);
        const base = last === undefined || BigInt(last.value) < floor ? floor : BigInt(last.value);
        const token = (base + 1n).toString();
        this.store.set(counter, { value: token, expiresAtMs: undefined });
        this.set(lock, `${args[0]}#${token}`, Number(args[1]));
        return [1, token];
      }
      case 'renew': {
        const stored = this.live(lock);
        if (stored === undefined || stored.value !== args[0]) return 0;
        stored.expiresAtMs = this.clock.now() + Number(args[1]);
        return 1;
      }
      case 'release': {
        if (this.live(lock)?.value !== args[0]) return 0;
        this.store.delete(lock);
        return 1;
      }
    }
  }
}

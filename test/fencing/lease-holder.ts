/**
 * A lease holder in its own process, for `test/fencing/etcd-lease-freeze.system.test.ts`, which freezes it
 * with SIGSTOP. Run with `node --import tsx lease-holder.ts <etcd URL> <lease name> <ttl ms>`. Prints JSON
 * lines:
 *
 * - `{"event":"acquired","token":"<n>","timeOrigin":..,"expiresAtMs":..}` once it holds the lease;
 * - `{"event":"woke","gapMs":..,"lostBeforeActing":true|false,"code":..,"expiresAtMs":..,"timeOrigin":..}`
 *   from the first tick after a pause, where `lostBeforeActing` says whether `throwIfLost()`, called
 *   before anything else, already knew the lease was lost;
 *
 * then releases, closes and exits. It ticks every 20 ms, and a tick more than 300 ms after the previous
 * one means it was paused.
 */
import { performance } from 'node:perf_hooks';
import { createEtcdLeaseProvider, type LeaseError } from '../../src/index.js';

const [endpoint, name, ttl] = process.argv.slice(2);
const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

const leases = await createEtcdLeaseProvider({ hosts: endpoint!, owner: 'frozen-holder' });
const lease = await leases.acquire(name!, { ttlMs: Number(ttl) });
print({
  event: 'acquired',
  token: lease.token.toString(),
  timeOrigin: performance.timeOrigin,
  expiresAtMs: lease.expiresAtMs,
});

let last = performance.now();
await new Promise<void>((resolve) => {
  const ticker = setInterval(() => {
    const now = performance.now();
    const gapMs = now - last;
    last = now;
    if (gapMs < 300) return;
    clearInterval(ticker);
    let code: string | null = null;
    try {
      lease.throwIfLost();
    } catch (error) {
      code = (error as LeaseError).code;
    }
    print({
      event: 'woke',
      gapMs,
      lostBeforeActing: code !== null,
      code,
      expiresAtMs: lease.expiresAtMs,
      timeOrigin: performance.timeOrigin,
    });
    resolve();
  }, 20);
});
await lease.release().catch(() => undefined);
await leases.close();

/**
 * Lease loss when time stops: a holder process frozen with SIGSTOP past its TTL (the 40 s garbage
 * collection pause of the billing story, shortened), and a holder whose etcd is frozen. Each side's
 * deadline is compared with what etcd did, on one timeline: `performance.timeOrigin + performance.now()`
 * agrees across processes of one host.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import { createEtcdLeaseProvider, type LeaseError, type LeaseProvider } from '../../src/index.js';

const HOLDER = fileURLToPath(new URL('./lease-holder.ts', import.meta.url));

let etcd: EtcdServer;
let raw: Etcd3;
const children: ChildProcess[] = [];
const providers: LeaseProvider[] = [];

/** The shared timeline: Unix ms with sub-ms precision, comparable across processes. */
const epochMs = (timeOrigin: number, nowMs: number): number => timeOrigin + nowMs;
const now = (): number => epochMs(performance.timeOrigin, performance.now());

/** JSON lines from a child's stdout, one promise per expected `event`. */
function lines(child: ChildProcess): (event: string) => Promise<Record<string, unknown>> {
  const seen = new Map<string, Record<string, unknown>>();
  const waiters = new Map<string, (line: Record<string, unknown>) => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    const event = String(line.event);
    seen.set(event, line);
    waiters.get(event)?.(line);
  });
  return (event) =>
    new Promise((resolve, reject) => {
      const line = seen.get(event);
      if (line !== undefined) return resolve(line);
      waiters.set(event, resolve);
      child.once('exit', (code) => reject(new Error(`holder exited (${code}) before "${event}": ${stderr}`)));
    });
}

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  process.kill(etcd.pid, 'SIGCONT');
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  raw?.close();
  await etcd?.stop();
});

describe('a lease holder that stops running', () => {
  it('frozen past its TTL: replaced with a higher token, and its lease is lost before it acts on waking', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, etcd.endpoint, 'frozen', '1000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const next = lines(child);
    const acquired = await next('acquired');
    await sleep(500); // a keep-alive or two

    // Deletion of the frozen holder's key, as an independent watcher sees it.
    const deleted = new Promise<number>((resolve) => {
      raw
        .watch()
        .key('fdkit/lease/frozen')
        .only('delete')
        .watcher()
        .on('delete', () => resolve(now()))
        .on('error', () => undefined);
    });
    child.kill('SIGSTOP');
    const stoppedAt = now();
    const successor = await createEtcdLeaseProvider({ hosts: etcd.endpoint });
    providers.push(successor);
    const lease = await successor.acquire('frozen', { ttlMs: 1000, signal: AbortSignal.timeout(10_000) });
    const acquiredAt = now();
    const deletedAt = await deleted;
    expect(lease.token).toBeGreaterThan(BigInt(acquired.token as string));
    await sleep(300); // frozen a little longer: the successor is at work
    child.kill('SIGCONT');
    const woke = await next('woke');

    expect(woke.lostBeforeActing).toBe(true);
    expect(['FDKIT_LEASE_EXPIRED', 'FDKIT_LEASE_REVOKED']).toContain(woke.code);
    // The holder's own deadline came before etcd let go of the key, and so before anyone else held it.
    const holderDeadline = epochMs(woke.timeOrigin as number, woke.expiresAtMs as number);
    expect(holderDeadline).toBeLessThan(deletedAt);
    expect(holderDeadline).toBeLessThan(acquiredAt);
    console.log(
      `frozen holder: its deadline ${(holderDeadline - stoppedAt).toFixed(0)} ms after the freeze, ` +
        `etcd deleted its key ${(deletedAt - stoppedAt).toFixed(0)} ms after (${(deletedAt - holderDeadline).toFixed(0)} ms later), ` +
        `the successor held it ${(acquiredAt - stoppedAt).toFixed(0)} ms after; on waking (${(woke.gapMs as number).toFixed(0)} ms frozen) ` +
        `its first check found the lease lost (${woke.code})`,
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(await exited).toBe(0);
  });

  it('etcd frozen past the renew deadline but not the TTL: jeopardy, not before its time, then safe when etcd resumes', async () => {
    const leases = await createEtcdLeaseProvider({ hosts: etcd.endpoint });
    providers.push(leases);
    const lease = await leases.acquire('jeopardy', {
      ttlMs: 3000,
      renewDeadlineMs: 1000,
      retryPeriodMs: 200,
    });
    await sleep(500);
    const events: { name: string; at: number; state: string; code?: string }[] = [];
    lease.on('jeopardy', (error) =>
      events.push({ name: 'jeopardy', at: performance.now(), state: lease.state, code: error.code }),
    );
    lease.on('safe', () => events.push({ name: 'safe', at: performance.now(), state: lease.state }));
    lease.on('lost', () => events.push({ name: 'lost', at: performance.now(), state: lease.state }));
    const inJeopardy = new Promise<void>((resolve) => lease.once('jeopardy', () => resolve()));
    const safe = new Promise<void>((resolve) => lease.once('safe', () => resolve()));

    process.kill(etcd.pid, 'SIGSTOP');
    const stoppedAt = performance.now();
    await inJeopardy;
    const jeopardyAtMs = lease.jeopardyAtMs; // the renew deadline that passed: no confirmation since
    let thrown: unknown;
    try {
      lease.throwUnlessHeld();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'FDKIT_LEASE_JEOPARDY' });
    expect(() => lease.throwIfLost()).not.toThrow(); // in jeopardy, not lost
    const lostDeadline = lease.expiresAtMs;
    await sleep(400); // still frozen, still keeping alive into the buffer
    process.kill(etcd.pid, 'SIGCONT');
    const resumedAt = performance.now();
    await safe;

    expect(events.map((e) => e.name)).toEqual(['jeopardy', 'safe']);
    const [jeopardy, back] = events as [(typeof events)[0], (typeof events)[0]];
    expect(jeopardy).toMatchObject({ state: 'jeopardy', code: 'FDKIT_LEASE_JEOPARDY' });
    // Not before the renew deadline, which counts from a keep-alive sent before the freeze.
    expect(jeopardy.at).toBeGreaterThanOrEqual(jeopardyAtMs);
    expect(jeopardyAtMs).toBeLessThanOrEqual(stoppedAt + 1000);
    expect(jeopardy.at - stoppedAt).toBeLessThan(1000 + 200);
    // Back once etcd answers, before the lost deadline.
    expect(back.state).toBe('held');
    expect(back.at).toBeGreaterThanOrEqual(resumedAt);
    expect(back.at).toBeLessThan(lostDeadline);
    expect(lease.state).toBe('held');
    expect(lease.lost.aborted).toBe(false);
    console.log(
      `etcd frozen ${(resumedAt - stoppedAt).toFixed(0)} ms: jeopardy ${(jeopardy.at - stoppedAt).toFixed(0)} ms after the freeze ` +
        `(${(jeopardy.at - jeopardyAtMs).toFixed(1)} ms after its renew deadline), safe ${(back.at - resumedAt).toFixed(0)} ms after ` +
        `etcd resumed, ${(lostDeadline - back.at).toFixed(0)} ms before it would have been lost`,
    );
  });

  it('cut off from a frozen etcd: lost on its own clock at its deadline, and etcd expires it on resuming', async () => {
    const [holder, successor] = [
      await createEtcdLeaseProvider({ hosts: etcd.endpoint }),
      await createEtcdLeaseProvider({ hosts: etcd.endpoint }),
    ];
    providers.push(holder, successor);
    const lease = await holder.acquire('cut-off', { ttlMs: 1000 });
    await sleep(500);
    const lost = new Promise<number>((resolve) =>
      lease.lost.addEventListener('abort', () => resolve(performance.now()), { once: true }),
    );
    process.kill(etcd.pid, 'SIGSTOP');
    const stoppedAt = performance.now();
    const lostAt = await lost;
    const lateMs = lostAt - lease.expiresAtMs;
    expect((lease.lost.reason as LeaseError).code).toBe('FDKIT_LEASE_EXPIRED');
    // Not before its deadline, and that deadline came from a keep-alive sent before etcd froze.
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lease.expiresAtMs).toBeLessThanOrEqual(stoppedAt + lease.ttlMs - lease.safetyMarginMs);
    process.kill(etcd.pid, 'SIGCONT');
    const next = await successor.acquire('cut-off', { ttlMs: 1000, signal: AbortSignal.timeout(10_000) });
    expect(next.token).toBeGreaterThan(lease.token);
    console.log(
      `etcd frozen: the holder's lost fired ${(lostAt - stoppedAt).toFixed(0)} ms after the freeze, ` +
        `${lateMs.toFixed(1)} ms after its deadline`,
    );
  });
});

/**
 * What `join()` waits for and how it fails, on the memory network and virtual time
 * (`test/support/node-harness.ts`): it resolves when the seeds have answered, with the number that
 * accepted; it rejects with a `JoinError` carrying a seed's refusal when no seed accepted, or
 * `FDKIT_CONNECT_FAILED` when none answered within `joinTimeoutMs`; an abort rejects with an
 * `AbortError` whose cause is the signal's reason.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, InvalidOptionError, JoinError } from '../../src/errors.js';
import { createNode } from '../../src/node/node.js';
import type { Transport } from '../../src/transport/transport.js';
import { decodeStream } from '../../src/wire/decode.js';
import { encodeStream } from '../../src/wire/encode.js';
import { MemoryCluster, rejection, settleWhileRunning, thrown } from '../support/node-harness.js';

const clusters: MemoryCluster[] = [];
const transports: Transport[] = [];

function newCluster(seed: number): MemoryCluster {
  const cluster = new MemoryCluster(seed);
  clusters.push(cluster);
  return cluster;
}

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const cluster of clusters.splice(0)) await cluster.close();
});

/** A seed at 10.0.0.9 that answers every state exchange with a refusal, as a seed's rules would. */
async function refusingSeed(c: MemoryCluster, code: 'FDKIT_JOIN_NAME_CONFLICT' | 'FDKIT_JOIN_REJECTED') {
  const transport = await c.network.createTransport({ bind: '10.0.0.9:7946', clock: c.clock });
  transports.push(transport);
  transport.onStream((bytes) => {
    const result = decodeStream(bytes);
    if (!result.ok || result.message.type !== 'push-pull') return;
    const { names, addresses } = result.message.members;
    const back = addresses[names.indexOf(result.message.from)]!;
    const refusal = encodeStream({ type: 'refuse', from: 'seed9', code, reason: 'not you' });
    void transport.sendStream(back, refusal);
  });
  return '10.0.0.9:7946';
}

describe('join', () => {
  it('resolves as soon as every seed answered, with the number that accepted, long before the timeout', async () => {
    const c = newCluster(1);
    await c.start(1);
    await c.start(2);
    const third = await c.start(3, { joinTimeoutMs: 60_000 });
    const startedAt = c.clock.now();
    const outcome = await settleWhileRunning(
      c.clock,
      third.node.join(['10.0.0.1:7946', '10.0.0.2:7946']),
      60_000,
    );
    expect(outcome).toEqual({ ok: true, value: 2 });
    expect(c.clock.now() - startedAt).toBeLessThan(100);
  });

  it('a seed that refuses makes the join fail with its code and reason; one that accepts makes it succeed', async () => {
    const c = newCluster(2);
    const seed = await refusingSeed(c, 'FDKIT_JOIN_NAME_CONFLICT');
    const m = await c.start(1);
    const error = await rejection(m.node.join([seed]));
    expect(error).toBeInstanceOf(JoinError);
    expect(error).toMatchObject({
      name: 'JoinError',
      code: 'FDKIT_JOIN_NAME_CONFLICT',
      seed,
      reason: 'not you',
      seeds: [{ seed, code: 'FDKIT_JOIN_NAME_CONFLICT', reason: 'not you' }],
    });
    expect((error as Error).message).toBe(
      'join: seed 10.0.0.9:7946 refused this member (FDKIT_JOIN_NAME_CONFLICT): not you. The member keeps retrying in the background.',
    );
    const other = await c.start(2);
    expect(await other.node.join([seed, m.address])).toBe(1);
  });

  it('with several seeds failing, the first refusal gives the code, and every outcome is listed', async () => {
    const c = newCluster(3);
    const seed = await refusingSeed(c, 'FDKIT_JOIN_REJECTED');
    const m = await c.start(1);
    const outcome = await settleWhileRunning(c.clock, m.node.join(['10.0.0.77:7946', seed]), 20_000);
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: JoinError }).error;
    expect(error).toMatchObject({ code: 'FDKIT_JOIN_REJECTED', seed, reason: 'not you' });
    expect(error.seeds.map((o) => [o.seed, o.code])).toEqual([
      ['10.0.0.77:7946', 'FDKIT_CONNECT_FAILED'],
      [seed, 'FDKIT_JOIN_REJECTED'],
    ]);
    expect(error.message).toContain('10.0.0.77:7946: ');
  });

  it('a seed whose answer never comes fails the join at joinTimeoutMs, not before', async () => {
    const c = newCluster(4);
    const seed = await c.start(1);
    const m = await c.start(2, { joinTimeoutMs: 3000 });
    // The join reaches the seed; the seed's answer, on a connection of its own, does not come back.
    c.network.setLinkFilter(
      (from, to, kind) => !(kind === 'stream' && from === seed.address && to === m.address),
    );
    const startedAt = c.clock.now();
    const outcome = await settleWhileRunning(c.clock, m.node.join([seed.address]), 10_000);
    expect(c.clock.now() - startedAt).toBe(3000);
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        name: 'JoinError',
        code: 'FDKIT_CONNECT_FAILED',
        seed: seed.address,
        reason: 'no answer within the join timeout (3000 ms)',
      },
    });
  });

  it('an abort rejects with an AbortError whose cause is the signal reason, at once', async () => {
    const c = newCluster(5);
    const seed = await c.start(1);
    const m = await c.start(2);
    c.network.setLinkFilter((from, _to, kind) => !(kind === 'stream' && from === seed.address));
    const controller = new AbortController();
    const joining = m.node.join([seed.address], { signal: controller.signal });
    controller.abort('operator gave up');
    const error = await rejection(joining);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: 'FDKIT_ABORTED', cause: 'operator gave up' });
    expect(await rejection(m.node.join([seed.address], { signal: controller.signal }))).toMatchObject({
      name: 'AbortError',
      cause: 'operator gave up',
    });
  });

  it('joinTimeoutMs is validated at construction, naming the option and the value received', () => {
    for (const [value, got] of [
      ['5', 'got "5" (a string)'],
      [0, 'got 0'],
      [600_001, 'got 600001'],
    ] as const) {
      const error = thrown(() => createNode({ joinTimeoutMs: value as unknown as number }));
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option: 'joinTimeoutMs' });
      expect((error as Error).message).toContain('createNode: option joinTimeoutMs');
      expect((error as Error).message).toContain(got);
    }
  });
});

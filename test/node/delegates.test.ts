/**
 * Delegates on real SwimNodes over UDP and TCP on 127.0.0.1: a seed's alive filter refuses a joiner of
 * another cluster (its `join()` rejects with `FDKIT_JOIN_REJECTED` and the filter's reason) while it
 * takes one of its own, a seed's merge filter refuses a joiner that brings another cluster's members, application state crosses a join both ways, and a hook
 * that throws is a warn line and a counter while the protocol goes on. Waits poll with a deadline; the
 * deadlines bound the tests, they do not assert speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, JoinError } from '../../src/errors.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import type { Logger } from '../../src/runtime/logger.js';
import type { SwimConfig } from '../../src/swim/config.js';
import type { SwimDelegates } from '../../src/swim/delegates.js';
import { poll, rejection, thrown } from '../support/node-harness.js';

const FAST: Partial<SwimConfig> = {
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  gossipIntervalMs: 50,
  pushPullIntervalMs: 60_000,
  reconnectIntervalMs: 1000,
};

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array): string => new TextDecoder().decode(b);

const nodes: SwimNode[] = [];

afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.shutdown()));
});

/** A logger that keeps every line, `level message`. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const at =
    (level: string) =>
    (_fields: object, message: string): void => {
      lines.push(`${level} ${message}`);
    };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

async function start(name: string, options: Partial<NodeOptions> = {}): Promise<SwimNode> {
  const node = createNode({ name, bind: '127.0.0.1:0', config: FAST, ...options });
  nodes.push(node);
  await node.start();
  return node;
}

const names = (node: SwimNode): string[] =>
  node
    .members()
    .map((m) => m.name)
    .sort();

/** Waits until `node` has run `periods` more probe periods: protocol time, not a fixed sleep. */
async function periodsPass(node: SwimNode, periods: number): Promise<void> {
  const from = node.counters().probes;
  await poll(() => node.counters().probes >= from + periods, `${periods} probe periods`);
}

const sameCluster: SwimDelegates = {
  filterAlive: (m) => (decode(m.meta) === 'cluster=a' ? undefined : `${m.name} is not in cluster=a`),
};

describe('delegates over UDP', () => {
  it('a seed’s alive filter keeps out a joiner of another cluster and takes one of its own', async () => {
    const { logger, lines } = recordingLogger();
    const seed = await start('seed', { meta: encode('cluster=a'), delegates: sameCluster, logger });
    const friend = await start('friend', { meta: encode('cluster=a') });
    const stranger = await start('stranger', { meta: encode('cluster=b') });
    const refused = await rejection(stranger.join([seed.localAddress]));
    expect(refused).toBeInstanceOf(JoinError);
    expect(refused).toMatchObject({
      code: 'FDKIT_JOIN_REJECTED',
      seed: seed.localAddress,
      reason: 'stranger is not in cluster=a',
    });
    expect(await friend.join([seed.localAddress])).toBe(1);
    await poll(() => names(friend).length === 2 && names(seed).length === 2, 'the friend joined');
    // The stranger retries its seed while alone; give it several probe periods of the seed's.
    await periodsPass(seed, 5);
    expect(names(seed)).toEqual(['friend', 'seed']);
    expect(names(friend)).toEqual(['friend', 'seed']);
    expect(names(stranger)).toEqual(['stranger']);
    expect(seed.counters().aliveRefused).toBeGreaterThan(0);
    expect(lines).toContain('debug delegate filterAlive refused');
  });

  it('a seed’s merge filter refuses a joiner that brings another cluster along', async () => {
    const seed = await start('seed', {
      delegates: {
        filterMerge: (members) =>
          members.some((m) => decode(m.meta) === 'cluster=b') ? 'another cluster' : undefined,
      },
    });
    const b1 = await start('b1', { meta: encode('cluster=b') });
    const b2 = await start('b2', { meta: encode('cluster=a') });
    expect(await b2.join([b1.localAddress])).toBe(1);
    await poll(() => names(b2).length === 2, 'b2 and b1 together');
    const refused = await rejection(b2.join([seed.localAddress]));
    expect(refused).toMatchObject({ code: 'FDKIT_JOIN_REJECTED', reason: 'another cluster' });
    expect(names(seed)).toEqual(['seed']);
    expect(seed.counters().mergesRefused).toBeGreaterThan(0);
  });

  it('application state crosses a join both ways, flagged as a join on both sides', async () => {
    const got: Record<string, Array<[string, boolean]>> = { a: [], b: [] };
    const delegates = (name: string): SwimDelegates => ({
      localState: () => encode(`state of ${name}`),
      mergeRemoteState: (state, join) => got[name]!.push([decode(state), join]),
    });
    const a = await start('a', { delegates: delegates('a') });
    const b = await start('b', { delegates: delegates('b') });
    expect(await b.join([a.localAddress])).toBe(1);
    await poll(() => got.a!.length > 0 && got.b!.length > 0, 'both states merged');
    expect(got.a![0]).toEqual(['state of b', true]);
    expect(got.b![0]).toEqual(['state of a', true]);
    expect(a.counters().delegateErrors + b.counters().delegateErrors).toBe(0);
  });

  it('a hook that throws is a warn line and a counter, and the join goes on without its state', async () => {
    const { logger, lines } = recordingLogger();
    const merged: string[] = [];
    const a = await start('a', { delegates: { mergeRemoteState: (s) => merged.push(decode(s)) } });
    const b = await start('b', {
      logger,
      delegates: {
        localState: () => {
          throw new Error('no state today');
        },
      },
    });
    await b.join([a.localAddress]);
    await poll(() => names(a).length === 2 && names(b).length === 2, 'b joined');
    expect(b.counters().delegateErrors).toBe(1);
    expect(lines).toContain('warn delegate localState threw; the protocol went on without it');
    expect(merged).toEqual([]);
  });

  it('a state over a quarter of streamBytesMax is logged and not sent', async () => {
    const { logger, lines } = recordingLogger();
    const merged: number[] = [];
    const a = await start('a', { delegates: { mergeRemoteState: (s) => merged.push(s.length) } });
    const b = await start('b', {
      logger,
      streamBytesMax: 64 * 1024,
      delegates: { localState: () => new Uint8Array(16 * 1024 + 1) },
    });
    await b.join([a.localAddress]);
    await poll(() => names(a).length === 2, 'b joined');
    expect(b.counters().delegateErrors).toBe(1);
    expect(
      lines.some((l) =>
        l.startsWith('warn delegate localState answered 16385 bytes of state, more than 16384'),
      ),
    ).toBe(true);
    expect(merged).toEqual([]);
  });

  it('createNode refuses a hook that is not a function, naming it', () => {
    const e = thrown(() => createNode({ delegates: { filterMerge: 'no' as unknown as () => undefined } }));
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect((e as InvalidOptionError).option).toBe('delegates.filterMerge');
    expect((e as InvalidOptionError).message).toContain(
      'createNode: option delegates.filterMerge must be a function, got "no" (a string)',
    );
  });
});

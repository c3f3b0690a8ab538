/**
 * Two real `SwimNode`s over UDP and TCP on 127.0.0.1 under one name (docs/design.md, "Name conflicts"):
 * a seed, the holder of `x`, and a second `x` joining through the seed. Both `x`s get a `conflict` event
 * and a warn line, the holder keeps its name and its incarnation, and nobody accuses it once the second
 * one is gone. Waits poll with deadlines that bound the test; they do not assert speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, JoinError, LifecycleError } from '../../src/errors.js';
import { createNode, type SwimNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/node-options.js';
import type { SwimConfig } from '../../src/swim/config.js';
import type { NameConflict } from '../../src/swim/delegates.js';
import type { ConflictEvent, SwimEvent } from '../../src/swim/events.js';
import { poll, rejection, thrown } from '../support/node-harness.js';

const FAST: Partial<SwimConfig> = Object.freeze({
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  gossipIntervalMs: 50,
  suspicionMult: 2,
  pushPullIntervalMs: 60_000,
  reconnectIntervalMs: 1000,
});

const nodes: SwimNode[] = [];

afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.shutdown()));
});

interface Started {
  readonly node: SwimNode;
  readonly events: SwimEvent[];
  readonly warnings: Array<[object, string]>;
}

async function start(name: string, options: Partial<NodeOptions> = {}): Promise<Started> {
  const events: SwimEvent[] = [];
  const warnings: Array<[object, string]> = [];
  const quiet = () => {};
  const node = createNode({
    name,
    bind: '127.0.0.1:0',
    config: FAST,
    logger: {
      debug: quiet,
      info: quiet,
      error: quiet,
      warn: (fields, message) => warnings.push([fields, message]),
    },
    ...options,
  });
  nodes.push(node);
  for (const type of ['alive', 'suspect', 'dead', 'conflict'] as const) {
    node.on(type, (event: SwimEvent) => events.push(event));
  }
  await node.start();
  return { node, events, warnings };
}

const conflicts = (s: Started): ConflictEvent[] =>
  s.events.filter((e): e is ConflictEvent => e.type === 'conflict');

describe('two SwimNodes under one name, over UDP', () => {
  it('both see the conflict, the holder keeps the name and its incarnation, and is never accused', async () => {
    const notified: NameConflict[] = [];
    const seed = await start('seed', { delegates: { notifyConflict: (c) => notified.push(c) } });
    const holder = await start('x');
    await holder.node.join([seed.node.localAddress]);
    await poll(() => seed.node.members().some((m) => m.name === 'x' && m.state === 'alive'), 'x joined');
    const incarnation = holder.node.localMember.incarnation;
    const impostor = await start('x');
    // Refused by the seed: the join fails with the code, and says who holds the name.
    const refused = await rejection(impostor.node.join([seed.node.localAddress]));
    expect(refused).toBeInstanceOf(JoinError);
    expect(refused).toMatchObject({ code: 'FDKIT_JOIN_NAME_CONFLICT', seed: seed.node.localAddress });
    expect((refused as JoinError).reason).toBe(
      `the name x is held by a live member at ${holder.node.localAddress}`,
    );
    await poll(() => conflicts(holder).length > 0 && conflicts(impostor).length > 0, 'both conflict events');
    const held = holder.node.localAddress;
    const other = impostor.node.localAddress;
    expect(conflicts(holder).map((c) => [c.name, c.holderAddress, c.otherAddress, c.self])).toEqual([
      ['x', held, other, true],
    ]);
    expect(conflicts(impostor)[0]).toMatchObject({
      name: 'x',
      holderAddress: held,
      otherAddress: other,
      self: true,
    });
    expect(conflicts(seed)[0]).toMatchObject({
      name: 'x',
      existingAddress: held,
      otherAddress: other,
      self: false,
    });
    for (const s of [seed, holder, impostor]) {
      expect(s.warnings.filter(([, message]) => message === 'name conflict')).toHaveLength(
        conflicts(s).length,
      );
      expect(s.node.counters().nameConflicts).toBe(conflicts(s).length);
    }
    // The conflict delegate hears what the events tell, conflict for conflict.
    expect(notified.map((c) => [c.name, c.existingAddress, c.otherAddress, c.holderAddress, c.self])).toEqual(
      conflicts(seed).map((c) => [c.name, c.existingAddress, c.otherAddress, c.holderAddress, c.self]),
    );
    await impostor.node.shutdown();
    // Five probe rounds of the seed's, in which a suspicion of the holder would have been raised and spread.
    const probes = seed.node.counters().probes;
    await poll(() => seed.node.counters().probes >= probes + 5, 'five probe rounds');
    expect(holder.node.localMember.incarnation - incarnation).toBeLessThanOrEqual(1);
    expect(holder.node.counters().refutations).toBe(0);
    expect(seed.events.filter((e) => e.type === 'suspect' || e.type === 'dead')).toEqual([]);
    const x = seed.node.members().find((m) => m.name === 'x')!;
    expect([x.state, x.address]).toEqual(['alive', held]);
  });

  it('under the majority policy the impostor loses the vote and shuts itself down', async () => {
    const majority = { conflictPolicy: 'majority' } as const;
    const seed = await start('seed', majority);
    const other = await start('other', majority);
    const holder = await start('x', majority);
    await other.node.join([seed.node.localAddress]);
    await holder.node.join([seed.node.localAddress]);
    await poll(() => seed.node.members().filter((m) => m.state === 'alive').length === 3, 'three alive');
    const impostor = await start('x', majority);
    await impostor.node.join([seed.node.localAddress]);
    await poll(
      () => impostor.warnings.some(([, m]) => m.startsWith('lost the name')),
      'the impostor gives up',
      8000,
    );
    expect(conflicts(impostor).at(-1)).toMatchObject({ holderAddress: holder.node.localAddress, self: true });
    const shutDown = (): boolean => {
      try {
        return impostor.node.localAddress === '';
      } catch (error) {
        return error instanceof LifecycleError && error.code === 'FDKIT_STOPPED';
      }
    };
    await poll(shutDown, 'the impostor shut down');
    expect(holder.node.counters().refutations).toBe(0);
  });
});

describe('createNode({ conflictPolicy })', () => {
  it('refuses a policy it does not know, naming the option and the value', () => {
    const error = thrown(() => createNode({ conflictPolicy: 'oldest' as never }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe('conflictPolicy');
    expect((error as InvalidOptionError).message).toMatch(
      /createNode: option conflictPolicy must be one of 'holder', 'majority', got "oldest"/,
    );
  });
});

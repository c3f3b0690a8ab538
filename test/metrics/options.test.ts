/**
 * `fdkitMetrics`'s contract with its caller: every bad option is an `InvalidOptionError` naming
 * `fdkitMetrics`, the option and the value received; a second call on one registry is a typed error
 * that leaves the first untouched; `close()` takes every metric and listener back.
 */
import { Counter, Registry, register } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidOptionError } from '../../src/errors.js';
import { fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { FdkitMetricsOptions } from '../../src/metrics/metrics-options.js';
import { createHeartbeatMonitor } from '../../src/node/heartbeat-monitor.js';
import { createNode } from '../../src/node/node.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { rejection } from '../support/node-harness.js';

const network = new MemoryNetwork();
// Never started: metrics can be attached before start(), and options are checked without a socket.
const node = createNode({ bind: '10.0.0.1:7946', transport: (o) => network.createTransport(o) });
const EVENTS = ['alive', 'suspect', 'dead', 'left', 'update'] as const;

function listeners(): number[] {
  return EVENTS.map((e) => node.listenerCount(e));
}

afterEach(() => {
  register.clear();
});

describe('options', () => {
  it.each<[string, unknown, string]>([
    ['registry', {}, 'an object'],
    ['registry', 'default', '"default" (a string)'],
    ['prefix', '9fdkit_', '"9fdkit_" (a string)'],
    ['prefix', 'fd-kit_', '"fd-kit_" (a string)'],
    ['prefix', 7, '7 (a number)'],
    ['perMemberLabels', -1, '-1 (a number)'],
    ['perMemberLabels', 2.5, '2.5 (a number)'],
    ['perMemberLabels', 'all', '"all" (a string)'],
    ['leader', {}, 'an object'],
    ['detectionBuckets', [], 'an array'],
    ['detectionBuckets', 5, '5 (a number)'],
  ])('%s = %j is an InvalidOptionError that names it and shows %s', async (option, value, shown) => {
    const error = await rejection(fdkitMetrics(node, { [option]: value } as FdkitMetricsOptions));
    expect(error).toBeInstanceOf(InvalidOptionError);
    const e = error as InvalidOptionError;
    expect(e.code).toBe('FDKIT_INVALID_OPTION');
    expect(e.option).toBe(option);
    expect(e.message).toMatch(new RegExp(`^fdkitMetrics: option ${option} `));
    expect(e.message).toContain(`got ${shown}`);
  });

  it('a bucket out of order names its index and the bound it must pass', async () => {
    const error = (await rejection(
      fdkitMetrics(node, { detectionBuckets: [1, 5, 5] }),
    )) as InvalidOptionError;
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error.option).toBe('detectionBuckets[2]');
    expect(error.message).toBe(
      'fdkitMetrics: option detectionBuckets[2] must be a finite number > 5, got 5 (a number)',
    );
  });

  it('an unknown option is FDKIT_UNKNOWN_OPTION; a source that is neither a node nor a monitor an InvalidArgumentError', async () => {
    const unknown = (await rejection(
      fdkitMetrics(node, { registery: new Registry() } as FdkitMetricsOptions),
    )) as InvalidOptionError;
    expect(unknown.code).toBe('FDKIT_UNKNOWN_OPTION');
    expect(unknown.option).toBe('registery');
    const notASource = await rejection(fdkitMetrics({} as never));
    expect(notASource).toBeInstanceOf(InvalidArgumentError);
    expect((notASource as Error).message).toBe(
      'fdkitMetrics: source must be a SwimNode or a HeartbeatMonitor, got an object',
    );
    // Nothing was registered or subscribed by the failed calls.
    expect(register.getMetricsAsArray()).toEqual([]);
    expect(listeners()).toEqual([0, 0, 0, 0, 0]);
  });

  it('defaults to the prefix fdkit_ and prom-client global registry', async () => {
    const metrics = await fdkitMetrics(node);
    expect(register.getSingleMetric('fdkit_members')).toBeDefined();
    metrics.close();
    expect(register.getSingleMetric('fdkit_members')).toBeUndefined();
  });
});

describe('one registry', () => {
  it('a second call with the same prefix is an InvalidOptionError naming the registry, and leaves the first as it was', async () => {
    const registry = new Registry();
    const first = await fdkitMetrics(node, { registry });
    const before = await registry.metrics();
    const subscribed = listeners();
    const error = (await rejection(fdkitMetrics(node, { registry }))) as InvalidOptionError;
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error.option).toBe('registry');
    expect(error.message).toContain(
      'fdkitMetrics: option registry already holds a metric named fdkit_members',
    );
    expect(error.message).not.toContain('has already been registered');
    expect(await registry.metrics()).toBe(before);
    expect(listeners()).toEqual(subscribed);
    // Another prefix is another set of names.
    const second = await fdkitMetrics(node, { registry, prefix: 'other_' });
    expect(registry.getSingleMetric('other_members')).toBeDefined();
    first.close();
    second.close();
  });

  it('a name taken by someone else registers none of the metrics', async () => {
    const registry = new Registry();
    const theirs = new Counter({ name: 'fdkit_probes_total', help: 'theirs', registers: [registry] });
    const error = (await rejection(fdkitMetrics(node, { registry }))) as InvalidOptionError;
    expect(error.message).toContain('already holds a metric named fdkit_probes_total');
    expect(registry.getMetricsAsArray()).toEqual([theirs]);
  });

  it('close() unregisters every metric and listener, once; the registry can then be used again', async () => {
    const registry = new Registry();
    const monitor = createHeartbeatMonitor({
      bind: '10.0.0.2:7947',
      transport: (o) => network.createTransport(o),
    });
    const idle = listeners();
    const metrics = await fdkitMetrics(node, { registry });
    const monitorMetrics = await fdkitMetrics(monitor, { registry, prefix: 'hb_' });
    expect(listeners()).toEqual(idle.map((n) => n + 1));
    expect(['alive', 'suspect', 'dead'].map((e) => monitor.listenerCount(e as 'dead'))).toEqual([1, 1, 1]);
    metrics.close();
    metrics.close();
    expect(listeners()).toEqual(idle);
    expect(
      registry.getMetricsAsArray().every((m) => (m as unknown as { name: string }).name.startsWith('hb_')),
    ).toBe(true);
    monitorMetrics.close();
    expect(['alive', 'suspect', 'dead'].map((e) => monitor.listenerCount(e as 'dead'))).toEqual([0, 0, 0]);
    expect(registry.getMetricsAsArray()).toEqual([]);
    (await fdkitMetrics(node, { registry })).close();
  });
});

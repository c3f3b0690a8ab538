/**
 * `fdkitMetrics`: Prometheus metrics of a SWIM node or a heartbeat monitor, through prom-client (an
 * optional peer dependency, loaded here and nowhere else). The metrics are registered all at once or
 * not at all, and {@link FdkitMetrics.close} takes them back out.
 */
import type { Metric, Registry } from 'prom-client';
import { InvalidArgumentError, InvalidOptionError } from '../errors.js';
import { describeReceived } from '../options.js';
import { leaderMetrics } from './leader-metrics.js';
import { MetricFactory } from './metric-factory.js';
import {
  type FdkitMetricsOptions,
  OWNER,
  type ResolvedMetricsOptions,
  resolveMetricsOptions,
} from './metrics-options.js';
import { type MonitorMetricsSource, monitorMetrics } from './monitor-metrics.js';
import { type NodeMetricsSource, nodeMetrics } from './node-metrics.js';
import { loadPromClient } from './prom-client.js';

/** The metrics of one source in one registry, from {@link fdkitMetrics}. */
export interface FdkitMetrics {
  /**
   * Unregisters the metrics and stops listening to the source and the leader hint, so that the same
   * registry and prefix can be used again. Idempotent.
   */
  close(): void;
}

function isMonitor(source: NodeMetricsSource | MonitorMetricsSource): source is MonitorMetricsSource {
  return typeof (source as Partial<MonitorMetricsSource>).peers === 'function';
}

function checkSource(source: unknown): void {
  const s = source as Partial<NodeMetricsSource & MonitorMetricsSource> | null;
  const ok =
    typeof s === 'object' &&
    s !== null &&
    typeof s.counters === 'function' &&
    typeof s.on === 'function' &&
    typeof s.off === 'function' &&
    (typeof s.peers === 'function' || typeof s.members === 'function');
  if (!ok) {
    throw new InvalidArgumentError(
      'source',
      `${OWNER}: source must be a SwimNode or a HeartbeatMonitor, got ${describeReceived(source)}`,
    );
  }
}

/** Registers every metric, or none when one of the names is taken. */
function registerAll(registry: Registry, metrics: readonly Metric[], options: ResolvedMetricsOptions): void {
  const { owner, path, prefix } = options;
  for (const metric of metrics) {
    const name = (metric as unknown as { name: string }).name;
    if (registry.getSingleMetric(name) !== undefined) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        `${path}registry`,
        `${owner}: option ${path}registry already holds a metric named ${name}: metrics of another source were registered on this registry with prefix ${JSON.stringify(prefix)}, or another library uses the name. Give each source its own prefix or registry, or close() the first.`,
      );
    }
  }
  for (const metric of metrics) registry.registerMetric(metric);
}

/**
 * Loads prom-client and registers the metrics of `source` under options already checked: what
 * {@link fdkitMetrics} does after its checks, and what `start()` does for the factories' `metrics`
 * option.
 */
export async function registerMetrics(
  source: NodeMetricsSource | MonitorMetricsSource,
  resolved: ResolvedMetricsOptions,
): Promise<FdkitMetrics> {
  const { owner, path } = resolved;
  const prom = await loadPromClient(path === '' ? owner : `${owner}: option ${path.slice(0, -1)}`);
  const registry = resolved.registry ?? prom.register;
  const factory = new MetricFactory(prom, resolved.prefix);
  const detach = [
    isMonitor(source) ? monitorMetrics(factory, source, resolved) : nodeMetrics(factory, source, resolved),
  ];
  if (resolved.leader !== undefined) detach.push(leaderMetrics(factory, resolved.leader));
  try {
    registerAll(registry, factory.made, resolved);
  } catch (error) {
    for (const stop of detach) stop();
    throw error;
  }
  let closed = false;
  return {
    close: () => {
      if (closed) return;
      closed = true;
      for (const stop of detach) stop();
      for (const metric of factory.made) {
        const name = (metric as unknown as { name: string }).name;
        if (registry.getSingleMetric(name) === metric) registry.removeSingleMetric(name);
      }
    },
  };
}

/**
 * Exports a `SwimNode`'s or a `HeartbeatMonitor`'s metrics to a prom-client registry:
 * members by state, local health, suspicions, refutations (its own and others' it saw), deaths and
 * transitions by cause, detection time, probes and their round trips, nacks, traffic by transport, the
 * broadcast queue, push-pulls and their durations, drops by reason; with a `leader` hint, its changes
 * and epoch. docs/metrics.md lists every name beside memberlist's equivalent. `createNode` and
 * `createHeartbeatMonitor` register the same with their `metrics` option.
 *
 * Counters and gauges are read from the source when Prometheus scrapes, so a member pays nothing
 * between scrapes; only member events (transitions, at most a few a second) are counted as they come,
 * and a node's probe round trips and push-pull durations observed as it measures them (its `rtt` and
 * `push-pull` events, a number each).
 * No label holds a member's name unless `perMemberLabels` asks for it.
 *
 * Rejects with an `InvalidOptionError` for a bad option or a registry that already holds one of the
 * names, an `InvalidArgumentError` for a source that is neither, and a `MissingDependencyError`
 * (`FDKIT_MISSING_DEPENDENCY`) when prom-client is not installed.
 *
 * @param source - a `SwimNode` or a `HeartbeatMonitor`, started or not
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * const registry = new Registry();
 * const metrics = await fdkitMetrics(node, { registry });
 * // serve `await registry.metrics()` with the content type `registry.contentType`
 * metrics.close();
 * ```
 */
export async function fdkitMetrics(
  source: NodeMetricsSource | MonitorMetricsSource,
  options: FdkitMetricsOptions = {},
): Promise<FdkitMetrics> {
  checkSource(source);
  return registerMetrics(source, resolveMetricsOptions(options));
}

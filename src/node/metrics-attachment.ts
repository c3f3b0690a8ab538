/**
 * The `metrics` option of `createNode` and `createHeartbeatMonitor`: the metrics `fdkitMetrics` would
 * register, registered by `start()` and unregistered by `shutdown()`. The factories are synchronous and
 * prom-client loads asynchronously, so the option is checked at construction and acted on at the start,
 * before anything binds: a missing prom-client or a registry that already holds the names rejects
 * `start()` with nothing bound.
 */
import { type FdkitMetrics, registerMetrics } from '../metrics/fdkit-metrics.js';
import type { ResolvedMetricsOptions } from '../metrics/metrics-options.js';
import type { MonitorMetricsSource } from '../metrics/monitor-metrics.js';
import type { NodeMetricsSource } from '../metrics/node-metrics.js';

export class MetricsAttachment {
  // The first start()'s registration, once it began: later calls wait for it rather than register twice.
  private registering: Promise<FdkitMetrics> | undefined;
  private metrics: FdkitMetrics | undefined;
  private closed = false;

  /** @param options - the checked option; undefined when the factory was not given one */
  constructor(
    private readonly source: NodeMetricsSource | MonitorMetricsSource,
    private readonly options: ResolvedMetricsOptions | undefined,
  ) {}

  /**
   * Registers the metrics, then runs `start` (the host's start, which binds). A start that fails takes
   * the metrics it registered back out. Only the first call registers: another one runs `start` alone,
   * which rejects as a second start does.
   */
  async around(start: () => Promise<void>): Promise<void> {
    const options = this.options;
    if (options === undefined) return start();
    if (this.registering !== undefined) {
      await this.registering;
      return start();
    }
    const registering = registerMetrics(this.source, options);
    this.registering = registering;
    let metrics: FdkitMetrics;
    try {
      metrics = await registering;
    } catch (error) {
      // Nothing was registered: a later start() tries again.
      this.registering = undefined;
      throw error;
    }
    this.metrics = metrics;
    // A shutdown() while prom-client loaded: the start below rejects, and the metrics go.
    if (this.closed) metrics.close();
    try {
      await start();
    } catch (error) {
      metrics.close();
      throw error;
    }
  }

  /** Unregisters the metrics, now or, while they are being registered, as soon as they are. Idempotent. */
  close(): void {
    this.closed = true;
    this.metrics?.close();
  }
}

/**
 * `fdkit/metrics`: Prometheus metrics of a SWIM node or a heartbeat monitor through prom-client, an
 * optional peer dependency that only {@link fdkitMetrics} loads (`npm install prom-client`). See
 * docs/metrics.md for the names and memberlist's equivalents.
 *
 * @module fdkit/metrics
 */
export { MissingDependencyError } from '../errors.js';
export { type FdkitMetrics, fdkitMetrics } from '../metrics/fdkit-metrics.js';
export type { LeaderSource } from '../metrics/leader-metrics.js';
export type { FdkitMetricsOptions, MetricsOption } from '../metrics/metrics-options.js';
export type { MonitorMetricsSource } from '../metrics/monitor-metrics.js';
export type { NodeMeasurement, NodeMetricsSource } from '../metrics/node-metrics.js';
export type { MemberEventSource, MemberEventType } from '../metrics/transition-metrics.js';

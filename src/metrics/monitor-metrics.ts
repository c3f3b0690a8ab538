/**
 * The metrics of a heartbeat monitor (`HeartbeatMonitor`): its counters, peers and local health
 * read on scrape, its transitions counted as they come. No per-peer series unless asked for.
 */
import type { PeerStateName } from '../heartbeat/heartbeat-core.js';
import type { HeartbeatMonitorCounters } from '../node/heartbeat-monitor-counters.js';
import { countByState, highestPhi } from './member-series.js';
import type { MetricFactory } from './metric-factory.js';
import { METRICS } from './metric-names.js';
import type { ResolvedMetricsOptions } from './metrics-options.js';
import { type MemberEventSource, transitionMetrics } from './transition-metrics.js';

/** What the metrics read of a heartbeat monitor: a `HeartbeatMonitor` has all of it. */
export interface MonitorMetricsSource extends MemberEventSource {
  /** The monitor's cumulative counters. */
  counters(): HeartbeatMonitorCounters;
  /** Every monitored peer, with the phi of its silence now. */
  peers(): readonly {
    /** Its member name. */
    readonly name: string;
    /** Its state in the source's view. */
    readonly state: PeerStateName;
    /** The phi of its silence now. */
    readonly phi: number;
  }[];
  /** Lifeguard local health score. */
  readonly localHealth: number;
}

const STATES: readonly PeerStateName[] = ['unknown', 'alive', 'suspect', 'dead'];
// Suspicions tracked for the detection time at once: a monitor watches a fixed, small set of peers.
const SUSPECTS_MAX = 100_000;

/** Makes a heartbeat monitor's metrics; returns what unsubscribes from its events. */
export function monitorMetrics(
  factory: MetricFactory,
  monitor: MonitorMetricsSource,
  options: ResolvedMetricsOptions,
): () => void {
  const count = (read: (c: HeartbeatMonitorCounters) => number) => () => read(monitor.counters());
  const udp = (read: (c: HeartbeatMonitorCounters) => number) => () => ({ udp: read(monitor.counters()) });
  factory.gaugesBy(METRICS.members, () => countByState(monitor.peers(), STATES));
  factory.gaugeOf(METRICS.localHealth, () => monitor.localHealth);
  factory.countOf(
    METRICS.suspicions,
    count((c) => c.suspicions),
  );
  factory.countOf(
    METRICS.heartbeatsSent,
    count((c) => c.heartbeatsOut),
  );
  factory.countOf(
    METRICS.heartbeatsReceived,
    count((c) => c.heartbeatsIn),
  );
  factory.countsBy(
    METRICS.messagesSent,
    udp((c) => c.packetsOut),
  );
  factory.countsBy(
    METRICS.messagesReceived,
    udp((c) => c.packetsIn),
  );
  factory.countsBy(
    METRICS.bytesSent,
    udp((c) => c.bytesOut),
  );
  factory.countsBy(
    METRICS.bytesReceived,
    udp((c) => c.bytesIn),
  );
  factory.countsBy(
    METRICS.sendErrors,
    udp((c) => c.sendErrors),
  );
  factory.countsBy(METRICS.dropped, () => monitor.counters().drops);
  factory.countOf(
    METRICS.decryptFailures,
    count((c) => c.drops['decrypt-failed']),
  );
  factory.countOf(
    METRICS.restarts,
    count((c) => c.restarts),
  );
  factory.countOf(
    METRICS.lateTimers,
    count((c) => c.lateTimers),
  );
  factory.countOf(
    METRICS.freezes,
    count((c) => c.freezes),
  );
  if (options.memberSeries > 0) {
    factory.gaugesBy(METRICS.memberPhi, () => highestPhi(monitor.peers(), options.memberSeries));
  }
  return transitionMetrics(factory, monitor, {
    types: ['alive', 'suspect', 'dead'],
    deathCauses: ['phi-threshold', 'suspicion-timeout'],
    detectionBuckets: options.detectionBuckets,
    membersMax: SUSPECTS_MAX,
  });
}

/**
 * The metrics of a SWIM node (`SwimNode`): its counters, view and local health read on scrape,
 * its member events counted as they come.
 */
import type { MemberStateName } from '../membership/member-state.js';
import type { NodeCounters } from '../node/node-counters.js';
import { countByState, highestPhi } from './member-series.js';
import type { MetricFactory } from './metric-factory.js';
import { METRICS } from './metric-names.js';
import type { ResolvedMetricsOptions } from './metrics-options.js';
import { type MemberEventSource, transitionMetrics } from './transition-metrics.js';

/** What the metrics read of a SWIM node: a `SwimNode` has all of it. */
export interface NodeMetricsSource extends MemberEventSource {
  /** The node's cumulative counters. */
  counters(): NodeCounters;
  /** Every member the node knows, itself included. */
  members(): readonly {
    /** Its member name. */
    readonly name: string;
    /** Its state in the source's view. */
    readonly state: MemberStateName;
    /** The phi of its silence now. */
    readonly phi: number;
  }[];
  /** Lifeguard local health score. */
  readonly localHealth: number;
  /** Updates waiting to be gossiped. */
  readonly pendingBroadcasts: number;
}

const STATES: readonly MemberStateName[] = ['alive', 'suspect', 'dead', 'left'];
// Suspicions tracked for the detection time at once: beyond the largest cluster fdkit is run at.
const SUSPECTS_MAX = 100_000;

/** Makes a node's metrics; returns what unsubscribes from its events. */
export function nodeMetrics(
  factory: MetricFactory,
  node: NodeMetricsSource,
  options: ResolvedMetricsOptions,
): () => void {
  const count = (read: (c: NodeCounters) => number) => () => read(node.counters());
  factory.gaugesBy(METRICS.members, () => countByState(node.members(), STATES));
  factory.gaugeOf(METRICS.localHealth, () => node.localHealth);
  factory.countOf(
    METRICS.suspicions,
    count((c) => c.suspicions),
  );
  factory.countOf(
    METRICS.refutations,
    count((c) => c.refutations),
  );
  factory.countOf(
    METRICS.nameConflicts,
    count((c) => c.nameConflicts),
  );
  factory.countOf(
    METRICS.probes,
    count((c) => c.probes),
  );
  factory.countOf(
    METRICS.probesFailed,
    count((c) => c.probesFailed),
  );
  factory.countOf(
    METRICS.indirectProbes,
    count((c) => c.indirectProbes),
  );
  factory.countOf(
    METRICS.nacksSent,
    count((c) => c.nacksSent),
  );
  factory.countOf(
    METRICS.nacksReceived,
    count((c) => c.nacksReceived),
  );
  const traffic = (udp: (c: NodeCounters) => number, tcp: (c: NodeCounters) => number) => () => {
    const c = node.counters();
    return { udp: udp(c), tcp: tcp(c) };
  };
  factory.countsBy(
    METRICS.messagesSent,
    traffic(
      (c) => c.packetsOut,
      (c) => c.streamsOut,
    ),
  );
  factory.countsBy(
    METRICS.messagesReceived,
    traffic(
      (c) => c.packetsIn,
      (c) => c.streamsIn,
    ),
  );
  factory.countsBy(
    METRICS.bytesSent,
    traffic(
      (c) => c.bytesOut,
      (c) => c.streamBytesOut,
    ),
  );
  factory.countsBy(
    METRICS.bytesReceived,
    traffic(
      (c) => c.bytesIn,
      (c) => c.streamBytesIn,
    ),
  );
  factory.countsBy(
    METRICS.sendErrors,
    traffic(
      (c) => c.sendErrors,
      (c) => c.streamSendErrors,
    ),
  );
  factory.gaugeOf(METRICS.broadcastQueue, () => node.pendingBroadcasts);
  factory.countOf(
    METRICS.pushPulls,
    count((c) => c.pushPulls),
  );
  factory.countsBy(METRICS.dropped, () => node.counters().drops);
  factory.countOf(
    METRICS.decryptFailures,
    count((c) => c.drops['decrypt-failed']),
  );
  factory.countOf(
    METRICS.lateTimers,
    count((c) => c.lateTimers),
  );
  if (options.memberSeries > 0) {
    factory.gaugesBy(METRICS.memberPhi, () => highestPhi(node.members(), options.memberSeries));
  }
  return transitionMetrics(factory, node, {
    types: ['alive', 'suspect', 'dead', 'left', 'update'],
    deathCauses: ['suspicion-timeout', 'dead-gossip', 'connection-refused'],
    detectionBuckets: options.detectionBuckets,
    membersMax: SUSPECTS_MAX,
  });
}

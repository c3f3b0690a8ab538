/**
 * The metrics of a SWIM node (`SwimNode`): its counters, view and local health read on scrape,
 * its member events counted as they come, and the durations it measures (probe round trips,
 * push-pulls) observed as it reports them.
 */
import type { MemberEvent } from '../membership/events.js';
import type { MemberStateName } from '../membership/member-state.js';
import type { NodeCounters } from '../node/node-counters.js';
import { countByState, highestPhi } from './member-series.js';
import type { MetricFactory } from './metric-factory.js';
import { METRICS } from './metric-names.js';
import type { ResolvedMetricsOptions } from './metrics-options.js';
import { type MemberEventSource, type MemberEventType, transitionMetrics } from './transition-metrics.js';

/** The durations a node reports as it measures them, in ms: a `SwimNode`'s `rtt` and `push-pull` events. */
export type NodeMeasurement = 'rtt' | 'push-pull';

/** What the metrics read of a SWIM node: a `SwimNode` has all of it. */
export interface NodeMetricsSource extends MemberEventSource {
  /** Subscribes `listener` to one kind of member event. */
  on(event: MemberEventType, listener: (event: MemberEvent) => void): unknown;
  /** Subscribes `listener` to one kind of duration, in ms, each as it is measured. */
  on(event: NodeMeasurement, listener: (ms: number) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: MemberEventType, listener: (event: MemberEvent) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: NodeMeasurement, listener: (ms: number) => void): unknown;
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
/**
 * Bounds of `probe_rtt_seconds`: a LAN's round trips (well under a millisecond, a few under load) to a
 * WAN's (tens to hundreds), up to the `wan` profile's probe interval, past which no ack is waited for.
 */
const RTT_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5,
];
/**
 * Bounds of `push_pull_duration_seconds`: a few ms for a small cluster on a LAN, to the 10 s connect and
 * stream timeouts each, by default, for a large state over a slow path.
 */
const PUSH_PULL_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20,
];
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
    METRICS.refutationsSeen,
    count((c) => c.refutationsSeen),
  );
  factory.countOf(
    METRICS.nameConflicts,
    count((c) => c.nameConflicts),
  );
  factory.countOf(
    METRICS.incarnationJumps,
    count((c) => c.incarnationJumps),
  );
  factory.countOf(
    METRICS.busySpells,
    count((c) => c.busySpells),
  );
  factory.countOf(
    METRICS.busyExcused,
    count((c) => c.busyExcused),
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
  const stopDurations = durationMetrics(factory, node);
  const stopTransitions = transitionMetrics(factory, node, {
    types: ['alive', 'suspect', 'dead', 'left', 'update'],
    deathCauses: ['suspicion-timeout', 'dead-gossip', 'connection-refused'],
    detectionBuckets: options.detectionBuckets,
    membersMax: SUSPECTS_MAX,
  });
  return () => {
    stopDurations();
    stopTransitions();
  };
}

/** The histograms of the durations the node measures; returns what unsubscribes. */
function durationMetrics(factory: MetricFactory, node: NodeMetricsSource): () => void {
  const rtt = factory.histogram(METRICS.probeRtt, RTT_BUCKETS);
  const pushPull = factory.histogram(METRICS.pushPullDuration, PUSH_PULL_BUCKETS);
  const onRtt = (ms: number): void => rtt.observe(ms / 1000);
  const onPushPull = (ms: number): void => pushPull.observe(ms / 1000);
  node.on('rtt', onRtt);
  node.on('push-pull', onPushPull);
  return () => {
    node.off('rtt', onRtt);
    node.off('push-pull', onPushPull);
  };
}

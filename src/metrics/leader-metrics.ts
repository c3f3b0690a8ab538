/**
 * The leader metrics, for a `LeaderHint` attached with the `leader` option: neither a node nor a
 * heartbeat monitor has a leader of its own, the hint over either does.
 */
import type { LeaderChange, LeaderChangeCause } from '../omega/leader-core.js';
import type { MetricFactory } from './metric-factory.js';
import { METRICS } from './metric-names.js';

/** What the metrics read of a leader hint: a `LeaderHint` has all of it. */
export interface LeaderSource {
  /** How many times the leader changed since the hint started. */
  readonly epoch: number;
  /** Whether the local member is the leader the hint names. */
  readonly isLeader: boolean;
  /** Subscribes to the hint's changes of leader. */
  on(event: 'leader', listener: (change: LeaderChange) => void): unknown;
  /** Removes a listener that `on` added. */
  off(event: 'leader', listener: (change: LeaderChange) => void): unknown;
}

// A record, so that a cause added to the type and not here fails to compile.
const CAUSES = Object.keys({
  'leader-suspect': true,
  'leader-dead': true,
  'leader-left': true,
  'stable-better': true,
  'rank-changed': true,
  'self-comeback': true,
} satisfies Record<LeaderChangeCause, true>);

/** Makes the leader metrics and subscribes to the hint; returns what unsubscribes. */
export function leaderMetrics(factory: MetricFactory, leader: LeaderSource): () => void {
  factory.gaugeOf(METRICS.leaderEpoch, () => leader.epoch);
  factory.gaugeOf(METRICS.leaderIsSelf, () => (leader.isLeader ? 1 : 0));
  const changes = factory.counter(METRICS.leaderChanges);
  // At zero from the start, so that a rate over the first change is not lost.
  for (const cause of CAUSES) changes.inc({ cause }, 0);
  const listener = (change: LeaderChange): void => {
    changes.inc({ cause: change.cause });
  };
  leader.on('leader', listener);
  return () => leader.off('leader', listener);
}

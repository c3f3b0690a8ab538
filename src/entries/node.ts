/**
 * `fdkit/node`: members over real sockets. {@link createNode} runs a SWIM member over UDP and TCP, with
 * optional encryption ({@link Keyring}); {@link createHeartbeatMonitor} sends direct heartbeats to a fixed
 * set of peers instead, each judged by a phi accrual detector; {@link LeaderHint} names an eventual
 * leader over either. The transports, their addresses and seed resolution, the heartbeat monitor's
 * sans-I/O core, and trace recording between real members are here too.
 *
 * @module fdkit/node
 */

export type { SplitBrainResolverOptions } from '../downing/downing-options.js';
export type {
  DownAllStrategy,
  DownDecision,
  DownedSelfDecision,
  DowningDecision,
  DowningLease,
  DowningStrategy,
  KeepMajorityStrategy,
  KeepOldestStrategy,
  LeaseMajorityStrategy,
  StaticQuorumStrategy,
} from '../downing/downing-types.js';
export {
  type DowningSides,
  type DowningSource,
  type DowningSourceMember,
  SplitBrainResolver,
  type SplitBrainResolverEventMap,
} from '../downing/split-brain-resolver.js';
export type { DowningStrategyName } from '../downing/strategy.js';
export {
  AbortError,
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  JoinError,
  type JoinErrorCode,
  type JoinSeedOutcome,
  KeyringError,
  type KeyringErrorCode,
  type LifecycleCode,
  LifecycleError,
  NetworkError,
  type NetworkErrorCode,
} from '../errors.js';
export {
  HEARTBEAT_CONFIG_KEYS,
  type HeartbeatConfig,
  resolveHeartbeatConfig,
} from '../heartbeat/config.js';
export type { HeartbeatEnvironment } from '../heartbeat/environment.js';
export {
  HeartbeatCore,
  type HeartbeatCoreCounters,
  type HeartbeatCoreOptions,
  type PeerInfo,
  type PeerSpec,
  type PeerStateName,
} from '../heartbeat/heartbeat-core.js';
export type { Heartbeat } from '../heartbeat/messages.js';
export type { MemberEvent, TransitionCause } from '../membership/events.js';
export type { MemberStateName } from '../membership/member-state.js';
export type { MetricsOption } from '../metrics/metrics-options.js';
export type { EventStreamOptions } from '../node/event-stream.js';
export {
  createHeartbeatMonitor,
  HeartbeatMonitor,
  type HeartbeatMonitorEventMap,
} from '../node/heartbeat-monitor.js';
export type {
  HeartbeatDropReason,
  HeartbeatMonitorCounters,
} from '../node/heartbeat-monitor-counters.js';
export type { HeartbeatMonitorOptions, HeartbeatPeer } from '../node/heartbeat-monitor-options.js';
export type { ShutdownOptions, StartOptions } from '../node/lifecycle.js';
export type { LocalHealthOption, StressSource } from '../node/local-health.js';
export {
  createNode,
  type JoinOptions,
  type LeaveOptions,
  type LeaveResult,
  type NodeEventMap,
  SwimNode,
} from '../node/node.js';
export type { NodeCounters } from '../node/node-counters.js';
export type { NodeOptions, TransportFactory } from '../node/node-options.js';
export type { MemberlistWireOptions, WireName } from '../node/wire-options.js';
export type { DelegateVersions } from '../wire/memberlist/versions.js';
export {
  type RecordingProgress,
  type RecordTracesOptions,
  recordTraces,
} from '../node/trace-recording.js';
export {
  type KnownMember,
  LeaderBaseline,
  type LeaderCandidate,
  type LeaderChange,
  type LeaderChangeCause,
  LeaderCore,
  type LeaderInput,
  type RankedMember,
} from '../omega/leader-core.js';
export {
  type DowningEvents,
  type LeaderDowned,
  LeaderHint,
  type LeaderHintEventMap,
  type LeaderHintOptions,
  type LeaderSourceEvent,
  type MemberEventName,
  type MembershipSource,
} from '../omega/leader-hint.js';
export {
  DEFAULT_STABLE_FOR_MS,
  type LeaderCoreOptions,
  type LeaderSelf,
  type RankFunction,
} from '../omega/leader-options.js';
export { DEFAULT_PRIORITY, priorityFromMeta } from '../omega/priority.js';
export type { LogBindings, Logger } from '../runtime/logger.js';
export type { ConflictPolicy } from '../swim/conflict-policy.js';
export type { MemberInfo, MemberSuspicion } from '../swim/core.js';
export type { CandidateMember, NameConflict, SwimDelegates } from '../swim/delegates.js';
export {
  type ConflictEvent,
  type DeclaredDeadEvent,
  isMemberEvent,
  type MessageEvent,
  type RefutedEvent,
  type SwimEvent,
} from '../swim/events.js';
export * from '../transport/index.js';
export { DROP_REASONS as WIRE_DROP_REASONS, type DropReason as WireDropReason } from '../wire/drop-reason.js';
export { KEY_BYTES, Keyring } from '../wire/keyring.js';
export { LABEL_BYTES_MAX, SEAL_OVERHEAD_BYTES } from '../wire/seal.js';

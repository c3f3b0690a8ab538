/**
 * fdkit: failure detection for clustered Node.js services. The package root exports the public API;
 * see docs/design.md for the layers.
 */

export { ChenDetector, type ChenOptions } from './detector/chen.js';
export type { FailureDetector } from './detector/failure-detector.js';
export { FixedTimeoutDetector, type FixedTimeoutOptions } from './detector/fixed-timeout.js';
export { PHI_FACTOR, phi } from './detector/phi.js';
export { PhiAccrualDetector, type PhiAccrualOptions } from './detector/phi-accrual.js';
export { DetectorRegistry } from './detector/registry.js';
export {
  FenceError,
  type FenceErrorCode,
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  KeyringError,
  type KeyringErrorCode,
  LeaseError,
  type LeaseErrorCode,
  type LifecycleCode,
  LifecycleError,
  MissingDependencyError,
  NetworkError,
  type NetworkErrorCode,
  StaleTokenError,
  TraceFormatError,
} from './errors.js';
export {
  type CasClaim,
  type CasStore,
  type CasVersion,
  type ClaimCasOptions,
  claimCas,
  EtcdCasStore,
  type FencedRecord,
  MemoryCasStore,
  type Versioned,
} from './fencing/cas/index.js';
export type { EtcdLease } from './fencing/etcd-lease.js';
export { createEtcdLeaseProvider, type EtcdLeaseProviderOptions } from './fencing/etcd-lease-provider.js';
export { ETCD_EPOCH_MAX } from './fencing/etcd-token.js';
export {
  type FenceCheck,
  type FenceStore,
  FencingGuard,
  type FencingGuardOptions,
} from './fencing/fencing-guard.js';
export { type IdempotencyPart, idempotencyKey } from './fencing/idempotency-key.js';
export type { AcquireOptions, Lease, LeaseProvider, ReleaseOptions } from './fencing/lease.js';
export type { LeaseEventMap, LeaseStateName } from './fencing/lease-state.js';
export {
  defaultSafetyMarginMs,
  KUBERNETES_LEASE_TIMINGS,
  type LeaseTimings,
  minimumSafetyMarginMs,
} from './fencing/lease-timings.js';
export type { SqlDialect, SqlOperator } from './fencing/sql/dialect.js';
export type { FenceMode } from './fencing/sql/fence-verdict.js';
export {
  claimFenceSql,
  FENCE_TABLE,
  type FencedUpdate,
  type FenceTarget,
  fenceDiagnosisSql,
  fencedUpdateSql,
  fenceRowSql,
  fenceTableSql,
  judgeFence,
  type SqlStatementText,
} from './fencing/sql/fenced-statements.js';
export { type ClaimedUpdate, claimFence, type SqliteClaim } from './fencing/sql/sqlite-claim.js';
export type { SqlDatabase, SqlStatement, SqlTransaction } from './fencing/sql/sqlite-database.js';
export { type FencedUpdateResult, fencedUpdate } from './fencing/sql/sqlite-fenced-update.js';
export type { SqlCondition, SqlValue, SqlWhere } from './fencing/sql/statement-parts.js';
export {
  FENCING_TOKEN_MAX,
  type FenceHolder,
  type FencingToken,
  type TokenHolder,
} from './fencing/token.js';
export {
  HEARTBEAT_CONFIG_KEYS,
  type HeartbeatConfig,
  resolveHeartbeatConfig,
} from './heartbeat/config.js';
export type { HeartbeatEnvironment } from './heartbeat/environment.js';
export {
  HeartbeatCore,
  type HeartbeatCoreCounters,
  type HeartbeatCoreOptions,
  type PeerInfo,
  type PeerSpec,
  type PeerStateName,
} from './heartbeat/heartbeat-core.js';
export type { Heartbeat } from './heartbeat/messages.js';
export { META_BYTES_MAX, NAME_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from './membership/limits.js';
export type { MemberStateName } from './membership/member-state.js';
export type { EventStreamOptions } from './node/event-stream.js';
export {
  createHeartbeatMonitor,
  HeartbeatMonitor,
  type HeartbeatMonitorEventMap,
} from './node/heartbeat-monitor.js';
export type {
  HeartbeatDropReason,
  HeartbeatMonitorCounters,
} from './node/heartbeat-monitor-counters.js';
export type { HeartbeatMonitorOptions, HeartbeatPeer } from './node/heartbeat-monitor-options.js';
export {
  createNode,
  type JoinOptions,
  type LeaveOptions,
  type NodeEventMap,
  SwimNode,
} from './node/node.js';
export type { NodeCounters } from './node/node-counters.js';
export type { NodeOptions, TransportFactory } from './node/node-options.js';
export {
  type RecordingProgress,
  type RecordTracesOptions,
  recordTraces,
} from './node/trace-recording.js';
export {
  type KnownMember,
  LeaderBaseline,
  type LeaderCandidate,
  type LeaderChange,
  type LeaderChangeCause,
  LeaderCore,
  type LeaderInput,
} from './omega/leader-core.js';
export {
  LeaderHint,
  type LeaderHintEventMap,
  type LeaderHintOptions,
  type MemberEventName,
  type MembershipSource,
} from './omega/leader-hint.js';
export {
  DEFAULT_STABLE_FOR_MS,
  type LeaderCoreOptions,
  type LeaderSelf,
  type RankFunction,
} from './omega/leader-options.js';
export { DEFAULT_PRIORITY, priorityFromMeta } from './omega/priority.js';
export { type QosMetrics, qosMetrics } from './qos/metrics.js';
export type { Clock, Timer } from './runtime/clock.js';
export { Random } from './runtime/random.js';
export { createSystemClock, entropySeed, type SystemClockOptions, systemClock } from './runtime/system.js';
export { VirtualClock, type VirtualClockOptions } from './runtime/virtual-clock.js';
export type {
  CrashFault,
  FaultPlan,
  FaultRequest,
  PartitionFault,
  PauseFault,
  SlowCpuFault,
} from './sim/faults.js';
export { planFaults } from './sim/faults.js';
export { lanNetwork, type NetworkModel } from './sim/network.js';
export type { Quantiles, SimulationReport } from './sim/report.js';
export { Simulation, type SimulationOptions } from './sim/simulation.js';
export type { AdaptiveTimeoutOptions } from './swim/adaptive-timeout.js';
export { resolveSwimConfig, SWIM_CONFIG_KEYS, type SwimConfig } from './swim/config.js';
export { type MemberInfo, SwimCore, type SwimCoreOptions } from './swim/core.js';
export type { SwimCounters } from './swim/counters.js';
export { MemberDirectory } from './swim/directory.js';
export type { SwimEnvironment } from './swim/environment.js';
export type { MessageEvent, SwimEvent } from './swim/events.js';
export type {
  Ack,
  AliveUpdate,
  DeadUpdate,
  Gossip,
  MemberList,
  Nack,
  Packet,
  Ping,
  PingReq,
  PushPull,
  StreamMessage,
  SuspectUpdate,
  Update,
  UserBroadcast,
  UserPacket,
} from './swim/messages.js';
export { lan, local, type ProfileName, profiles, wan } from './swim/profiles.js';
export { expectedTiming, type Timing } from './swim/timing.js';
export type { DelayModel } from './trace/delay.js';
export type { Distribution } from './trace/distribution.js';
export {
  type GenerateTraceOptions,
  generateTrace,
  type RandomPausesOptions,
  randomPauses,
  type SenderPause,
} from './trace/generate.js';
export { burstyLoss, type LossModel } from './trace/loss.js';
export { type PeerRecordingStatus, TraceRecorder, type TraceRecorderOptions } from './trace/recorder.js';
export {
  type PreparedTrace,
  prepareTrace,
  type Replay,
  replayTrace,
  type SuspicionInterval,
} from './trace/replay.js';
export { summarizeTrace, type TraceSummary } from './trace/summary.js';
export {
  type JsonObject,
  type JsonValue,
  TRACE_FORMAT,
  TRACE_VERSION,
  type Trace,
  type TraceArrival,
  type TraceHeader,
  type TraceRecording,
} from './trace/trace.js';
export { checkTrace, formatTrace, parseTrace, type TraceSourceOptions } from './trace/trace-format.js';
export * from './transport/index.js';
export {
  createDetector,
  DETECTOR_FAMILIES,
  type DetectorConfig,
  type DetectorFamily,
  describeConfig,
} from './tune/detector-config.js';
export { type FrontierPoint, paretoFrontier } from './tune/frontier.js';
export { defaultGrid } from './tune/grid.js';
export {
  type DetectionStat,
  type TuneCandidate,
  type TuneOptions,
  type TuneProgress,
  type TuneResult,
  tuneDetectors,
} from './tune/tune.js';
export { KEY_BYTES, Keyring } from './wire/keyring.js';
export { LABEL_BYTES_MAX, SEAL_OVERHEAD_BYTES } from './wire/seal.js';

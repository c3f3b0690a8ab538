/**
 * `fdkit/fencing`: acting safely on a lease. Leases from etcd or Redis (the `etcd3` or `ioredis` package,
 * an optional peer dependency loaded only when a provider is created), leader election on etcd by the
 * queue recipe ({@link createEtcdQueueElection}), fencing tokens, and the fences that refuse a stale
 * holder's writes: in SQL (SQLite, PostgreSQL, MySQL statements), over any compare-and-set store, or
 * through a {@link FencingGuard} in front of a store of your own.
 *
 * @module fdkit/fencing
 */
export {
  FenceError,
  type FenceErrorCode,
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  LeaseError,
  type LeaseErrorCode,
  type LifecycleCode,
  LifecycleError,
  MissingDependencyError,
  StaleTokenError,
} from '../errors.js';
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
} from '../fencing/cas/index.js';
export {
  createEtcdDowningLease,
  type EtcdDowningLease,
  type EtcdDowningLeaseOptions,
} from '../fencing/etcd-downing-lease.js';
export type { EtcdLease } from '../fencing/etcd-lease.js';
export { createEtcdLeaseProvider } from '../fencing/etcd-lease-provider.js';
export type { EtcdLeaseProviderOptions } from '../fencing/etcd-lease-settings.js';
export {
  type CampaignOptions,
  createEtcdQueueElection,
  type EtcdQueueElection,
  type EtcdQueueElectionStats,
} from '../fencing/etcd-queue-election.js';
export type { EtcdQueueElectionOptions } from '../fencing/etcd-queue-election-settings.js';
export { ETCD_EPOCH_MAX } from '../fencing/etcd-token.js';
export {
  type FenceCheck,
  type FenceStore,
  FencingGuard,
  type FencingGuardOptions,
} from '../fencing/fencing-guard.js';
export { type IdempotencyPart, idempotencyKey } from '../fencing/idempotency-key.js';
export type { AcquireOptions, Lease, LeaseProvider, ReleaseOptions } from '../fencing/lease.js';
export type { LeaseEventMap, LeaseStateName } from '../fencing/lease-state.js';
export {
  defaultSafetyMarginMs,
  KUBERNETES_LEASE_TIMINGS,
  type LeaseTimings,
  minimumSafetyMarginMs,
} from '../fencing/lease-timings.js';
export type { RedisLease } from '../fencing/redis-lease.js';
export { createRedisLeaseProvider } from '../fencing/redis-lease-provider.js';
export type { RedisLeaseProviderOptions } from '../fencing/redis-lease-settings.js';
export type { SqlDialect, SqlOperator } from '../fencing/sql/dialect.js';
export type { FenceMode } from '../fencing/sql/fence-verdict.js';
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
} from '../fencing/sql/fenced-statements.js';
export { type ClaimedUpdate, claimFence, type SqliteClaim } from '../fencing/sql/sqlite-claim.js';
export type { SqlDatabase, SqlStatement, SqlTransaction } from '../fencing/sql/sqlite-database.js';
export { type FencedUpdateResult, fencedUpdate } from '../fencing/sql/sqlite-fenced-update.js';
export type { SqlCondition, SqlValue, SqlWhere } from '../fencing/sql/statement-parts.js';
export {
  FENCING_TOKEN_MAX,
  type FenceHolder,
  type FencingToken,
  type TokenHolder,
} from '../fencing/token.js';
export type { LogBindings, Logger } from '../runtime/logger.js';

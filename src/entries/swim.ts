/**
 * `fdkit/swim`: the SWIM membership protocol with Lifeguard as a sans-I/O core. {@link SwimCore} reads
 * time, randomness and the network through a {@link SwimEnvironment} that the caller implements, so it
 * runs the same over UDP, in memory or in the simulator. The configuration, its profiles and the timing
 * they imply, the messages, the events, and the clocks and random source a host needs are here too.
 * For a member over real sockets, use `fdkit/node`.
 *
 * @module fdkit/swim
 */
export {
  InvalidArgumentError,
  type InvalidOptionCode,
  InvalidOptionError,
  type LifecycleCode,
  LifecycleError,
} from '../errors.js';
export type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
export type { MemberEvent, TransitionCause } from '../membership/events.js';
export { META_BYTES_MAX, NAME_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from '../membership/limits.js';
export type { MemberStateName } from '../membership/member-state.js';
export type { Clock, Timer } from '../runtime/clock.js';
export { Random } from '../runtime/random.js';
export { createSystemClock, entropySeed, type SystemClockOptions, systemClock } from '../runtime/system.js';
export { VirtualClock, type VirtualClockOptions } from '../runtime/virtual-clock.js';
export type { AdaptiveTimeoutOptions } from '../swim/adaptive-timeout.js';
export { resolveSwimConfig, SWIM_CONFIG_KEYS, type SwimConfig } from '../swim/config.js';
export type { ConflictPolicy } from '../swim/conflict-policy.js';
export { type MemberInfo, type MemberSuspicion, SwimCore, type SwimCoreOptions } from '../swim/core.js';
export type { SwimCounters } from '../swim/counters.js';
export { APP_STATE_BYTES_MAX } from '../swim/delegate-guard.js';
export type { CandidateMember, NameConflict, SwimDelegates } from '../swim/delegates.js';
export { MemberDirectory } from '../swim/directory.js';
export type { Measurement, SwimEnvironment } from '../swim/environment.js';
export {
  type ConflictEvent,
  type DeclaredDeadEvent,
  isMemberEvent,
  type MessageEvent,
  type RefutedEvent,
  type SwimEvent,
} from '../swim/events.js';
export type { SeedAnswer } from '../swim/join-attempt.js';
export type {
  Ack,
  AliveUpdate,
  BusyUpdate,
  ConflictNotice,
  DeadUpdate,
  Gossip,
  MemberList,
  Nack,
  NameQuery,
  Packet,
  Ping,
  PingReq,
  PushPull,
  Refuse,
  StreamMessage,
  SuspectUpdate,
  Update,
  UserBroadcast,
  UserPacket,
} from '../swim/messages.js';
export {
  lan,
  local,
  memberlistLan,
  memberlistLocal,
  memberlistWan,
  type ProfileName,
  profiles,
  wan,
} from '../swim/profiles.js';
export { JOIN_REFUSAL_CODES, type JoinRefusalCode, type Refusal } from '../swim/refusal.js';
export { expectedTiming, type Timing } from '../swim/timing.js';

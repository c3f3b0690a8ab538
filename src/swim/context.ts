/**
 * What every mechanism of a SWIM member shares: who it is, its tunables, time and randomness, its
 * counters, its view of the members, its outbox, its own health, where it is in its life, and the
 * application's delegates. What a
 * mechanism asks of another goes through that mechanism's own port (`ProberPort`, `StateSyncPort`,
 * `DeathWatchPort`, `TombstonesPort`, `RulesPort`, `SuspicionsPort`), which the façade (`core.ts`)
 * wires; no mechanism sees the core.
 */
import type { Clock } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { SwimConfig } from './config.js';
import type { SwimCounters } from './counters.js';
import type { DelegateGuard } from './delegate-guard.js';
import type { Measurement } from './environment.js';
import type { Health } from './health.js';
import type { Lifecycle } from './lifecycle.js';
import type { MemberView } from './member-view.js';
import type { Outbox } from './outbox.js';

export interface SwimContext {
  /** This member's name. */
  readonly name: string;
  /** The address other members reach this member at. */
  readonly address: string;
  readonly config: SwimConfig;
  readonly clock: Clock;
  readonly random: Random;
  readonly counters: SwimCounters;
  readonly view: MemberView;
  readonly outbox: Outbox;
  readonly health: Health;
  readonly lifecycle: Lifecycle;
  /** The application's delegates, fenced (a member without any has a guard over `{}`). */
  readonly delegates: DelegateGuard;
  /** Where the durations measured go: the environment's `measured`, when it has one. */
  readonly measured?: (what: Measurement, ms: number) => void;
}

/**
 * The only door between the heartbeat core and the world, as `SwimEnvironment` is for the SWIM core: the
 * core reads time and randomness, sends heartbeats and reports transitions through it, and is driven by
 * the calls its owner makes (`handleHeartbeat`) and the timers it sets on the clock. The node runtime
 * implements it over UDP; tests over a virtual clock and plain function calls.
 */

import type { MemberEvent } from '../membership/events.js';
import type { Clock } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { Heartbeat } from './messages.js';

/**
 * What a {@link HeartbeatCore} needs from its host: a clock for time and timers, randomness, a way to
 * send a heartbeat, and a sink for peers' transitions.
 */
export interface HeartbeatEnvironment {
  /** Monotonic time for intervals and silences, wall time for the default incarnation, and the timers. */
  readonly clock: Clock;
  /** Draws the nonce of this life. */
  readonly random: Random;
  /**
   * Sends one heartbeat to `address`, best effort. Within one beat the same object goes to every peer,
   * so an implementation can encode it once.
   */
  send(address: string, heartbeat: Heartbeat): void;
  /** Reports a peer's transition. */
  emit(event: MemberEvent): void;
}

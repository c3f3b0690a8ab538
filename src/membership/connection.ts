/**
 * What the kernel says about a member's port, in the words both the SWIM core's environment and the
 * transports use: the outcome of a connection attempt, and the end of a watch (a connection held open
 * so that its closing tells of the process's death).
 */

/**
 * What a connection attempt to a member's port found: `refused` means its host answered that nothing
 * listens there any more (its process is gone), `accepted` that something does (the process may still be
 * paused), `timeout` that nothing answered in time (host or path down, or just slow).
 */
export type ConnectOutcome = 'refused' | 'accepted' | 'timeout';

/**
 * How a watch ended: `closed` when the watched member's end of an open watch closed (its process exited,
 * was killed or shut down: the kernel of its host closes its sockets), `refused` when its host refused
 * the connection (nothing listens there), `failed` when it could not be opened (no answer within the
 * connect timeout, unreachable).
 */
export type WatchEnd = 'closed' | 'refused' | 'failed';

/** A watch in place; `cancel` closes it without an end being reported. */
export interface Watch {
  /** Closes the watch's connection; its end is then never reported. Idempotent. */
  cancel(): void;
}
